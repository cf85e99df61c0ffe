import { randomBytes } from 'node:crypto';
import { DEFAULT_ORGANIZATION_ID, openSecret, parseSecretKeys } from '@relay/core';
import { ruleCreateSchema, ruleSchema, ruleUpdateSchema } from '@relay/contracts';
import { testPrincipal } from '@relay/test-support';
import { createIngestRuleLookup } from '../ingest/ingest-rules';
import { createRuleService } from './rule.service';
import { useServiceDatabase, useTransformRunner } from '../service-test-kit';

const admin = testPrincipal();
const store = useServiceDatabase();
const transforms = useTransformRunner();
const keys = parseSecretKeys(`k1:${randomBytes(32).toString('base64')}`);
const service = () =>
  createRuleService({
    repositories: store.repositories(),
    targetPolicy: { allowPrivate: false, allowlist: [] },
    secretKeys: keys,
    transforms,
  });
const options = {
  dedup: { preset: 'github' },
  verification: { preset: 'hmac', header: 'x-signature', algorithm: 'sha512', encoding: 'base64', prefix: 's=' },
  verification_secret: 'inbound-secret',
  unhealthy_after_seconds: 7_200,
  ordering: { json_pointer: '/customer/id' },
  delivery_policy: { max_attempts: 3, backoff_base_seconds: 2, backoff_cap_seconds: 60, timeout_seconds: 5 },
  outbound_headers: { set: { 'X-Tenant': 'acme' }, remove: ['X-Internal'] },
};
const create = (source: string, extra: object = options) =>
  service().create(admin, ruleCreateSchema.parse({ source, target_url: 'https://example.com/in', ...extra }));

describe('rule options', () => {
  it('are stored as given, shown by the view (never the verification secret) and off by default', async () => {
    const plain = await create('plain', {});
    expect(plain).toMatchObject({
      dedup: null,
      verification: null,
      has_verification_secret: false,
      ordering: null,
      delivery_policy: null,
      duplicate_count: 0,
      signature_failures: { count: 0, last_at: null },
      health: { status: 'healthy', reason: null, since: null, failing_since: null, unhealthy_after_seconds: null },
      outbound_headers: { forward: [], set: {}, remove: [] },
    });
    const rule = await create('optioned');
    expect(ruleSchema.parse(rule)).toEqual(rule);
    expect(rule).toMatchObject({
      dedup: { preset: 'github', window_seconds: 86_400 },
      verification: options.verification,
      has_verification_secret: true,
      ordering: options.ordering,
      delivery_policy: options.delivery_policy,
      health: { status: 'healthy', unhealthy_after_seconds: 7_200 },
      outbound_headers: { set: { 'x-tenant': 'acme' }, remove: ['x-internal'] },
    });
    expect(JSON.stringify(rule)).not.toContain('inbound-secret');
    const row = await store.db.prisma.rule.findUniqueOrThrow({ where: { id: rule.id } });
    expect(row.verificationSecret).toMatch(/^enc:v1:/);
    expect(openSecret(keys, row.verificationSecret!)).toBe('inbound-secret');
  });

  it('turn off one by one with null and leave the others', async () => {
    const rule = await create('clearing');
    const cleared = await service().update(
      admin,
      rule.id,
      ruleUpdateSchema.parse({ dedup: null, ordering: null, delivery_policy: null, unhealthy_after_seconds: null }),
    );
    expect(cleared).toMatchObject({
      dedup: null,
      ordering: null,
      delivery_policy: null,
      verification: options.verification,
    });
    expect(cleared.health.unhealthy_after_seconds).toBeNull();
    const row = await store.db.prisma.rule.findUniqueOrThrow({ where: { id: rule.id } });
    expect([row.dedup, row.ordering, row.deliveryPolicy]).toEqual([null, null, null]);
  });

  it.each([
    [{ dedup: { preset: 'github', header: 'x-id' } }, 'exactly one'],
    [{ dedup: {} }, 'exactly one'],
    [{ dedup: { json_pointer: 'id' } }, 'JSON pointer'],
    [{ verification: { preset: 'hmac' } }, 'needs a header'],
    [{ verification: { preset: 'github', prefix: 'x' } }, 'hmac preset only'],
    [{ ordering: { header: 'x-a', json_pointer: '/a' } }, 'not both'],
    [{ delivery_policy: { max_attempts: 0 } }, ''],
    [{ delivery_policy: { backoff_base_seconds: 60, backoff_cap_seconds: 10 } }, 'at least'],
    [{ outbound_headers: { set: { 'x-relay-signature': 'forged' } } }, 'sets this header itself'],
    [{ outbound_headers: { remove: ['content-type'] } }, 'sets this header itself'],
    [{ unhealthy_after_seconds: 60 }, ''],
  ])('are refused when out of bounds: %j', (input, message) => {
    const parsed = ruleCreateSchema.safeParse({ source: 's', target_url: 'https://example.com', ...input });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain(message);
  });

  it('reach ingest through a per-source cache that also remembers "no rule"', async () => {
    let clock = 1_000;
    const lookup = createIngestRuleLookup({
      rules: store.repositories().rules,
      cacheMs: 5_000,
      now: () => clock,
    });
    expect(await lookup(DEFAULT_ORGANIZATION_ID, 'later')).toBeNull();
    const rule = await create('later');
    expect(await lookup(DEFAULT_ORGANIZATION_ID, 'later')).toBeNull();
    clock += 5_001;
    expect(await lookup(DEFAULT_ORGANIZATION_ID, 'later')).toMatchObject({
      id: rule.id,
      dedup: { preset: 'github' },
      ordering: options.ordering,
    });
    await service().update(admin, rule.id, { active: false });
    clock += 5_001;
    expect(await lookup(DEFAULT_ORGANIZATION_ID, 'later')).toBeNull();
  });
});
