import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { structured, textOf } from './tool-results';
import { startMcpRelay, type McpRelay } from './mcp-harness';

// The rule options (issue 18) through create_rule, update_rule and rotate_rule_verification_secret.
const VERIFY_SECRET = 'mcp-verification-secret-1';
const TARGET = 'https://example.com/hooks';

type RuleResult = { rule: Record<string, unknown> & { id: string } };

describe('MCP rule tools: rule options', () => {
  let relay: McpRelay;
  let client: Client;
  beforeAll(async () => {
    relay = await startMcpRelay();
    client = await relay.connect(await relay.key(['rules:read', 'rules:write']));
  });
  afterAll(() => relay.close());

  const row = (id: string) => relay.pipeline.store.prisma.rule.findUniqueOrThrow({ where: { id } });
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    return { result, rule: structured<RuleResult>(result).rule };
  };

  it('create_rule stores every option and shows them, never the verification secret', async () => {
    const { result, rule } = await call('create_rule', {
      source: 'mcp-options',
      target_url: TARGET,
      dedup: { preset: 'github' },
      verification: { preset: 'github' },
      verification_secret: VERIFY_SECRET,
      unhealthy_after_seconds: 7_200,
      ordering: { json_pointer: '/customer' },
      delivery_policy: { max_attempts: 3, timeout_seconds: 5 },
      set_headers: { 'x-team': 'payments' },
      remove_headers: ['x-debug'],
    });
    expect(JSON.stringify(result)).not.toContain(VERIFY_SECRET);
    expect(rule).toMatchObject({
      dedup: { preset: 'github', window_seconds: 86_400 },
      duplicate_count: 0,
      verification: { preset: 'github' },
      has_verification_secret: true,
      signature_failures: { count: 0, last_at: null },
      unhealthy_after_seconds: 7_200,
      ordering: { json_pointer: '/customer' },
      delivery_policy: { max_attempts: 3, timeout_seconds: 5 },
      set_headers: { 'x-team': 'payments' },
      remove_headers: ['x-debug'],
      forward_headers: [],
    });
    const stored = await row(rule.id);
    expect(stored).toMatchObject({
      dedup: { preset: 'github', window_seconds: 86_400 },
      unhealthyAfterSeconds: 7_200,
      deliveryPolicy: { max_attempts: 3, timeout_seconds: 5 },
      outboundHeaders: { forward: [], set: { 'x-team': 'payments' }, remove: ['x-debug'] },
    });
    expect(stored.verificationSecret).not.toBeNull();
    expect(stored.verificationSecret).not.toContain(VERIFY_SECRET);
  });

  it('update_rule turns an option off with null and replaces one header list keeping the others', async () => {
    const { rule: created } = await call('create_rule', {
      source: 'mcp-options-update',
      target_url: TARGET,
      dedup: { header: 'x-delivery' },
      ordering: {},
      forward_headers: ['authorization'],
      set_headers: { 'x-a': '1' },
    });
    const { rule } = await call('update_rule', {
      id: created.id,
      dedup: null,
      delivery_policy: { backoff_base_seconds: 2, backoff_cap_seconds: 60 },
      remove_headers: ['cookie'],
    });
    expect(rule).toMatchObject({
      dedup: null,
      ordering: {},
      delivery_policy: { backoff_base_seconds: 2, backoff_cap_seconds: 60 },
      forward_headers: ['authorization'],
      set_headers: { 'x-a': '1' },
      remove_headers: ['cookie'],
    });
    expect(await row(created.id)).toMatchObject({
      dedup: null,
      outboundHeaders: { forward: ['authorization'], set: { 'x-a': '1' }, remove: ['cookie'] },
    });
    const { rule: unordered } = await call('update_rule', { id: created.id, ordering: null });
    expect(unordered).toMatchObject({ ordering: null, set_headers: { 'x-a': '1' } });
  });

  it("passes on the API's field error for an option, changing nothing", async () => {
    const { rule: created } = await call('create_rule', { source: 'mcp-options-bad', target_url: TARGET });
    const result = await client.callTool({
      name: 'update_rule',
      arguments: { id: created.id, delivery_policy: { backoff_base_seconds: 60, backoff_cap_seconds: 10 } },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/backoff_cap_seconds must be at least backoff_base_seconds.*\[validation_failed\]/);
    expect((await row(created.id)).deliveryPolicy).toBeNull();
  });

  it('rotate_rule_verification_secret replaces the secret, keeping the old one for the window', async () => {
    const { rule: created } = await call('create_rule', {
      source: 'mcp-options-rotate',
      target_url: TARGET,
      verification: { preset: 'hmac', header: 'x-signature' },
      verification_secret: VERIFY_SECRET,
    });
    const before = (await row(created.id)).verificationSecret;
    const { result, rule } = await call('rotate_rule_verification_secret', {
      id: created.id,
      verification_secret: 'mcp-verification-secret-2',
      previous_secret_valid_for_seconds: 3_600,
    });
    expect(JSON.stringify(result)).not.toMatch(/mcp-verification-secret/);
    expect(rule).toMatchObject({
      has_verification_secret: true,
      previous_verification_secret_expires_at: expect.any(String),
    });
    const after = await row(created.id);
    expect(after.previousVerificationSecret).toBe(before);
    expect(after.verificationSecret).not.toBe(before);
    const hints = Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, t.annotations]));
    expect(hints.rotate_rule_verification_secret).toMatchObject({ destructiveHint: false });
  });
});
