import { LocalHolds, retryAfterUntil } from './pacing-holds';
import { isPaced, pacingFromWire } from './pacing-types';

describe('Retry-After and the pacing settings', () => {
  const now = Date.parse('2026-11-27T10:00:00.000Z');

  it('reads Retry-After as seconds or as an HTTP date, and nothing else', () => {
    expect(retryAfterUntil('2', now)).toBe(now + 2_000);
    expect(retryAfterUntil(' 120 ', now)).toBe(now + 120_000);
    expect(retryAfterUntil('Fri, 27 Nov 2026 10:00:30 GMT', now)).toBe(now + 30_000);
    // A date already past lets the next delivery go now.
    expect(retryAfterUntil('Fri, 27 Nov 2026 09:00:00 GMT', now)).toBe(now);
    expect(retryAfterUntil('soon', now)).toBeNull();
    expect(retryAfterUntil('-5', now)).toBeNull();
    expect(retryAfterUntil(undefined, now)).toBeNull();
  });

  it('keeps the longer of two holds and forgets an ended one', () => {
    const holds = new LocalHolds();
    holds.note('rule:a', 60_000);
    holds.note('rule:a', 10);
    expect(holds.remaining('rule:a')).toBeGreaterThan(50_000);
    holds.note('rule:b', -1);
    expect(holds.remaining('rule:b')).toBe(0);
    expect(holds.size).toBe(1);
  });

  it('drops ended holds once it knows of many keys', async () => {
    const holds = new LocalHolds();
    for (let i = 0; i < 1_000; i++) holds.note(`destination:${i}`, 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    holds.note('destination:live', 60_000);
    expect(holds.size).toBe(1);
  });

  it('maps the wire settings and tells paced from unpaced', () => {
    expect(pacingFromWire({ rate_limit: { limit: 5, period: 'second' }, max_concurrency: null })).toEqual({
      rateLimit: { limit: 5, period: 'second' },
      maxConcurrency: null,
    });
    expect(isPaced(pacingFromWire({}))).toBe(false);
    expect(isPaced({ rateLimit: null, maxConcurrency: 0 })).toBe(false);
    expect(isPaced({ maxConcurrency: 2 })).toBe(true);
    expect(isPaced({ rateLimit: { limit: 1, period: 'hour' } })).toBe(true);
  });
});
