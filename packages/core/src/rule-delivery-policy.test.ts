import { backoffDelay, decide, type RetryPolicy } from './retry-policy';
import { policyFor } from './rule-delivery-policy';

const global: RetryPolicy = {
  maxAttempts: 10,
  backoffBaseMs: 10_000,
  backoffMaxMs: 3_600_000,
  retryAfterMaxMs: 60_000,
};
const failed = { kind: 'response', status: 503 } as const;

describe('a rule delivery policy over the global retry policy', () => {
  it('is the global policy itself when the rule has none (no allocation per delivery)', () => {
    expect(policyFor(global, null)).toBe(global);
    expect(policyFor(global, undefined)).toBe(global);
  });

  it('takes each field the rule sets and keeps the global value of the others', () => {
    expect(policyFor(global, { max_attempts: 2 })).toEqual({ ...global, maxAttempts: 2 });
    expect(policyFor(global, { backoff_base_seconds: 5, backoff_cap_seconds: 60 })).toEqual({
      ...global,
      backoffBaseMs: 5_000,
      backoffMaxMs: 60_000,
    });
    expect(policyFor(global, { timeout_seconds: 3 })).toEqual(global);
  });

  it('raises the global cap to a larger base of the rule, so the base is not cut', () => {
    const small: RetryPolicy = { ...global, backoffBaseMs: 40, backoffMaxMs: 200 };
    const merged = policyFor(small, { backoff_base_seconds: 1 });
    expect(merged).toMatchObject({ backoffBaseMs: 1_000, backoffMaxMs: 1_000 });
    expect(backoffDelay(1, merged, () => 0)).toBe(500);
    // A base under the global cap leaves the cap alone.
    expect(policyFor(global, { backoff_base_seconds: 2 }).backoffMaxMs).toBe(3_600_000);
  });

  it('caps every wait at the rule cap, also below the global base', () => {
    const merged = policyFor(global, { backoff_cap_seconds: 2 });
    expect(backoffDelay(1, merged, () => 1)).toBe(2_000);
    expect(backoffDelay(8, merged, () => 1)).toBe(2_000);
  });

  it('keeps Retry-After bounded by the install-wide limit', () => {
    const merged = policyFor(global, { backoff_base_seconds: 1, backoff_cap_seconds: 1 });
    const decision = decide({ ...failed, status: 429, retryAfter: '3600' }, 1, merged, () => 0, 0);
    expect(decision).toEqual({ action: 'retry', delayMs: 60_000, error: 'HTTP 429' });
  });

  it('makes decide() give up after the rule attempts while the global count goes on', () => {
    const rule = policyFor(global, { max_attempts: 2 });
    expect(decide(failed, 1, rule).action).toBe('retry');
    expect(decide(failed, 2, rule)).toMatchObject({ action: 'fail', reason: 'retries_exhausted' });
    expect(decide(failed, 2, global).action).toBe('retry');
  });
});
