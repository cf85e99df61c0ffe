import { OPERATION_ACCESS } from '@relay/client';
import { RELAY_TOOLS } from '@relay/mcp';
import { startMcpRelay, ALL_SCOPES, type McpRelay } from './mcp-harness';

describe('MCP server: the tools a caller sees', () => {
  let relay: McpRelay;
  beforeAll(async () => {
    relay = await startMcpRelay();
  });
  afterAll(() => relay.close());

  it('lists list_sources for an events:read key and answers it with links to the dashboard', async () => {
    await relay.pipeline.http.post('/github').set('content-type', 'application/json').send({ a: 1 }).expect(202);
    const client = await relay.connect(await relay.key(['events:read']));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('list_sources');
    const result = await client.callTool({ name: 'list_sources', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      sources: [{ source: 'github', count: 1, link: expect.stringMatching(/\/app\/events\?source=github$/) }],
    });
  });

  it('refuses a tool outside the key scopes with a clear message', async () => {
    const client = await relay.connect(await relay.key(['rules:read']));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).not.toContain('list_sources');
    const result = await client.callTool({ name: 'list_sources', arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: 'text', text: expect.stringContaining('list_sources needs the events:read scope with the viewer role') },
    ]);
  });

  it("passes the API's field errors on, so an assistant can correct its call", async () => {
    const client = await relay.connect(await relay.key(ALL_SCOPES));
    // The tool's own schema lets a blank search through; the API's validation names the field.
    const result = await client.callTool({ name: 'list_events', arguments: { search: '   ' } });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: 'text', text: expect.stringMatching(/\(search: .+\) \[validation_failed\]$/) },
    ]);
  });

  it('offers an all-scope key every tool', async () => {
    const client = await relay.connect(await relay.key(ALL_SCOPES));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(RELAY_TOOLS.map((t) => t.name));
    // Every tool the issue names is there.
    for (const name of [
      'list_events',
      'get_event',
      'get_event_payload',
      'list_event_attempts',
      'list_sources',
      'get_stats',
      'retry_event',
      'acknowledge_event',
      'delete_event',
      'bulk_retry_events',
      'list_rules',
      'create_rule',
      'update_rule',
      'delete_rule',
      'dry_run_rule_filter',
      'list_destinations',
      'create_destination',
      'update_destination',
      'delete_destination',
      'resume_destination',
      'list_hooks',
      'create_hook',
      'delete_hook',
      'send_webhook',
      'get_ingest_endpoint',
      'list_audit_entries',
      'list_domains',
      'verify_domain',
    ])
      expect(tools.map((t) => t.name)).toContain(name);
  });

  it("offers each tool exactly to the credentials its operation's row of the generated access map allows", async () => {
    const rank = { viewer: 0, admin: 1 } as const;
    const allowed = (role: 'viewer' | 'admin', scopes: readonly string[]) =>
      RELAY_TOOLS.filter((tool) => {
        const access = OPERATION_ACCESS[tool.operation];
        if (access === 'public') return true;
        if (rank[role] < rank[access.role]) return false;
        return access.scope === null || scopes.includes(access.scope);
      }).map((tool) => tool.name);
    for (const scope of ALL_SCOPES) {
      const key = await relay.key([scope]);
      const me = await relay.pipeline.http.get('/api/auth/me').set('authorization', key).expect(200);
      const { tools } = await (await relay.connect(key)).listTools();
      expect({ scope, tools: tools.map((t) => t.name) }).toEqual({ scope, tools: allowed(me.body.role, [scope]) });
    }
    const viewer = await relay.connect(await relay.token('viewer'));
    expect((await viewer.listTools()).tools.map((t) => t.name)).toEqual(allowed('viewer', ALL_SCOPES));
  });
});
