import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import { structured } from './tool-results';
import { startMcpRelay, type McpRelay } from './mcp-harness';

describe('MCP resume_rule', () => {
  let relay: McpRelay;
  let target: TargetServer;
  let client: Client;
  beforeAll(async () => {
    [relay, target] = await Promise.all([startMcpRelay(), startTargetServer()]);
    client = await relay.connect(await relay.key(['rules:read', 'rules:write', 'events:read']));
  });
  afterAll(async () => {
    await relay.close();
    await target.close();
  });

  it("marks an unhealthy rule healthy and its paused events are delivered; list_events filters 'paused'", async () => {
    const prisma = relay.pipeline.store.prisma;
    const rule = await prisma.rule.create({
      data: {
        name: randomUUID(),
        organizationId: DEFAULT_ORGANIZATION_ID,
        source: 'mcp-gone',
        targetUrl: `${target.url}/back`,
        health: 'unhealthy',
        unhealthyReason: 'gone',
        unhealthySince: new Date(),
      },
    });
    const ingested = await relay.pipeline.http
      .post('/mcp-gone')
      .set('content-type', 'application/json')
      .send('{"n":1}')
      .expect(202);
    const id = ingested.body.id as string;
    await relay.pipeline.waitForStatus(id, 'paused');

    const listed = structured<{ events: { id: string; status: string }[] }>(
      await client.callTool({ name: 'list_events', arguments: { status: 'paused' } }),
    );
    expect(listed.events).toEqual([expect.objectContaining({ id, status: 'paused' })]);

    const before = structured<{ rules: { id: string; health: unknown }[] }>(
      await client.callTool({ name: 'list_rules', arguments: {} }),
    );
    expect(before.rules.find((r) => r.id === rule.id)?.health).toMatchObject({ status: 'unhealthy', reason: 'gone' });
    const result = structured<{ rule: { id: string; health: unknown }; resumed_events: number }>(
      await client.callTool({ name: 'resume_rule', arguments: { id: rule.id } }),
    );
    expect(result.resumed_events).toBe(1);
    expect(result.rule).toMatchObject({ id: rule.id, health: { status: 'healthy', reason: null, since: null } });
    expect(await prisma.rule.findUniqueOrThrow({ where: { id: rule.id } })).toMatchObject({
      health: 'healthy',
      unhealthyReason: null,
    });
    await relay.pipeline.waitForStatus(id, 'delivered');
    expect(target.requests.filter((r) => r.url === '/back')).toHaveLength(1);
  });
});
