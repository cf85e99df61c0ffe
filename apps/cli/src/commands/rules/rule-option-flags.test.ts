import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors';
import { durationSeconds } from './delivery-option-flags';
import { needsStoredRule, ruleOptionsBody } from './rule-option-flags';
import { formatSeconds, ruleOptionFields } from './rule-option-views';
import type { Rule } from './rule-views';

const stored = {
  dedup: { preset: 'github', window_seconds: 3_600 },
  verification: { preset: 'hmac', header: 'x-sig', prefix: 'sha256=' },
  delivery_policy: { max_attempts: 4, timeout_seconds: 10 },
  outbound_headers: { forward: ['authorization'], set: { 'x-a': '1' }, remove: ['cookie'] },
} as unknown as Rule;

describe('rule option flags', () => {
  it('reads durations in seconds, minutes, hours and days', () => {
    expect([durationSeconds('90'), durationSeconds('90s'), durationSeconds('15m'), durationSeconds('24h')]).toEqual([
      90, 90, 900, 86_400,
    ]);
    expect(durationSeconds('5d')).toBe(432_000);
    for (const bad of ['0', '1w', '-5', 'h', '1.5h']) expect(() => durationSeconds(bad)).toThrow(UsageError);
    expect([formatSeconds(86_400), formatSeconds(5_400), formatSeconds(90)]).toEqual(['1d', '90m', '90s']);
  });

  it('turns presets, header:NAME and pointer:/path into the API shapes', () => {
    expect(ruleOptionsBody({ dedup: 'stripe' })).toEqual({ dedup: { preset: 'stripe', window_seconds: 86_400 } });
    expect(ruleOptionsBody({ dedup: 'header:x-id', dedupWindow: '2h', ordering: 'pointer:/a/b' })).toEqual({
      dedup: { header: 'x-id', window_seconds: 7_200 },
      ordering: { json_pointer: '/a/b' },
    });
    expect(ruleOptionsBody({ ordering: 'source' })).toEqual({ ordering: {} });
    expect(ruleOptionsBody({ verify: 'stripe', verifyTolerance: '10m' })).toEqual({
      verification: { preset: 'stripe', tolerance_seconds: 600 },
    });
    expect(() => ruleOptionsBody({ dedup: 'gitlab' })).toThrow(/--dedup takes github, stripe/);
    expect(() => ruleOptionsBody({ ordering: 'header:' })).toThrow(UsageError);
    expect(() => ruleOptionsBody({ verify: 'hmac', verifyAlgorithm: 'md5' })).toThrow(/sha1, sha256, sha512/);
    expect(() => ruleOptionsBody({ setHeader: ['novalue'] })).toThrow(/NAME=VALUE/);
  });

  it('turns options off with null and keeps the stored rest when changing part of one', () => {
    expect(ruleOptionsBody({ dedup: false, verify: false, ordering: false, deliveryPolicy: false })).toEqual({
      dedup: null,
      verification: null,
      ordering: null,
      delivery_policy: null,
    });
    expect(ruleOptionsBody({ unhealthyAfter: 'default', clearVerificationSecret: true })).toEqual({
      unhealthy_after_seconds: null,
      verification_secret: null,
    });
    const partial = { dedupWindow: '1d', verifyPrefix: 'v1=', maxAttempts: '9', setHeader: ['x-b=2'] };
    expect(needsStoredRule(partial)).toBe(true);
    expect(needsStoredRule({ dedup: 'github', verify: 'github', unhealthyAfter: '2d' })).toBe(false);
    expect(ruleOptionsBody(partial, stored)).toEqual({
      dedup: { preset: 'github', window_seconds: 86_400 },
      verification: { preset: 'hmac', header: 'x-sig', prefix: 'v1=' },
      delivery_policy: { max_attempts: 9, timeout_seconds: 10 },
      outbound_headers: { forward: ['authorization'], set: { 'x-b': '2' }, remove: ['cookie'] },
    });
    expect(ruleOptionsBody({ clearRemoveHeaders: true }, stored).outbound_headers).toEqual({
      forward: ['authorization'],
      set: { 'x-a': '1' },
      remove: [],
    });
    const none = { ...stored, dedup: null, verification: null } as Rule;
    expect(() => ruleOptionsBody({ dedupWindow: '1h' }, none)).toThrow(/--dedup-window needs --dedup/);
    expect(() => ruleOptionsBody({ verifyTolerance: '1m' }, none)).toThrow(/need --verify/);
  });

  it('shows each option of a rule, and "-" for those turned off', () => {
    const rule = {
      ...stored,
      duplicate_count: 3,
      has_verification_secret: true,
      previous_verification_secret_expires_at: null,
      signature_failures: { count: 2, last_at: '2026-11-25T10:00:00.000Z' },
      health: { unhealthy_after_seconds: null },
      ordering: {},
      has_transform: false,
      forward_path_query: false,
      rate_limit: { limit: 10, period: 'minute', burst: 20 },
      max_concurrency: null,
    } as unknown as Rule;
    expect(Object.fromEntries(ruleOptionFields(rule))).toEqual({
      filter: '- (every webhook goes)',
      dedup: 'github preset, window 1h',
      duplicates: '3',
      verification: 'hmac sha256 hex in x-sig, prefix sha256=',
      'verification secret': 'set (never shown)',
      'signature failures': '2, last 2026-11-25T10:00:00.000Z',
      'unhealthy after': '- (default)',
      ordering: 'whole source',
      'delivery policy': '4 attempts, timeout 10s',
      'set headers': 'x-a: 1',
      'removed headers': 'cookie',
      transform: '- (webhooks go as received)',
      'forward path/query': 'no',
      'rate limit': '10/minute, burst 20',
      'max concurrency': '-',
    });
    const fields = (filter: unknown) => Object.fromEntries(ruleOptionFields({ ...rule, filter } as Rule));
    expect(fields({ cel: 'body.a == 1' }).filter).toBe('cel: body.a == 1');
    expect(fields({ body: { a: { $gt: 1 } } }).filter).toBe('{"body":{"a":{"$gt":1}}}');
  });
});
