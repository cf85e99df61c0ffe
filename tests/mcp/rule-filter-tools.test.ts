import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { structured, textOf } from './tool-results';
import { startMcpRelay, type McpRelay } from './mcp-harness';

// The rule filter (issue 29) through create_rule and update_rule.
const TARGET = 'https://example.com/hooks';

type RuleResult = { rule: Record<string, unknown> & { id: string } };

describe('MCP rule tools: the routing filter', () => {
  let relay: McpRelay;
  let client: Client;
  beforeAll(async () => {
    relay = await startMcpRelay();
    client = await relay.connect(await relay.key(['rules:read', 'rules:write']));
  }, 60_000);
  afterAll(() => relay.close());

  const row = (id: string) => relay.pipeline.store.prisma.rule.findUniqueOrThrow({ where: { id } });
  const call = async (name: string, args: Record<string, unknown>) =>
    structured<RuleResult>(await client.callTool({ name, arguments: args })).rule;

  it('create_rule stores a JSON filter, update_rule replaces it with CEL and null removes it', async () => {
    const filter = { body: { amount: { $gte: 100 } }, headers: { 'x-env': 'prod' } };
    const created = await call('create_rule', { source: 'mcp-filter', target_url: TARGET, filter });
    expect(created.filter).toEqual(filter);
    expect((await row(created.id)).filter).toEqual(filter);

    const cel = await call('update_rule', { id: created.id, filter: { cel: 'body.type == "push"' } });
    expect(cel.filter).toEqual({ cel: 'body.type == "push"' });
    const none = await call('update_rule', { id: created.id, filter: null });
    expect(none.filter).toBeNull();
    expect((await row(created.id)).filter).toBeNull();
  });

  it('refuses a bad filter naming the bad part, changing nothing', async () => {
    const created = await call('create_rule', { source: 'mcp-filter-bad', target_url: TARGET });
    const result = await client.callTool({
      name: 'update_rule',
      arguments: { id: created.id, filter: { body: { amount: { $gtt: 1 } } } },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/\$gtt/);
    expect(textOf(result)).toMatch(/body.*amount/);
    expect((await row(created.id)).filter).toBeNull();
  });
});
