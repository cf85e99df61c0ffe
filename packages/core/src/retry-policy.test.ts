import { backoffDelay, decide, isRetryableStatus, parseRetryAfter, type RetryPolicy } from './retry-policy';

const policy: RetryPolicy = { maxAttempts: 5, backoffBaseMs: 1_000, backoffMaxMs: 10_000, retryAfterMaxMs: 60_000 };
const half = () => 0.5;

describe('retry policy', () => {
  it('classifies statuses: 408, 429 and 5xx are retryable, others are not', () => {
    expect([408, 429, 500, 502, 503, 599].every(isRetryableStatus)).toBe(true);
    expect([300, 302, 400, 401, 404, 410, 422].some(isRetryableStatus)).toBe(false);
  });

  it('backs off exponentially with equal jitter, capped', () => {
    expect(backoffDelay(1, policy, () => 0)).toBe(500);
    expect(backoffDelay(1, policy, () => 1)).toBe(1_000);
    expect(backoffDelay(3, policy, () => 0)).toBe(2_000);
    expect(backoffDelay(3, policy, () => 1)).toBe(4_000);
    expect(backoffDelay(10, policy, () => 1)).toBe(10_000);
  });

  it('delivers on 2xx', () => {
    expect(decide({ kind: 'response', status: 204 }, 1, policy)).toEqual({ action: 'delivered' });
  });

  it('fails at once on 3xx and non-retryable 4xx', () => {
    expect(decide({ kind: 'response', status: 302 }, 1, policy)).toMatchObject({
      action: 'fail',
      reason: 'http_status',
    });
    expect(decide({ kind: 'response', status: 404 }, 1, policy)).toMatchObject({
      action: 'fail',
      reason: 'http_status',
      error: 'HTTP 404',
    });
  });

  it('retries network errors and 5xx until the attempts run out', () => {
    expect(decide({ kind: 'network', code: 'ECONNREFUSED', message: 'refused' }, 1, policy, half)).toEqual({
      action: 'retry',
      delayMs: 750,
      error: 'ECONNREFUSED: refused',
    });
    expect(decide({ kind: 'response', status: 500 }, 4, policy, half)).toMatchObject({ action: 'retry' });
    expect(decide({ kind: 'response', status: 500 }, 5, policy, half)).toMatchObject({
      action: 'fail',
      reason: 'retries_exhausted',
    });
  });

  it('never retries a blocked or invalid target', () => {
    expect(decide({ kind: 'blocked', message: 'no' }, 1, policy)).toMatchObject({
      action: 'fail',
      reason: 'target_blocked',
    });
    expect(decide({ kind: 'invalid_target', message: 'no' }, 1, policy)).toMatchObject({
      action: 'fail',
      reason: 'invalid_target',
    });
  });

  it('honours Retry-After in seconds and as a date, up to the cap', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(decide({ kind: 'response', status: 429, retryAfter: '30' }, 1, policy, half, now)).toMatchObject({
      delayMs: 30_000,
    });
    expect(decide({ kind: 'response', status: 503, retryAfter: '86400' }, 1, policy, half, now)).toMatchObject({
      delayMs: 60_000,
    });
    const date = new Date(now + 20_000).toUTCString();
    expect(decide({ kind: 'response', status: 503, retryAfter: date }, 1, policy, half, now)).toMatchObject({
      delayMs: 20_000,
    });
    // A Retry-After shorter than the backoff does not shorten it.
    expect(decide({ kind: 'response', status: 503, retryAfter: '0' }, 1, policy, half, now)).toMatchObject({
      delayMs: 750,
    });
  });

  it('parses Retry-After defensively', () => {
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter(' 5 ', 0)).toBe(5_000);
  });
});
