import { TEST_REDIS_URL, uniqueQueuePrefix, waitFor } from '@relay/test-support';
import type { Redis } from 'ioredis';
import { createPacingLimiter, type PacingLimiterOptions } from './pacing-limiter';
import type { PacingDecision, PacingSettings } from './pacing-types';
import { createRedisConnection } from './redis-connection';

// The pacing limiter over the machine's real Redis, each test under a key prefix of its own. Grant times are the
// script's (Redis TIME), so the assertions read Redis's clock, never an upper bound on the wall clock.

const connections: Redis[] = [];
const connect = () => {
  const redis = createRedisConnection(TEST_REDIS_URL, 'worker');
  connections.push(redis);
  return redis;
};

// A connection that counts the commands it sends (every ioredis command goes through sendCommand).
async function countingConnection() {
  const redis = connect();
  await new Promise<void>((resolve) => (redis.status === 'ready' ? resolve() : redis.once('ready', resolve)));
  const counter = { commands: 0 };
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (...args: Parameters<Redis['sendCommand']>) => {
    counter.commands += 1;
    return send(...args);
  };
  return { redis, counter };
}

async function limiter(prefix: string, options: Partial<PacingLimiterOptions> = {}) {
  const created = createPacingLimiter({ redis: connect(), subscriber: connect(), prefix, ...options });
  await created.start();
  return created;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Asks until granted, sleeping the wait each refusal gives; returns the grant and the refusals met. */
async function acquireEventually(
  pacer: Awaited<ReturnType<typeof limiter>>,
  key: string,
  pacing: PacingSettings | null,
  waiterId?: string,
): Promise<{
  grant: Extract<PacingDecision, { granted: true }>;
  refusals: Extract<PacingDecision, { granted: false }>[];
}> {
  const refusals: Extract<PacingDecision, { granted: false }>[] = [];
  for (;;) {
    const decision = await pacer.acquire(key, pacing, waiterId);
    if (decision.granted) return { grant: decision, refusals };
    refusals.push(decision);
    await sleep(decision.retryAfterMs);
  }
}

afterAll(() => {
  for (const redis of connections) redis.disconnect();
});

describe('the pacing limiter', () => {
  it('spends no Redis command on an unpaced key that was never held, nor on successes at full rate', async () => {
    const prefix = uniqueQueuePrefix();
    const { redis, counter } = await countingConnection();
    const pacer = createPacingLimiter({ redis, prefix });
    const before = counter.commands;
    for (let i = 0; i < 100; i++) {
      // A worker passes its job id as the waiter: never asked about while the key is not held.
      const unpaced = i % 2 ? null : { rateLimit: null, maxConcurrency: null };
      const decision = await pacer.acquire('rule:unpaced', unpaced, `job-${i}`);
      expect(decision).toEqual({ granted: true, lease: { key: 'rule:unpaced', id: null }, grantedAtMs: null });
      await pacer.release((decision as Extract<PacingDecision, { granted: true }>).lease);
      await pacer.recordSuccess('rule:unpaced', null);
    }
    expect(counter.commands).toBe(before);

    // A paced key asks once per acquire; its successes cost nothing while its rate is not halved.
    const paced = { rateLimit: { limit: 100, period: 'second' as const } };
    await pacer.acquire('rule:paced', paced);
    const afterAcquire = counter.commands;
    expect(afterAcquire).toBeGreaterThan(before);
    await pacer.recordSuccess('rule:paced', paced);
    expect(counter.commands).toBe(afterAcquire);
  });

  it('never lets more than max_concurrency deliveries hold a slot, with 4 acquirers on their own connections', async () => {
    const prefix = uniqueQueuePrefix();
    const pacing = { maxConcurrency: 2 };
    const acquirers = await Promise.all([0, 1, 2, 3].map(() => limiter(prefix, { concurrencyRetryMs: 20 })));
    let inFlight = 0;
    let maxInFlight = 0;
    let maxReported = 0;
    let refused = 0;
    await Promise.all(
      acquirers.map(async (pacer) => {
        for (let round = 0; round < 6; round++) {
          const { grant, refusals } = await acquireEventually(pacer, 'destination:narrow', pacing);
          refused += refusals.length;
          inFlight += 1;
          maxInFlight = Math.max(maxInFlight, inFlight);
          maxReported = Math.max(maxReported, (await pacer.state('destination:narrow')).inFlight);
          await sleep(15);
          inFlight -= 1;
          await pacer.release(grant.lease);
        }
      }),
    );
    expect(maxInFlight).toBe(2);
    expect(maxReported).toBeLessThanOrEqual(2);
    expect(refused).toBeGreaterThan(0);
    expect((await acquirers[0]!.state('destination:narrow')).inFlight).toBe(0);
  });

  it('frees the slot of a holder that never releases it (a crashed worker) when its lease expires', async () => {
    const prefix = uniqueQueuePrefix();
    const pacing = { maxConcurrency: 1 };
    const crashed = await limiter(prefix, { leaseTtlMs: 400 });
    const alive = await limiter(prefix, { leaseTtlMs: 400, concurrencyRetryMs: 1_000 });
    const taken = await crashed.acquire('rule:crashy', pacing);
    expect(taken.granted).toBe(true);
    const refused = await alive.acquire('rule:crashy', pacing);
    expect(refused).toMatchObject({ granted: false, reason: 'concurrency' });
    // The wait offered is bounded by the lease's expiry, not the (longer) concurrency retry.
    expect((refused as { retryAfterMs: number }).retryAfterMs).toBeLessThanOrEqual(400 + 200);
    const { grant } = await acquireEventually(alive, 'rule:crashy', pacing);
    expect(grant.grantedAtMs! - (taken as { grantedAtMs: number }).grantedAtMs).toBeGreaterThanOrEqual(400);
  });

  it('holds every acquire on a key until the Retry-After hold ends, in every worker, paced or not', async () => {
    const prefix = uniqueQueuePrefix();
    const [a, b] = await Promise.all([limiter(prefix), limiter(prefix)]);
    const paced = { rateLimit: { limit: 100, period: 'second' as const } };
    const held = await a.hold('destination:busy', Date.now() + 2_000);
    expect(held).not.toBeNull();
    // The other worker hears of it over pub/sub: for an unpaced key only that tells it.
    await waitFor(() => b.knownHolds() === 1, 30_000, 'the hold to reach the other worker');
    const grants = await Promise.all(
      [a, b, a, b].map(async (pacer, i) => acquireEventually(pacer, 'destination:busy', i < 2 ? paced : null)),
    );
    for (const { grant, refusals } of grants) {
      expect(refusals[0]).toMatchObject({ granted: false, reason: 'hold' });
      expect(refusals[0]!.retryAfterMs).toBeGreaterThan(1_000);
      // Paced grants carry Redis's time: none before the hold's end (Redis time too).
      if (grant.grantedAtMs !== null) expect(grant.grantedAtMs).toBeGreaterThanOrEqual(held!.heldUntilMs);
    }
    expect(grants.filter(({ grant }) => grant.grantedAtMs !== null)).toHaveLength(2);
    const state = await a.state('destination:busy');
    expect(state.heldUntil).toBeNull();
  });

  it('answers a key it knows is held without Redis, and a worker started later learns running holds', async () => {
    const prefix = uniqueQueuePrefix();
    const writer = await limiter(prefix);
    const held = await writer.hold('rule:later', Date.now() + 60_000);
    const { redis, counter } = await countingConnection();
    const late = createPacingLimiter({ redis, subscriber: connect(), prefix });
    await late.start();
    const before = counter.commands;
    const decision = await late.acquire('rule:later', { rateLimit: { limit: 5, period: 'second' } });
    expect(decision).toMatchObject({ granted: false, reason: 'hold' });
    expect((decision as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(50_000);
    expect(counter.commands).toBe(before);
    expect((await late.state('rule:later')).heldUntil?.getTime()).toBe(Math.floor(held!.heldUntilMs));
  });

  it('caps a hold at retryAfterMaxMs, keeps a longer hold, and ignores one already over', async () => {
    const prefix = uniqueQueuePrefix();
    const pacer = await limiter(prefix, { retryAfterMaxMs: 3_000 });
    const capped = await pacer.hold('rule:cap', Date.now() + 3_600_000);
    const state = await pacer.state('rule:cap');
    expect(state.heldUntil!.getTime() - Date.now()).toBeLessThanOrEqual(3_000 + 50);
    const shorter = await pacer.hold('rule:cap', Date.now() + 500);
    expect(shorter!.heldUntilMs).toBe(capped!.heldUntilMs);
    expect(await pacer.hold('rule:cap', Date.now() - 1)).toBeNull();
  });

  it('halves the effective rate on a 429 (once per cooldown, not below the floor) and restores it step by step', async () => {
    const prefix = uniqueQueuePrefix();
    const pacing = { rateLimit: { limit: 10, period: 'second' as const, burst: 1 } };
    const pacer = await limiter(prefix, { halvingCooldownMs: 60_000 });
    await pacer.acquire('destination:slow', pacing);
    expect(await pacer.slowDown('destination:slow', pacing)).toBe(5);
    // A second 429 within the cooldown (a delivery already in flight) is the same signal.
    expect(await pacer.slowDown('destination:slow', pacing)).toBe(5);
    expect(await pacer.state('destination:slow', pacing)).toMatchObject({
      configuredLimit: 10,
      period: 'second',
      effectiveLimit: 5,
    });
    // At 5/s grants are at least 200 ms apart (Redis time), where 10/s allowed 100.
    const times: number[] = [];
    for (let i = 0; i < 4; i++)
      times.push((await acquireEventually(pacer, 'destination:slow', pacing)).grant.grantedAtMs!);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(199.9);

    // Each window of ceil(effective) successes gives back 10 % of the configured limit: 5 → 6 → … → 10.
    const seen: number[] = [];
    for (let i = 0; i < 40; i++) {
      await pacer.recordSuccess('destination:slow', pacing);
      const { effectiveLimit } = await pacer.state('destination:slow', pacing);
      if (seen.at(-1) !== effectiveLimit) seen.push(effectiveLimit!);
    }
    expect(seen).toEqual([5, 6, 7, 8, 9, 10]);

    // Without a cooldown, repeated 429s halve down to the floor and no further.
    const eager = await limiter(prefix, { halvingCooldownMs: 0, halvingFloor: 2 });
    const rates: (number | null)[] = [];
    for (let i = 0; i < 4; i++) rates.push(await eager.slowDown('destination:eager', pacing));
    expect(rates).toEqual([5, 2.5, 2, 2]);
    // A key without a rate limit is not halved (its 429s only hold, with Retry-After).
    expect(await eager.slowDown('destination:eager', { maxConcurrency: 3 })).toBeNull();
  });

  it('counts the waiters refused for the rate and for concurrency until each is granted', async () => {
    const prefix = uniqueQueuePrefix();
    const pacer = await limiter(prefix, { concurrencyRetryMs: 20 });
    const rate = { rateLimit: { limit: 1, period: 'minute' as const, burst: 1 } };
    expect(await pacer.acquire('rule:slow', rate, 'job-1')).toMatchObject({ granted: true });
    for (const id of ['job-2', 'job-3', 'job-2']) {
      expect(await pacer.acquire('rule:slow', rate, id)).toMatchObject({ granted: false, reason: 'rate' });
    }
    // One waiter asking again is still one waiter; a refusal without a waiter id is not counted.
    await pacer.acquire('rule:slow', rate);
    expect(await pacer.state('rule:slow', rate)).toMatchObject({ waiting: 2, effectiveLimit: 1, period: 'minute' });

    const narrow = { maxConcurrency: 1 };
    const taken = await pacer.acquire('destination:narrow', narrow, 'job-a');
    expect(await pacer.acquire('destination:narrow', narrow, 'job-b')).toMatchObject({ reason: 'concurrency' });
    expect(await pacer.state('destination:narrow', narrow)).toMatchObject({ inFlight: 1, waiting: 1 });
    await pacer.release((taken as Extract<PacingDecision, { granted: true }>).lease);
    expect(await pacer.acquire('destination:narrow', narrow, 'job-b')).toMatchObject({ granted: true });
    expect(await pacer.state('destination:narrow', narrow)).toMatchObject({ inFlight: 1, waiting: 0 });
  });

  it('forgets a waiter that never asks again (a crashed worker) once its wake-up and the grace are over', async () => {
    const prefix = uniqueQueuePrefix();
    const pacer = await limiter(prefix, { waiterGraceMs: 300 });
    const rate = { rateLimit: { limit: 10, period: 'second' as const, burst: 1 } };
    await pacer.acquire('rule:crash', rate, 'job-1');
    const refused = await pacer.acquire('rule:crash', rate, 'job-lost');
    expect(refused).toMatchObject({ granted: false, reason: 'rate' });
    expect((await pacer.state('rule:crash', rate)).waiting).toBe(1);
    await sleep((refused as { retryAfterMs: number }).retryAfterMs + 300 + 50);
    expect((await pacer.state('rule:crash', rate)).waiting).toBe(0);
  });

  it('counts the waiters of a known hold with one command each, and forgets them when granted', async () => {
    const prefix = uniqueQueuePrefix();
    const writer = await limiter(prefix);
    await writer.hold('rule:held', Date.now() + 60_000);
    const { redis, counter } = await countingConnection();
    const worker = createPacingLimiter({ redis, subscriber: connect(), prefix });
    await worker.start();
    // The first refusal may load the script; each one after costs exactly one command.
    await worker.acquire('rule:held', null, 'job-0');
    const before = counter.commands;
    for (const id of ['job-1', 'job-2']) {
      expect(await worker.acquire('rule:held', null, id)).toMatchObject({ granted: false, reason: 'hold' });
    }
    expect(counter.commands).toBe(before + 2);
    expect(await worker.state('rule:held', null)).toMatchObject({ waiting: 3, configuredLimit: null });
    expect((await worker.state('rule:held', null)).heldUntil).not.toBeNull();

    // The hold over (a shorter one here, in a fresh key), an unpaced grant of a waiter it counted forgets it.
    await writer.hold('rule:brief', Date.now() + 300);
    await waitFor(() => worker.knownHolds() === 2, 30_000, 'the second hold to reach the worker');
    const { grant, refusals } = await acquireEventually(worker, 'rule:brief', null, 'job-9');
    expect(refusals.length).toBeGreaterThan(0);
    expect(grant.grantedAtMs).toBeNull();
    expect((await worker.state('rule:brief', null)).waiting).toBe(0);
  });

  it('paces at the configured rate with its burst, on Redis time', async () => {
    const prefix = uniqueQueuePrefix();
    const pacer = await limiter(prefix);
    // A burst of 3 at one an hour: however far apart a loaded machine lets four calls arrive, the fourth finds no
    // emission interval over (at 20 a second, four calls 49 ms apart were all granted).
    const hourly = { rateLimit: { limit: 1, period: 'hour' as const, burst: 3 } };
    const first = await Promise.all([0, 1, 2, 3].map(() => pacer.acquire('rule:burst', hourly)));
    expect(first.filter((d) => d.granted)).toHaveLength(3);
    expect(first.find((d) => !d.granted)).toMatchObject({ reason: 'rate' });
    // At 20 a second, the fourth grant comes at least one emission interval (50 ms) after the first, whenever each
    // call arrives: the burst only lets the first three go sooner.
    const pacing = { rateLimit: { limit: 20, period: 'second' as const, burst: 3 } };
    const grants: number[] = [];
    for (let i = 0; i < 4; i++) grants.push((await acquireEventually(pacer, 'rule:paced', pacing)).grant.grantedAtMs!);
    expect(grants[3]! - grants[0]!).toBeGreaterThanOrEqual(49.9);
  });
});
