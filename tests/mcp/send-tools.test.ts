import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import { startMcpRelay, type McpRelay } from './mcp-harness';
import { keyIdOf, structured, textOf } from './tool-results';

describe('MCP send_webhook and get_ingest_endpoint', () => {
  let relay: McpRelay;
  let target: TargetServer;
  let sender: string;
  let client: Client;
  beforeAll(async () => {
    target = await startTargetServer();
    relay = await startMcpRelay({ DEFAULT_TARGET_URL: `${target.url}/default` });
    sender = await relay.key(['webhooks:send', 'events:read']);
    client = await relay.connect(sender);
  });
  afterAll(async () => {
    await relay.close();
    await target.close();
  });

  const prisma = () => relay.pipeline.store.prisma;
  const bodiesAt = (path: string) => target.requests.filter((r) => r.url === path).map((r) => r.body.toString());
  type Sent = { id: string; source: string; target_url: string; rule_id: string | null; link: string };

  it('manual mode: the target receives the body; the event and its audit entry name the key', async () => {
    const body = { ping: true, items: [1, 2], note: 'from an assistant' };
    const result = await client.callTool({
      name: 'send_webhook',
      arguments: { source: 'mcp-manual', target_url: `${target.url}/manual`, body },
    });
    const sent = structured<Sent>(result);
    expect(sent).toMatchObject({ source: 'mcp-manual', target_url: `${target.url}/manual`, rule_id: null });
    expect(sent.link).toMatch(new RegExp(`/app/events/${sent.id}$`));
    await relay.pipeline.waitForStatus(sent.id, 'delivered');
    expect(bodiesAt('/manual')).toEqual([JSON.stringify(body)]);
    expect(await relay.pipeline.eventById(sent.id)).toMatchObject({ source: 'mcp-manual' });
    const entry = await prisma().auditEntry.findFirstOrThrow({ where: { action: 'event.sent', resourceId: sent.id } });
    expect(entry.metadata).toMatchObject({ api_key_id: await keyIdOf(relay, sender) });
  });

  it('manual mode without a target_url delivers to the default target', async () => {
    const sent = structured<Sent>(
      await client.callTool({ name: 'send_webhook', arguments: { source: 'mcp-default', body: [1, 'two'] } }),
    );
    expect(sent.target_url).toBe(`${target.url}/default`);
    await relay.pipeline.waitForStatus(sent.id, 'delivered');
    expect(bodiesAt('/default')).toEqual(['[1,"two"]']);
  });

  it("rule mode: a rule id sends to the rule's source and target", async () => {
    const admin = await relay.token('admin');
    const rule = (
      await relay.pipeline.http
        .post('/rules')
        .set('authorization', admin)
        .send({ source: 'mcp-provider', target_url: `${target.url}/rule` })
        .expect(201)
    ).body as { id: string };
    const sent = structured<Sent>(
      await client.callTool({ name: 'send_webhook', arguments: { rule_id: rule.id, body: 'just a string' } }),
    );
    expect(sent).toMatchObject({ source: 'mcp-provider', rule_id: rule.id, target_url: `${target.url}/rule` });
    await relay.pipeline.waitForStatus(sent.id, 'delivered');
    expect(bodiesAt('/rule')).toEqual(['"just a string"']);

    // Mixed or missing modes are refused before anything is sent.
    const before = await prisma().event.count();
    for (const args of [
      { rule_id: rule.id, source: 'x', body: {} },
      { body: {} },
      { rule_id: rule.id, target_url: `${target.url}/other`, body: {} },
    ]) {
      const refused = await client.callTool({ name: 'send_webhook', arguments: args });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/rule_id|target_url/);
    }
    expect(await prisma().event.count()).toBe(before);
  });

  it('refuses send_webhook to an events:read key, storing nothing', async () => {
    const reader = await relay.connect(await relay.key(['events:read']));
    expect((await reader.listTools()).tools.map((t) => t.name)).not.toContain('send_webhook');
    const before = await prisma().event.count();
    const result = await reader.callTool({ name: 'send_webhook', arguments: { source: 'nope', body: {} } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('send_webhook needs the webhooks:send scope with the admin role');
    expect(await prisma().event.count()).toBe(before);
  });

  it('get_ingest_endpoint gives the URLs to post to and how; a webhook posted there is stored', async () => {
    const reader = await relay.connect(await relay.key(['events:read']));
    const endpoint = structured<{
      ingest_url: string;
      source_url_template: string;
      reserved_sources: string[];
      usage: string;
      link: string;
    }>(await reader.callTool({ name: 'get_ingest_endpoint', arguments: {} }));
    expect(endpoint.source_url_template).toBe(`${endpoint.ingest_url}{source}`);
    expect(endpoint.reserved_sources).toEqual(expect.arrayContaining(['api', 'mcp']));
    expect(endpoint.usage).toContain('X-Webhook-Source');
    expect(endpoint.link).toMatch(/\/app\/settings$/);
    // The template's path is where the api ingests: posting there stores an event of that source.
    const path = new URL(endpoint.source_url_template.replace('{source}', 'mcp-ingested')).pathname;
    const res = await relay.pipeline.http.post(path).set('content-type', 'application/json').send('{}').expect(202);
    expect(await relay.pipeline.eventById(res.body.id)).toMatchObject({ source: 'mcp-ingested' });
  });
});
