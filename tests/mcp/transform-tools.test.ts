import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { structured, textOf } from './tool-results';
import { startMcpRelay, type McpRelay } from './mcp-harness';

// Transforms and pacing (issue 30) through the rule and destination tools, and tried with test_transform.
const TARGET = 'https://example.com/hooks';
const TO_CHAT =
  "addHandler('transform', (request) => {\n  console.log('by', request.body.pusher.name);\n" +
  '  request.body = { text: `${request.body.pusher.name} pushed` };\n' +
  "  request.headers['x-kind'] = 'chat';\n  return request;\n});";
const KEEP = "addHandler('transform', (request) => request);";
const THROWS = "addHandler('transform', () => {\n  throw new Error('nope');\n});";

type Entity = Record<string, unknown> & { id: string };

describe('MCP tools: transforms and pacing', () => {
  let relay: McpRelay;
  let client: Client;
  beforeAll(async () => {
    relay = await startMcpRelay();
    client = await relay.connect(await relay.key(['rules:read', 'rules:write']));
  });
  afterAll(() => relay.close());

  const prisma = () => relay.pipeline.store.prisma;
  const rule = async (name: string, args: Record<string, unknown>) =>
    structured<{ rule: Entity }>(await client.callTool({ name, arguments: args })).rule;
  const destination = async (name: string, args: Record<string, unknown>) =>
    structured<{ destination: Entity }>(await client.callTool({ name, arguments: args })).destination;
  const ingest = async (source: string, body: object) =>
    (
      await relay.pipeline.http
        .post(`/${source}`)
        .set('content-type', 'application/json')
        .send(JSON.stringify(body))
        .expect(202)
    ).body.id as string;

  it('create_rule and update_rule set a transform and pacing, the result shows has_transform and pacing', async () => {
    const created = await rule('create_rule', {
      source: 'mcp-transform',
      target_url: TARGET,
      transform: TO_CHAT,
      forward_path_query: true,
      rate_limit: { limit: 5, period: 'second', burst: 10 },
      max_concurrency: 2,
    });
    expect(created).toMatchObject({
      has_transform: true,
      forward_path_query: true,
      rate_limit: { limit: 5, period: 'second', burst: 10 },
      max_concurrency: 2,
    });
    expect(created).not.toHaveProperty('transform');
    expect(await prisma().rule.findUniqueOrThrow({ where: { id: created.id } })).toMatchObject({
      transform: TO_CHAT,
      maxConcurrency: 2,
    });
    const listed = structured<{ rules: Entity[] }>(await client.callTool({ name: 'list_rules', arguments: {} }));
    expect(listed.rules.find((r) => r.id === created.id)).toMatchObject({ has_transform: true, max_concurrency: 2 });

    const off = await rule('update_rule', { id: created.id, transform: null, rate_limit: null });
    expect(off).toMatchObject({ has_transform: false, rate_limit: null, max_concurrency: 2, forward_path_query: true });
  });

  it("refuses a transform that does not compile or a period out of range with the API's field errors", async () => {
    const created = await rule('create_rule', { source: 'mcp-transform-bad', target_url: TARGET });
    const bad = await client.callTool({
      name: 'update_rule',
      arguments: { id: created.id, transform: "addHandler('transform', (r) => {" },
    });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/transform/);
    const period = await client.callTool({
      name: 'update_rule',
      arguments: { id: created.id, rate_limit: { limit: 5, period: 'day' } },
    });
    expect(period.isError).toBe(true);
    expect(textOf(period)).toMatch(/period/);
    expect(await prisma().rule.findUniqueOrThrow({ where: { id: created.id } })).toMatchObject({
      transform: null,
      rateLimit: null,
    });
  });

  it('create_destination and update_destination set and clear a transform and pacing', async () => {
    const parent = await rule('create_rule', { source: 'mcp-transform-dest', target_url: TARGET });
    const added = await destination('create_destination', {
      rule_id: parent.id,
      name: 'chat',
      target_url: 'https://chat.example.com/in',
      transform: TO_CHAT,
      rate_limit: { limit: 30, period: 'minute' },
      max_concurrency: 1,
    });
    expect(added).toMatchObject({
      has_transform: true,
      forward_path_query: false,
      rate_limit: { limit: 30, period: 'minute' },
      max_concurrency: 1,
    });
    const changed = await destination('update_destination', {
      rule_id: parent.id,
      destination_id: added.id,
      transform: null,
      max_concurrency: null,
      forward_path_query: true,
    });
    expect(changed).toMatchObject({ has_transform: false, max_concurrency: null, forward_path_query: true });
    expect(await prisma().destination.findUniqueOrThrow({ where: { id: added.id } })).toMatchObject({
      transform: null,
      rateLimit: { limit: 30, period: 'minute' },
      forwardPathQuery: true,
    });
  });

  it('test_transform runs code or the saved transform on a stored webhook, for an admin key with events:read', async () => {
    const parent = await rule('create_rule', { source: 'mcp-transform-test', target_url: TARGET, transform: KEEP });
    const chat = await destination('create_destination', {
      rule_id: parent.id,
      target_url: 'https://chat.example.com/in',
      transform: TO_CHAT,
    });
    const push = { pusher: { name: 'ada' } };
    const eventId = await ingest('mcp-transform-test', push);

    // The operation asks for events:read (it reads a stored payload): a rules-only key does not see the tool.
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('test_transform');
    const reader = await relay.connect(await relay.key(['events:read']));
    const tool = (await reader.listTools()).tools.find((t) => t.name === 'test_transform');
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true });
    const test = async (args: Record<string, unknown>) =>
      structured<Record<string, unknown>>(
        await reader.callTool({ name: 'test_transform', arguments: { id: parent.id, event_id: eventId, ...args } }),
      );

    expect(await test({ transform: TO_CHAT })).toEqual({
      ok: true,
      request: expect.objectContaining({
        body: { text: 'ada pushed' },
        headers: expect.objectContaining({ 'x-kind': 'chat' }),
      }),
      logs: 'by ada\n',
    });
    expect(await test({})).toMatchObject({ ok: true, request: { body: push } });
    expect(await test({ destination_id: chat.id })).toMatchObject({
      ok: true,
      request: { body: { text: 'ada pushed' } },
    });
    expect(await test({ transform: THROWS })).toMatchObject({
      ok: false,
      error: { cause: 'error', line: 2, message: expect.stringContaining('nope') },
    });
  });
});
