import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { startMcpRelay, type McpRelay } from './mcp-harness';
import { structured, textOf } from './tool-results';

const SECRET = 'an-mcp-notification-secret-0';

describe('MCP notification tools', () => {
  let relay: McpRelay;
  let client: Client;
  beforeAll(async () => {
    relay = await startMcpRelay();
    client = await relay.connect(await relay.key(['organization:manage']));
  });
  afterAll(() => relay.close());

  const org = () =>
    relay.pipeline.store.prisma.organization.findUniqueOrThrow({ where: { id: DEFAULT_ORGANIZATION_ID } });

  it('sets the URL with a write-only secret, shows it, turns it off', async () => {
    const url = 'https://ops.example.com/relay';
    const set = await client.callTool({ name: 'set_notification_settings', arguments: { url, secret: SECRET } });
    expect(structured(set)).toEqual({ url, has_secret: true });
    expect(JSON.stringify(set)).not.toContain(SECRET);
    expect((await org()).notificationSecret).toMatch(/^enc:/);
    expect(structured(await client.callTool({ name: 'get_notification_settings', arguments: {} }))).toEqual({
      url,
      has_secret: true,
    });
    const off = await client.callTool({ name: 'set_notification_settings', arguments: { url: null } });
    expect(structured(off)).toEqual({ url: null, has_secret: false });
    expect((await org()).notificationUrl).toBeNull();
  });

  it('says why a URL is refused, and keeps the tools from keys without organization:manage', async () => {
    const refused = await client.callTool({
      name: 'set_notification_settings',
      arguments: { url: 'ftp://example.com/' },
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('target_url_rejected');
    const reader = await relay.connect(await relay.key(['rules:read', 'rules:write']));
    const names = (await reader.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('get_notification_settings');
    expect(names).not.toContain('set_notification_settings');
    const hints = Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, t.annotations]));
    expect(hints.get_notification_settings).toMatchObject({ readOnlyHint: true });
  });
});
