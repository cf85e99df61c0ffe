import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { structured, textOf } from './tool-results';
import { startMcpRelay, type McpRelay } from './mcp-harness';

// The rule filter (issue 29) through create_rule and update_rule, and tried with dry_run_rule_filter.
const TARGET = 'https://example.com/hooks';

type RuleResult = { rule: Record<string, unknown> & { id: string } };

describe('MCP rule tools: the routing filter', () => {
  let relay: McpRelay;
  let client: Client;
  beforeAll(async () => {
    relay = await startMcpRelay();
    client = await relay.connect(await relay.key(['rules:read', 'rules:write']));
  });
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

  it('dry_run_rule_filter counts the matches among stored webhooks, for a key with events:read only', async () => {
    const created = await call('create_rule', { source: 'mcp-dry', target_url: TARGET });
    const ids: string[] = [];
    for (const amount of [5, 150, 250]) {
      const answer = await relay.pipeline.http
        .post('/mcp-dry')
        .set('content-type', 'application/json')
        .send(JSON.stringify({ amount }))
        .expect(202);
      ids.push(answer.body.id as string);
    }
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('dry_run_rule_filter');
    const reader = await relay.connect(await relay.key(['rules:read', 'events:read']));
    const tool = (await reader.listTools()).tools.find((t) => t.name === 'dry_run_rule_filter');
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true });
    const run = structured<{ matched: number; not_matched: number; results: unknown[] }>(
      await reader.callTool({
        name: 'dry_run_rule_filter',
        arguments: { id: created.id, filter: { body: { amount: { $gt: 100 } } } },
      }),
    );
    expect(run).toMatchObject({ matched: 2, not_matched: 1 });
    expect(run.results[0]).toEqual({ event_id: ids[2], matched: true });
    const one = structured<{ matched: number; not_matched: number }>(
      await reader.callTool({
        name: 'dry_run_rule_filter',
        arguments: { id: created.id, filter: { cel: 'body.amount < 10' }, event_ids: [ids[1]] },
      }),
    );
    expect(one).toMatchObject({ matched: 0, not_matched: 1 });
    expect((await row(created.id)).filter).toBeNull();
  });
});
