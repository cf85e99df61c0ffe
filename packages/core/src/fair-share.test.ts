import { createFairShare, fairShareLimits, targetOrigin } from './fair-share';

function setup(poolSize = 8) {
  let clock = 0;
  const fair = createFairShare({
    poolSize,
    sharePercent: 50,
    reservePercent: 25,
    activeWindowMs: 1_000,
    waitMs: 100,
    maxWaitMs: 1_000,
    flowingMs: 50,
    now: () => clock,
    random: () => 0.5,
  });
  return { fair, tick: (ms: number) => (clock += ms) };
}

const admitMany = (fair: ReturnType<typeof setup>['fair'], origin: string, n: number) =>
  Array.from({ length: n }, () => fair.admit(origin));

describe('fair share of the delivery pool', () => {
  it('derives the limits from the pool size, never below one slot', () => {
    expect(fairShareLimits({ poolSize: 32, sharePercent: 50, reservePercent: 25 })).toEqual({
      share: 16,
      alone: 32,
      jobs: 40,
    });
    expect(fairShareLimits({ poolSize: 1, sharePercent: 50, reservePercent: 25 })).toEqual({
      share: 1,
      alone: 1,
      jobs: 2,
    });
    expect(fairShareLimits({ poolSize: 4, sharePercent: 90, reservePercent: 0 })).toEqual({
      share: 3,
      alone: 4,
      jobs: 4,
    });
  });

  it('lets an origin alone use the whole pool; beyond it, a flowing origin waits, a stuck one is re-queued', () => {
    const { fair, tick } = setup();
    expect(admitMany(fair, 'https://a', 8)).toEqual(Array(8).fill('go'));
    expect(fair.admit('https://a')).toBe('defer');
    fair.release('https://a');
    expect(fair.admit('https://a')).toBe('go');
    expect(fair.admit('https://a')).toBe('wait');
    tick(50);
    expect(fair.admit('https://a')).toBe('defer');
  });

  it('holds an origin to its share while another origin is active, and defers the rest', () => {
    const { fair, tick } = setup();
    admitMany(fair, 'https://slow', 8);
    // Another origin arrives (through the reserve): it gets slots although the slow one holds more
    // than its share...
    expect(admitMany(fair, 'https://fast', 4)).toEqual(Array(4).fill('go'));
    expect(fair.admit('https://fast')).toBe('defer');
    // ...and the slow one gets no new slot until it is below its share.
    for (let i = 0; i < 4; i++) fair.release('https://slow');
    tick(100);
    expect(fair.admit('https://slow')).toBe('defer');
    fair.release('https://slow');
    expect(fair.admit('https://slow')).toBe('go');
  });

  it('asks a flowing origin at its share to wait for its own slot rather than re-queue', () => {
    const { fair, tick } = setup();
    admitMany(fair, 'https://slow', 2);
    admitMany(fair, 'https://fast', 4);
    tick(100);
    expect(fair.admit('https://fast')).toBe('defer');
    fair.release('https://fast');
    fair.admit('https://fast');
    tick(10);
    expect(fair.admit('https://fast')).toBe('wait');
  });

  it('counts the slots held above the share while origins contend, none while one is alone', () => {
    const { fair, tick } = setup();
    admitMany(fair, 'https://hanging', 8);
    expect(fair.excess()).toBe(0);
    fair.admit('https://fast');
    expect(fair.excess()).toBe(4);
    fair.release('https://hanging');
    expect(fair.excess()).toBe(3);
    fair.release('https://fast');
    tick(1_000);
    expect(fair.excess()).toBe(0);
  });

  it('forgets an origin once it has nothing in flight and has not asked for the active window', () => {
    const { fair, tick } = setup();
    admitMany(fair, 'https://a', 4);
    fair.admit('https://b');
    fair.release('https://b');
    expect(fair.limitFor('https://a')).toBe(4);
    tick(999);
    expect(fair.admit('https://a')).toBe('defer');
    tick(1);
    expect(fair.limitFor('https://a')).toBe(8);
    expect(fair.admit('https://a')).toBe('go');
  });

  it('counts an origin with deliveries in flight as active however long ago it asked', () => {
    const { fair, tick } = setup();
    fair.admit('https://hanging');
    tick(60_000);
    expect(admitMany(fair, 'https://a', 5)).toEqual([...Array(4).fill('go'), 'defer']);
  });

  it('makes the events of an origin that frees no slot wait longer, up to the maximum', () => {
    const { fair, tick } = setup();
    expect(fair.waitFor('https://idle')).toBe(100);
    admitMany(fair, 'https://stuck', 2);
    admitMany(fair, 'https://flowing', 2);
    tick(400);
    fair.release('https://flowing');
    expect(fair.waitFor('https://flowing')).toBe(100);
    expect(fair.waitFor('https://stuck')).toBe(400);
    tick(5_000);
    expect(fair.waitFor('https://stuck')).toBe(1_000);
    fair.release('https://stuck');
    expect(fair.waitFor('https://stuck')).toBe(100);
  });

  // Issue 26: a hanging target behind a rule that retries with a short time-out frees its slots every
  // few seconds. Those were taken as a flowing origin: its due retries were held in job slots ('wait')
  // and its deferred events asked again every `waitMs`, crowding the healthy origin out of the worker.
  it('does not count slots freed by time-outs as flowing: the due retries of a hanging origin are deferred', () => {
    const { fair, tick } = setup();
    admitMany(fair, 'https://hanging', 4);
    expect(fair.admit('https://healthy')).toBe('go');
    const schedule: string[] = [];
    // Its requests end at the rule's time-out one after the other; each freed slot goes to a retry,
    // and the rest of its due events ask too.
    for (let round = 0; round < 6; round++) {
      tick(300);
      fair.release('https://hanging', false);
      schedule.push(fair.admit('https://hanging'), fair.admit('https://hanging'));
    }
    expect(schedule).toEqual(Array(6).fill(['go', 'defer']).flat());
    // Stuck since it took its first slot (1.8 s): its deferred events wait the longest, not `waitMs`...
    expect(fair.waitFor('https://hanging')).toBe(1_000);
    // ...while the healthy origin still gets its share at once.
    expect(admitMany(fair, 'https://healthy', 3)).toEqual(['go', 'go', 'go']);
  });

  it('keeps the stuck time of an origin whose every delivery timed out, until it answers', () => {
    const { fair, tick } = setup();
    admitMany(fair, 'https://hanging', 2);
    fair.admit('https://healthy');
    tick(600);
    fair.release('https://hanging', false);
    fair.release('https://hanging', false);
    // Nothing in flight, yet its retries find it as stuck as before.
    expect(fair.admit('https://hanging')).toBe('go');
    expect(fair.waitFor('https://hanging')).toBe(600);
    // An answer (any status) makes it flowing again.
    admitMany(fair, 'https://hanging', 3);
    fair.release('https://hanging');
    expect(fair.waitFor('https://hanging')).toBe(100);
    expect(fair.admit('https://hanging')).toBe('go');
    expect(fair.admit('https://hanging')).toBe('wait');
  });

  it('takes scheme, host and port as the origin', () => {
    expect(targetOrigin('https://Example.com:443/a?b')).toBe('https://example.com');
    expect(targetOrigin('http://example.com:8080/x')).toBe('http://example.com:8080');
    expect(targetOrigin('not a url')).toBe('not a url');
  });
});
