import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createPacingLimiter, createRedisConnection, rulePacingKey } from '@relay/queue';
import { startTargetServer, TEST_REDIS_URL, waitFor, type TargetServer } from '@relay/test-support';
import { keyIdOf, structured, textOf } from './tool-results';
import { startMcpRelay, type McpRelay } from './mcp-harness';

const SECRET = 'mcp-rule-signing-secret-1';

describe('MCP rule and hook tools', () => {
  let relay: McpRelay;
  let target: TargetServer;
  let hooks: TargetServer;
  let writer: string;
  let client: Client;
  beforeAll(async () => {
    [relay, target, hooks] = await Promise.all([startMcpRelay(), startTargetServer(), startTargetServer()]);
    writer = await relay.key(['rules:read', 'rules:write']);
    client = await relay.connect(writer);
  });
  afterAll(async () => {
    await relay.close();
    await Promise.all([target.close(), hooks.close()]);
  });
  beforeEach(() => {
    target.replyWith(200);
    hooks.replyWith(200);
  });

  const prisma = () => relay.pipeline.store.prisma;
  const ingest = async (source: string, body: string) =>
    (await relay.pipeline.http.post(`/${source}`).set('content-type', 'application/json').send(body).expect(202)).body
      .id as string;
  const auditOf = (action: string, resourceId: string) =>
    prisma().auditEntry.findFirstOrThrow({ where: { action, resourceId } });
  const createRule = async (args: Record<string, unknown>) =>
    structured<{ rule: { id: string } }>(await client.callTool({ name: 'create_rule', arguments: args })).rule.id;

  it('get_rule: the rule with its pacing state (rate in force, waiting, hold); list_rules leaves it out', async () => {
    const rate = { limit: 6, period: 'minute' as const, burst: 1 };
    const id = await createRule({ source: 'mcp-paced', target_url: `${target.url}/paced`, rate_limit: rate });
    const get = async () =>
      structured<{ rule: Record<string, unknown> }>(await client.callTool({ name: 'get_rule', arguments: { id } }))
        .rule;
    expect(await get()).toMatchObject({
      id,
      rate_limit: rate,
      pacing_state: { effective_limit: 6, period: 'minute', in_flight: 0, waiting: 0, held_until: null },
    });
    // A worker's limiter under the install's prefix: one delivery granted, one waiting, a 429 and its Retry-After.
    const redis = createRedisConnection(TEST_REDIS_URL, 'worker');
    const workers = createPacingLimiter({ redis, prefix: relay.pipeline.prefix });
    const key = rulePacingKey(id);
    await workers.acquire(key, { rateLimit: rate }, 'job-1');
    await workers.acquire(key, { rateLimit: rate }, 'job-2');
    await workers.slowDown(key, { rateLimit: rate });
    await workers.hold(key, Date.now() + 60_000);
    redis.disconnect();
    expect((await get()).pacing_state).toMatchObject({
      effective_limit: 3,
      waiting: 1,
      held_until: expect.any(String),
    });
    const listed = structured<{ rules: Record<string, unknown>[] }>(
      await client.callTool({ name: 'list_rules', arguments: {} }),
    ).rules.find((rule) => rule.id === id);
    expect(listed).not.toHaveProperty('pacing_state');
  });

  it('create_rule: a webhook of its source is delivered to its target; the secret is never echoed', async () => {
    const result = await client.callTool({
      name: 'create_rule',
      arguments: { name: 'orders', source: 'mcp-orders', target_url: `${target.url}/orders`, signing_secret: SECRET },
    });
    const { rule } = structured<{ rule: Record<string, unknown> & { id: string } }>(result);
    expect(rule).toMatchObject({
      name: 'orders',
      source: 'mcp-orders',
      target_url: `${target.url}/orders`,
      active: true,
      has_signing_secret: true,
      link: expect.stringMatching(new RegExp(`/app/rules/${rule.id}$`)),
    });
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(await prisma().rule.findUniqueOrThrow({ where: { id: rule.id } })).toMatchObject({
      source: 'mcp-orders',
      active: true,
    });

    const id = await ingest('mcp-orders', '{"order":7}');
    await relay.pipeline.waitForStatus(id, 'delivered');
    const [call] = target.requests.filter((r) => r.url === '/orders');
    expect(call!.body.toString()).toBe('{"order":7}');
    expect(call!.headers['x-relay-signature']).toEqual(expect.any(String));
    expect((await auditOf('rule.created', rule.id)).metadata).toMatchObject({
      api_key_id: await keyIdOf(relay, writer),
    });

    const listed = structured<{ rules: { id: string }[] }>(
      await client.callTool({ name: 'list_rules', arguments: {} }),
    );
    expect(listed.rules.map((r) => r.id)).toContain(rule.id);
  });

  it('update_rule changes only the fields given; null clears the description and the secret', async () => {
    const id = await createRule({
      source: 'mcp-update',
      target_url: `${target.url}/a`,
      description: 'first',
      signing_secret: SECRET,
    });
    const cleared = await client.callTool({ name: 'update_rule', arguments: { id, description: null } });
    expect(structured<{ rule: unknown }>(cleared).rule).toMatchObject({ description: null, has_signing_secret: true });
    let row = await prisma().rule.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ description: null, targetUrl: `${target.url}/a`, active: true });
    expect(row.signingSecret).not.toBeNull();

    const paused = await client.callTool({
      name: 'update_rule',
      arguments: { id, signing_secret: null, active: false, forward_headers: ['authorization'] },
    });
    expect(JSON.stringify(paused)).not.toContain(SECRET);
    row = await prisma().rule.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ signingSecret: null, active: false, description: null });
    expect(row.outboundHeaders).toEqual({ forward: ['authorization'], set: {}, remove: [] });
    const entries = await prisma().auditEntry.findMany({ where: { action: 'rule.updated', resourceId: id } });
    expect(entries.map((e) => e.metadata)).toEqual([
      expect.objectContaining({ api_key_id: await keyIdOf(relay, writer) }),
      expect.objectContaining({ api_key_id: await keyIdOf(relay, writer) }),
    ]);

    // Nothing given: a clear refusal, and no request reaches the API (no third audit entry).
    const nothing = await client.callTool({ name: 'update_rule', arguments: { id } });
    expect(nothing.isError).toBe(true);
    expect(textOf(nothing)).toContain('Nothing to change');
    expect(await prisma().auditEntry.count({ where: { action: 'rule.updated', resourceId: id } })).toBe(2);
  });

  it('create_hook: when its rule fails for good the hook target is called; list_hooks and delete_hook', async () => {
    target.replyWith(503);
    const ruleId = await createRule({ source: 'mcp-failing', target_url: `${target.url}/failing` });
    const created = await client.callTool({
      name: 'create_hook',
      arguments: { rule_id: ruleId, name: 'alert', trigger: 'provider_failed', target_url: `${hooks.url}/alert` },
    });
    const { hook } = structured<{ hook: { id: string } }>(created);
    expect(hook).toMatchObject({
      rule_id: ruleId,
      name: 'alert',
      trigger: 'provider_failed',
      link: expect.stringContaining(ruleId),
    });

    const id = await ingest('mcp-failing', '{"n":1}');
    await relay.pipeline.waitForStatus(id, 'failed');
    const [call] = await waitFor(
      async () => (hooks.requests.length ? hooks.requests : undefined),
      10_000,
      'the failure hook',
    );
    expect(call!.url).toBe('/alert');
    expect(call!.headers).toMatchObject({ 'x-relay-delivery-status': 'failed', 'x-relay-response-status': '503' });

    const listed = structured<{ hooks: { id: string }[] }>(
      await client.callTool({ name: 'list_hooks', arguments: { rule_id: ruleId } }),
    );
    expect(listed.hooks.map((h) => h.id)).toEqual([hook.id]);

    const deleted = await client.callTool({ name: 'delete_hook', arguments: { rule_id: ruleId, hook_id: hook.id } });
    expect(structured(deleted)).toMatchObject({ id: hook.id, deleted: true });
    expect(await prisma().hook.findUnique({ where: { id: hook.id } })).toBeNull();
    expect((await auditOf('hook.deleted', hook.id)).metadata).toMatchObject({
      api_key_id: await keyIdOf(relay, writer),
    });
  });

  it('delete_rule deletes the rule and its hooks; a second delete says there is no such rule', async () => {
    const ruleId = await createRule({ source: 'mcp-doomed', target_url: `${target.url}/doomed` });
    await client.callTool({
      name: 'create_hook',
      arguments: { rule_id: ruleId, trigger: 'provider_succeeded', target_url: `${hooks.url}/ok` },
    });
    const result = await client.callTool({ name: 'delete_rule', arguments: { id: ruleId } });
    expect(structured(result)).toMatchObject({
      id: ruleId,
      deleted: true,
      link: expect.stringMatching(/\/app\/rules$/),
    });
    expect(await prisma().rule.findUnique({ where: { id: ruleId } })).toBeNull();
    expect(await prisma().hook.count({ where: { ruleId: ruleId } })).toBe(0);
    expect((await auditOf('rule.deleted', ruleId)).metadata).toMatchObject({
      api_key_id: await keyIdOf(relay, writer),
    });

    const again = await client.callTool({ name: 'delete_rule', arguments: { id: ruleId } });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(/No such rule.*\[not_found\]/);
  });

  it("passes on the API's reason when a rule is refused, creating nothing", async () => {
    await createRule({ source: 'mcp-taken', target_url: `${target.url}/taken` });
    const taken = await client.callTool({
      name: 'create_rule',
      arguments: { source: 'mcp-taken', target_url: `${target.url}/second` },
    });
    expect(taken.isError).toBe(true);
    expect(textOf(taken)).toMatch(/\[active_provider_exists\]$/);
    expect(await prisma().rule.count({ where: { source: 'mcp-taken' } })).toBe(1);
  });

  it('annotates reads, deletes and idempotent updates', async () => {
    const { tools } = await client.listTools();
    const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    expect(hints.list_rules).toMatchObject({ readOnlyHint: true });
    expect(hints.list_hooks).toMatchObject({ readOnlyHint: true });
    expect(hints.delete_rule).toMatchObject({ destructiveHint: true });
    expect(hints.delete_hook).toMatchObject({ destructiveHint: true });
    expect(hints.update_rule).toMatchObject({ idempotentHint: true });
    expect(hints.create_rule).toMatchObject({ destructiveHint: false });
    expect(hints.create_rule?.readOnlyHint).toBeFalsy();
  });

  it('refuses create_rule to a rules:read key with a clear message, creating nothing', async () => {
    const reader = await relay.connect(await relay.key(['rules:read']));
    const names = (await reader.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['list_rules', 'list_hooks']));
    expect(names).not.toContain('create_rule');
    const before = await prisma().rule.count();
    const result = await reader.callTool({
      name: 'create_rule',
      arguments: { source: 'mcp-refused', target_url: `${target.url}/refused` },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('create_rule needs the rules:write scope with the admin role');
    expect(await prisma().rule.count()).toBe(before);
  });

  it("lists list_rules but no rule writes or send_webhook in a viewer's tool list", async () => {
    const viewer = await relay.connect(await relay.token('viewer'));
    const names = (await viewer.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['list_rules', 'list_hooks']));
    for (const name of ['create_rule', 'update_rule', 'delete_rule', 'create_hook', 'delete_hook', 'send_webhook']) {
      expect(names).not.toContain(name);
    }
  });
});
