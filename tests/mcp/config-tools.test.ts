import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { startMcpRelay, type McpRelay } from './mcp-harness';
import { structured } from './tool-results';

// export_configuration (issue 34): the document `relay export` writes, read-only, secrets only as references.
describe('MCP export_configuration', () => {
  let relay: McpRelay;
  let client: Client;
  beforeAll(async () => {
    relay = await startMcpRelay();
    client = await relay.connect(await relay.key(['rules:read']));
  });
  afterAll(() => relay.close());

  it('exports the rules with secret references, without notifications for a key that cannot manage them', async () => {
    await relay.pipeline.store.prisma.rule.create({
      data: {
        organizationId: DEFAULT_ORGANIZATION_ID,
        name: 'mcp-export',
        source: 'mcp-export',
        targetUrl: 'https://mcp.example.com/in',
        signingSecret: 'enc:v1:k1:not-a-real-sealed-value',
      },
    });
    const result = await client.callTool({ name: 'export_configuration', arguments: {} });
    const { document } = structured<{ document: Record<string, unknown> }>(result);
    expect(document).toMatchObject({
      version: 1,
      $schema: expect.stringMatching(/\/api\/schemas\/relay-config\.json$/),
    });
    expect(document).not.toHaveProperty('notifications');
    expect(document.rules).toContainEqual(
      expect.objectContaining({ name: 'mcp-export', signing_secret: '${env:RULE_MCP_EXPORT_SIGNING_SECRET}' }),
    );
    expect(JSON.stringify(result)).not.toContain('not-a-real-sealed-value');
    const hints = Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, t.annotations]));
    expect(hints.export_configuration).toMatchObject({ readOnlyHint: true });
  });
});
