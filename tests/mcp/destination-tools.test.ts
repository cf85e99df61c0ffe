import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createPacingLimiter, createRedisConnection, destinationPacingKey } from '@relay/queue';
import { startTargetServer, TEST_REDIS_URL, waitFor, type TargetServer } from '@relay/test-support';
import { structured, textOf } from './tool-results';
import { startMcpRelay, type McpRelay } from './mcp-harness';

// Routing's destinations (issue 29) through list/create/update/delete/resume_destination.
type Destination = Record<string, unknown> & { id: string; rule_id: string; name: string };

describe('MCP destination tools', () => {
  let relay: McpRelay;
  let target: TargetServer;
  let client: Client;
  let ruleId: string;
  beforeAll(async () => {
    [relay, target] = await Promise.all([startMcpRelay(), startTargetServer()]);
    client = await relay.connect(await relay.key(['rules:read', 'rules:write']));
    const rule = structured<{ rule: { id: string } }>(
      await client.callTool({ name: 'create_rule', arguments: { source: 'mcp-dest', target_url: `${target.url}/p` } }),
    );
    ruleId = rule.rule.id;
  });
  afterAll(async () => {
    await relay.close();
    await target.close();
  });

  const prisma = () => relay.pipeline.store.prisma;
  const call = async (name: string, args: Record<string, unknown>) =>
    structured<{ destination: Destination }>(await client.callTool({ name, arguments: { rule_id: ruleId, ...args } }))
      .destination;

  it('get_destination: the destination with its pacing state (in flight, waiting under max_concurrency)', async () => {
    const created = await call('create_destination', {
      name: 'narrow',
      target_url: 'https://narrow.example.com/in',
      max_concurrency: 1,
    });
    const redis = createRedisConnection(TEST_REDIS_URL, 'worker');
    const workers = createPacingLimiter({ redis, prefix: relay.pipeline.prefix });
    const key = destinationPacingKey(created.id);
    await workers.acquire(key, { maxConcurrency: 1 }, 'job-a');
    await workers.acquire(key, { maxConcurrency: 1 }, 'job-b');
    redis.disconnect();
    const got = await call('get_destination', { destination_id: created.id });
    expect(got).toMatchObject({
      id: created.id,
      max_concurrency: 1,
      pacing_state: { effective_limit: null, period: null, in_flight: 1, waiting: 1, held_until: null },
    });
    expect(created).not.toHaveProperty('pacing_state');
    await call('delete_destination', { destination_id: created.id });
  });

  it('creates with a filter, headers, a policy and a secret; lists; updates partly; deletes', async () => {
    const filter = { body: { action: 'released' } };
    const created = await call('create_destination', {
      name: 'chat',
      target_url: 'https://chat.example.com/in',
      filter,
      signing_secret: 'a-destination-secret-0123',
      set_headers: { 'x-team': 'ops' },
      delivery_policy: { max_attempts: 3 },
      unhealthy_after_seconds: 3600,
    });
    expect(created).toMatchObject({
      rule_id: ruleId,
      name: 'chat',
      filter,
      active: true,
      has_signing_secret: true,
      set_headers: { 'x-team': 'ops' },
      forward_headers: [],
      delivery_policy: { max_attempts: 3 },
      unhealthy_after_seconds: 3600,
      health: { status: 'healthy', reason: null, since: null },
      link: expect.stringMatching(new RegExp(`/app/rules/${ruleId}$`)),
    });
    expect(JSON.stringify(created)).not.toContain('a-destination-secret');
    const listed = structured<{ destinations: Destination[] }>(
      await client.callTool({ name: 'list_destinations', arguments: { rule_id: ruleId } }),
    );
    expect(listed.destinations.map((d) => d.id)).toEqual([created.id]);

    // forward_headers alone keeps the stored set headers; null clears the filter and the secret.
    const updated = await call('update_destination', {
      destination_id: created.id,
      forward_headers: ['authorization'],
      filter: null,
      signing_secret: null,
      active: false,
    });
    expect(updated).toMatchObject({ filter: null, has_signing_secret: false, active: false });
    expect(await prisma().destination.findUniqueOrThrow({ where: { id: created.id } })).toMatchObject({
      filter: null,
      signingSecret: null,
      active: false,
      outboundHeaders: { forward: ['authorization'], set: { 'x-team': 'ops' }, remove: [] },
      deliveryPolicy: { max_attempts: 3 },
    });
    const nothing = await client.callTool({
      name: 'update_destination',
      arguments: { rule_id: ruleId, destination_id: created.id },
    });
    expect(nothing.isError).toBe(true);
    expect(textOf(nothing)).toMatch(/Nothing to change/);

    const bad = await client.callTool({
      name: 'update_destination',
      arguments: { rule_id: ruleId, destination_id: created.id, filter: { body: { n: { $gtt: 1 } } } },
    });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/\$gtt/);

    const deleted = structured(
      await client.callTool({ name: 'delete_destination', arguments: { rule_id: ruleId, destination_id: created.id } }),
    );
    expect(deleted).toMatchObject({ id: created.id, rule_id: ruleId, deleted: true });
    expect(await prisma().destination.findUnique({ where: { id: created.id } })).toBeNull();
  });

  it('resume_destination sends the paused deliveries of an unhealthy destination', async () => {
    const created = await call('create_destination', { name: 'backup', target_url: `${target.url}/backup` });
    await prisma().destination.update({
      where: { id: created.id },
      data: { health: 'unhealthy', unhealthyReason: 'gone', unhealthySince: new Date() },
    });
    const ingested = await relay.pipeline.http
      .post('/mcp-dest')
      .set('content-type', 'application/json')
      .send('{"n":1}')
      .expect(202);
    const eventId = ingested.body.id as string;
    const status = async () =>
      (await prisma().delivery.findFirst({ where: { eventId, destinationId: created.id } }))?.status;
    await waitFor(async () => ((await status()) === 'paused' ? true : undefined), 15_000, 'a paused delivery');
    const listed = structured<{ destinations: Destination[] }>(
      await client.callTool({ name: 'list_destinations', arguments: { rule_id: ruleId } }),
    );
    expect(listed.destinations.find((d) => d.id === created.id)?.health).toMatchObject({
      status: 'unhealthy',
      reason: 'gone',
    });
    const resumed = structured<{ destination: Destination; resumed_deliveries: number }>(
      await client.callTool({ name: 'resume_destination', arguments: { rule_id: ruleId, destination_id: created.id } }),
    );
    expect(resumed.resumed_deliveries).toBe(1);
    expect(resumed.destination).toMatchObject({ id: created.id, health: { status: 'healthy' } });
    await waitFor(async () => ((await status()) === 'delivered' ? true : undefined), 15_000, 'delivered');
    expect(target.requests.filter((r) => r.url === '/backup')).toHaveLength(1);
  });

  it('offers a rules:read key list_destinations only, and refuses a write with what it needs', async () => {
    const reader = await relay.connect(await relay.key(['rules:read']));
    const names = (await reader.listTools()).tools.map((t) => t.name);
    expect(names).toContain('list_destinations');
    for (const name of ['create_destination', 'update_destination', 'delete_destination', 'resume_destination'])
      expect(names).not.toContain(name);
    const refused = await reader.callTool({
      name: 'create_destination',
      arguments: { rule_id: ruleId, target_url: 'https://x.example.com' },
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('create_destination needs the rules:write scope with the admin role');
    const tool = (await client.listTools()).tools.find((t) => t.name === 'delete_destination');
    expect(tool?.annotations).toMatchObject({ destructiveHint: true });
  });
});
