import { createHash, randomUUID } from 'node:crypto';
import { DelayedError } from 'bullmq';
import type { RedisConnection } from './redis-connection';
import { LocalHolds, pacingHoldsChannel } from './pacing-holds';
import {
  ACQUIRE,
  HALVE,
  HOLD,
  INDEX_HOLD,
  LOAD_HOLDS,
  RELEASE,
  RESTORE,
  STATE,
  UNWAIT,
  WAITER,
} from './pacing-scripts';
import {
  isPaced,
  PERIOD_MS,
  type PacingDecision,
  type PacingLease,
  type PacingPeriod,
  type PacingSettings,
  type PacingState,
  type PacingWaitReason,
} from './pacing-types';

// Pacing per rule and per destination, shared by every worker process: all state lives in Redis and each
// decision is one script (GCRA for the rate on Redis's clock, a sorted set of expiring leases for concurrency,
// the Retry-After hold, the halved rate). A key that is not paced and not held costs no Redis command at all.
// docs/rules.md, "Pacing", says what users see.

export interface PacingLimiterOptions {
  /** A command connection (a worker's). */
  redis: RedisConnection;
  /**
   * A connection of its own for the holds' pub/sub. Without it the process knows only its own holds: an unpaced
   * key held by another worker would be delivered anyway.
   */
  subscriber?: RedisConnection;
  prefix: string;
  /**
   * How long a concurrency slot stays taken when its holder never releases it (a crashed worker): well above the
   * delivery timeout, or a slow delivery's slot would be handed to another one. Default 5 minutes.
   */
  leaseTtlMs?: number;
  /** RETRY_AFTER_MAX_MS: the longest hold a Retry-After may ask for. Default 10 minutes. */
  retryAfterMaxMs?: number;
  /** How soon a delivery refused for concurrency asks again (plus up to half of it at random). Default 250 ms. */
  concurrencyRetryMs?: number;
  /** How long a key's state outlives its last use (a halved rate is forgotten after that). Default 1 hour. */
  stateTtlMs?: number;
  /** The lowest a 429 halves the rate to, per period. Default 1. */
  halvingFloor?: number;
  /** 429s less than this apart halve once (those of deliveries already in flight are one signal). Default 1 s. */
  halvingCooldownMs?: number;
  /** The share of the configured limit one success window gives back. Default 0.1 (10 %). */
  restoreStep?: number;
  /**
   * How long a refused waiter stays counted past the wake-up it was given, when it never asks again (its worker
   * crashed, its job was removed). Default 60 s.
   */
  waiterGraceMs?: number;
  /** Called on every refusal (paced waits, for metrics). */
  onWait?: (key: string, reason: PacingWaitReason) => void;
}

/** A BullMQ job as `pacedOrDelay` needs it. */
interface DelayableJob {
  /** The waiter id `state` counts while the job waits. */
  id?: string | undefined;
  moveToDelayed(timestamp: number, token?: string): Promise<void>;
}

type Reply = (string | number)[];

type PacingGrant = Extract<PacingDecision, { granted: true }>;

// Scripts run by EVALSHA, loaded on first use (and again after a Redis restart or SCRIPT FLUSH).
function scriptRunner(redis: RedisConnection) {
  const shas = new Map<string, string>();
  return async (script: string, keys: string[], args: (string | number)[]): Promise<Reply> => {
    let sha = shas.get(script);
    if (!sha) {
      sha = createHash('sha1').update(script).digest('hex');
      shas.set(script, sha);
    }
    try {
      return (await redis.evalsha(sha, keys.length, ...keys, ...args)) as Reply;
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return (await redis.eval(script, keys.length, ...keys, ...args)) as Reply;
    }
  };
}

const num = (value: string | number | undefined): number | null =>
  value === undefined || value === '' ? null : Number(value);

export function createPacingLimiter(options: PacingLimiterOptions) {
  const leaseTtlMs = options.leaseTtlMs ?? 300_000;
  const retryAfterMaxMs = options.retryAfterMaxMs ?? 600_000;
  const concurrencyRetryMs = options.concurrencyRetryMs ?? 250;
  const stateTtlMs = options.stateTtlMs ?? 3_600_000;
  const halvingFloor = options.halvingFloor ?? 1;
  const halvingCooldownMs = options.halvingCooldownMs ?? 1_000;
  const restoreStep = options.restoreStep ?? 0.1;
  const waiterGraceMs = options.waiterGraceMs ?? 60_000;
  const run = scriptRunner(options.redis);
  const holds = new LocalHolds();
  // Keys this process saw halved: only their successes cost a Redis command.
  const halved = new Set<string>();
  // Waiters this process recorded on a hold it knew of: granted later without ACQUIRE (an unpaced key), only
  // they cost a command to forget; the others age out after the grace.
  const heldWaiters = new Map<string, string>();
  // One hash tag per pacing key (Redis Cluster): its state and its leases share a slot, other keys spread out.
  const base = options.prefix.replace(/[{}]/g, '');
  const tag = (key: string) => `{${base}:pace:${key.replace(/[{}]/g, '')}}`;
  const stateKey = (key: string) => `${tag(key)}:s`;
  const leasesKey = (key: string) => `${tag(key)}:l`;
  const waitersKey = (key: string) => `${tag(key)}:w`;
  const indexKey = `{${base}:pace-holds}`;
  const channel = pacingHoldsChannel(options.prefix);

  const noteEffective = (key: string, configured: number, effective: number | null) => {
    if (effective !== null && effective < configured) halved.add(key);
    else halved.delete(key);
  };

  const refuse = (key: string, retryAfterMs: number, reason: PacingWaitReason): PacingDecision => {
    options.onWait?.(key, reason);
    return { granted: false, retryAfterMs, reason };
  };

  // A refusal from the known holds still counts its waiter (best effort: the refusal stands without Redis).
  async function heldWaiter(key: string, waiterId: string, waitMs: number): Promise<void> {
    if (heldWaiters.size >= 10_000) heldWaiters.delete(heldWaiters.keys().next().value!);
    heldWaiters.set(waiterId, key);
    await run(WAITER, [waitersKey(key)], [waiterId, waitMs, waiterGraceMs]).catch(() => {});
  }

  async function loadHolds(): Promise<void> {
    const rows = await run(LOAD_HOLDS, [indexKey], []);
    for (let i = 0; i < rows.length; i += 2) holds.note(String(rows[i]), Number(rows[i + 1]));
  }

  const limiter = {
    /** Subscribes to the holds every worker publishes and reads those already running. */
    async start(): Promise<void> {
      if (options.subscriber) await holds.listen(options.subscriber, options.prefix, loadHolds);
      else await loadHolds();
    },

    /**
     * Asks for one delivery on `key`: granted (with a lease to release when the attempt ends) or refused with
     * how long to wait. Unpaced settings ask Redis nothing; a key this process knows is held is refused at once.
     * `waiterId` (a job id) is counted as waiting while refused (`state`), and no longer once granted.
     */
    async acquire(key: string, pacing: PacingSettings | null | undefined, waiterId?: string): Promise<PacingDecision> {
      const heldMs = holds.remaining(key);
      if (heldMs > 0) {
        if (waiterId) await heldWaiter(key, waiterId, Math.ceil(heldMs));
        return refuse(key, Math.ceil(heldMs), 'hold');
      }
      if (!isPaced(pacing)) {
        if (waiterId && heldWaiters.delete(waiterId)) await run(UNWAIT, [waitersKey(key)], [waiterId]).catch(() => {});
        return { granted: true, lease: { key, id: null }, grantedAtMs: null };
      }
      if (waiterId) heldWaiters.delete(waiterId);
      const rate = pacing!.rateLimit && pacing!.rateLimit.limit > 0 ? pacing!.rateLimit : null;
      const maxConcurrency = pacing!.maxConcurrency ?? 0;
      const leaseId = maxConcurrency > 0 ? randomUUID() : '';
      const reply = await run(
        ACQUIRE,
        [stateKey(key), leasesKey(key), waitersKey(key)],
        [
          rate?.limit ?? 0,
          rate ? PERIOD_MS[rate.period] : 0,
          rate?.burst ?? rate?.limit ?? 0,
          maxConcurrency,
          leaseId,
          leaseTtlMs,
          concurrencyRetryMs,
          stateTtlMs,
          waiterId ?? '',
          waiterGraceMs,
        ],
      );
      const [granted, waitUs, reason, nowUs, effective] = reply;
      if (rate) noteEffective(key, rate.limit, num(effective));
      if (Number(granted) === 1) {
        return { granted: true, lease: { key, id: leaseId || null }, grantedAtMs: Number(nowUs) / 1_000 };
      }
      let waitMs = Math.max(1, Math.ceil(Number(waitUs) / 1_000));
      if (reason === 'hold') holds.note(key, waitMs);
      // Refused for concurrency, waiters would otherwise all come back at the same instant.
      if (reason === 'concurrency') waitMs += Math.floor(Math.random() * (waitMs / 2));
      return refuse(key, waitMs, reason as PacingWaitReason);
    },

    /** Gives back a concurrency slot (a lease without one costs nothing). Never throws: the lease expires anyway. */
    async release(lease: PacingLease): Promise<void> {
      if (!lease.id) return;
      await run(RELEASE, [leasesKey(lease.key)], [lease.id]).catch(() => {});
    },

    /**
     * A BullMQ processor's first step: the grant (its lease to release) when granted, else the job goes back to
     * delayed for the wait and `DelayedError` is thrown (the worker counts no attempt; the processor must let it
     * through). The job's id is its waiter id: `state` counts it as waiting until it is granted.
     */
    async pacedOrDelay(
      job: DelayableJob,
      token: string | undefined,
      key: string,
      pacing: PacingSettings | null | undefined,
    ): Promise<PacingGrant> {
      const decision = await limiter.acquire(key, pacing, job.id);
      if (decision.granted) return decision;
      await job.moveToDelayed(Date.now() + decision.retryAfterMs, token);
      throw new DelayedError();
    },

    /**
     * A target answered 429 or 503 with Retry-After: no delivery on `key` before `untilMs` (epoch ms, at most
     * retryAfterMaxMs from now), in every worker. Returns when the hold ends (Redis time), null when already over.
     */
    async hold(key: string, untilMs: number): Promise<{ heldUntilMs: number } | null> {
      const ms = Math.min(Math.ceil(untilMs - Date.now()), retryAfterMaxMs);
      if (!(ms > 0)) return null;
      const [untilUs, nowUs] = await run(HOLD, [stateKey(key)], [ms, channel, key, stateTtlMs]);
      holds.note(key, (Number(untilUs) - Number(nowUs)) / 1_000);
      await run(INDEX_HOLD, [indexKey], [key, Number(untilUs)]);
      return { heldUntilMs: Number(untilUs) / 1_000 };
    },

    /** A 429 on a key with a rate limit: halves its effective rate (see the options). Returns the rate in force. */
    async slowDown(key: string, pacing: PacingSettings | null | undefined): Promise<number | null> {
      const rate = pacing?.rateLimit;
      if (!rate || !(rate.limit > 0)) return null;
      const [effective] = await run(HALVE, [stateKey(key)], [rate.limit, halvingFloor, halvingCooldownMs, stateTtlMs]);
      noteEffective(key, rate.limit, Number(effective));
      return Number(effective);
    },

    /** A delivery on `key` succeeded: steps a halved rate back up. Costs nothing unless the key is halved. */
    async recordSuccess(key: string, pacing: PacingSettings | null | undefined): Promise<void> {
      const rate = pacing?.rateLimit;
      if (!rate || !(rate.limit > 0) || !halved.has(key)) return;
      const [effective] = await run(RESTORE, [stateKey(key)], [rate.limit, restoreStep]);
      noteEffective(key, rate.limit, Number(effective));
    },

    /** The key's pacing state for the API; `pacing` (the current settings) wins over the last ones used. */
    async state(key: string, pacing?: PacingSettings | null): Promise<PacingState> {
      const keys = [stateKey(key), leasesKey(key), waitersKey(key)];
      const [lim, per, eff, hold, inFlight, nowUs, waiting] = await run(STATE, keys, []);
      const rate = pacing === undefined ? null : (pacing?.rateLimit ?? null);
      const storedPeriod = (Object.keys(PERIOD_MS) as PacingPeriod[]).find((p) => PERIOD_MS[p] === num(per));
      const configuredLimit = pacing === undefined ? num(lim) : (rate?.limit ?? null);
      const heldUntilUs = num(hold);
      return {
        configuredLimit,
        period: pacing === undefined ? (storedPeriod ?? null) : (rate?.period ?? null),
        effectiveLimit: configuredLimit === null ? null : Math.min(num(eff) ?? configuredLimit, configuredLimit),
        inFlight: Number(inFlight),
        waiting: Number(waiting),
        heldUntil: heldUntilUs !== null && heldUntilUs > Number(nowUs) ? new Date(heldUntilUs / 1_000) : null,
      };
    },

    /** How many held keys this process knows of (for tests and metrics). */
    knownHolds: () => holds.size,
  };
  return limiter;
}

export type PacingLimiter = ReturnType<typeof createPacingLimiter>;
