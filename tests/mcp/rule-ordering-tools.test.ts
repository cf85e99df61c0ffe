import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { seedBlockedKey } from '../e2e/ordering-fixture';
import { structured } from './tool-results';
import { startMcpRelay, type McpRelay } from './mcp-harness';

describe('MCP rule_blocked_keys', () => {
  let relay: McpRelay;
  let client: Client;
  beforeAll(async () => {
    relay = await startMcpRelay();
    client = await relay.connect(await relay.key(['rules:read']));
  });
  afterAll(() => relay.close());

  it("shows an ordered rule's blocked key: its failing head, attempts, age and the events waiting", async () => {
    const seeded = await seedBlockedKey(relay.pipeline, { source: 'mcp-ordered', key: 'customer-9', waiting: 3 });
    const result = structured<{ blocked_keys: unknown[] }>(
      await client.callTool({ name: 'rule_blocked_keys', arguments: { id: seeded.ruleId } }),
    );
    expect(result.blocked_keys).toEqual([
      {
        key: 'customer-9',
        event_id: seeded.headId,
        status: 'queued',
        attempts: 2,
        blocked_since: seeded.blockedSince.toISOString(),
        waiting: 3,
      },
    ]);
  });
});
