import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff';
import { dedupKey, laterId } from './feed-decoder';
import { RecentKeys } from './recent-keys';

describe('backoffDelay', () => {
  const backoff = { initialMs: 500, maxMs: 15_000 };
  it('doubles from the first delay up to the cap, jittered within its upper half', () => {
    expect([1, 2, 3, 6, 7, 20].map((n) => backoffDelay(n, backoff, () => 1))).toEqual([
      500, 1000, 2000, 15_000, 15_000, 15_000,
    ]);
    expect([1, 2, 3].map((n) => backoffDelay(n, backoff, () => 0))).toEqual([250, 500, 1000]);
  });
});

describe('RecentKeys', () => {
  it('answers false for a key it holds and forgets the oldest beyond its capacity', () => {
    const keys = new RecentKeys(2);
    expect(keys.add('a')).toBe(true);
    expect(keys.add('a')).toBe(false);
    keys.add('b');
    keys.add('c');
    expect(keys.size).toBe(2);
    expect(keys.has('a')).toBe(false);
    expect(keys.add('a')).toBe(true);
  });
});

describe('dedupKey and laterId', () => {
  it('tells apart messages of one id by type and subject, and hook attempts from the main one', () => {
    const attempt = (kind: 'main' | 'hook', hook: string | null) =>
      dedupKey({
        type: 'attempt',
        id: '1',
        data: {
          event_id: 'e',
          attempt_number: 1,
          kind,
          hook_id: hook,
          target_url: 't',
          response_status: 200,
          error: null,
          duration_ms: 1,
          finished_at: '',
        },
      });
    expect(new Set([attempt('main', null), attempt('hook', 'h1'), attempt('hook', 'h2')]).size).toBe(3);
    const status = dedupKey({
      type: 'event.status',
      id: '1',
      data: { id: 'e', status: 'failed', failure_reason: null, acknowledged: false },
    });
    const deleted = dedupKey({ type: 'event.deleted', id: '1', data: { id: 'e' } });
    expect(status).not.toBe(deleted);
    expect(dedupKey({ type: 'replay.truncated', id: undefined, data: {} })).toBeUndefined();
  });

  it('keeps the numerically later id', () => {
    expect(laterId('900', '1000')).toBe('1000');
    expect(laterId('1000', '999')).toBe('1000');
    expect(laterId(undefined, '5')).toBe('5');
    expect(laterId('5', undefined)).toBe('5');
  });
});
