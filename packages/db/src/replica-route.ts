import type pg from 'pg';
import { isDatabaseUnavailable } from './database';

/** ok: reads go to the replica; behind: its lag is past the bound; unavailable: it cannot be reached (or not yet). */
export type ReplicaStatus = 'ok' | 'behind' | 'unavailable';

export interface ReplicaState {
  status: ReplicaStatus;
  /** Where reads go now. */
  reads: 'replica' | 'primary';
  /** How long the primary has had WAL the replica has not replayed; null until measured. */
  lagSeconds: number | null;
  /** WAL bytes between the primary's current position and the replica's replay position; null until measured. */
  lagBytes: number | null;
  /** Why the replica is unavailable (its last error). */
  error?: string;
}

export interface ReplicaRouteOptions {
  primary: Pick<pg.Pool, 'query'>;
  replica: Pick<pg.Pool, 'query'>;
  /** DATABASE_READ_MAX_LAG_SECONDS: past it, reads go to the primary until the replica catches up. */
  maxLagSeconds: number;
  checkIntervalMs?: number;
  /** Longest wait for one check's statement: a replica that hangs counts as unavailable after it. */
  checkTimeoutMs?: number;
  /** Called when reads change sides (once when the replica falls behind or goes away, once when it is back). */
  onSwitch: (state: ReplicaState, previous: ReplicaState) => void;
  now?: () => number;
}

export interface ReplicaRoute {
  /** Whether a read should go to the replica now. */
  useReplica(): boolean;
  state(): ReplicaState;
  /** Measures the lag now (the timer does it every checkIntervalMs). */
  check(): Promise<ReplicaState>;
  /** A read on the replica could not reach it: reads go to the primary until a check succeeds. */
  unreachable(err: unknown): void;
  /** Settles when the replica is next found unavailable (reads waiting on it then move to the primary). */
  lost(): Promise<void>;
  close(): void;
}

// The largest WAL position the primary had at a time, and when it was first seen there.
interface Sample {
  lsn: number;
  at: number;
}
const MAX_SAMPLES = 1_000;
// serialization_failure: on a hot standby, a read-only query gets it only when replay cancels it.
const RECOVERY_CONFLICT = '40001';
const LSN = (expression: string) => `pg_wal_lsn_diff(${expression}, '0/0')::float8`;

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Decides where reads go: the replica while it answers and its lag is within the bound, else the primary.
 *
 * Lag in seconds is measured by comparing WAL positions rather than by `now() - pg_last_xact_replay_timestamp()`,
 * which grows on an idle primary (nothing to replay) and would send reads away from a replica that is up to date: the
 * route samples the primary's position at each check, and the lag is the age of the oldest sample the replica has not
 * replayed yet (0 when it has replayed everything the primary had).
 */
export function createReplicaRoute(options: ReplicaRouteOptions): ReplicaRoute {
  const now = options.now ?? Date.now;
  const timeoutMs = options.checkTimeoutMs ?? 2_000;
  let samples: Sample[] = [];
  // Reads stay on the primary until the first check has seen the replica.
  let current: ReplicaState = { status: 'unavailable', reads: 'primary', lagSeconds: null, lagBytes: null };
  let running: Promise<ReplicaState> | undefined;
  let lose: () => void = () => {};
  let lost = new Promise<void>((resolve) => (lose = resolve));

  const set = (next: Omit<ReplicaState, 'reads'>) => {
    const previous = current;
    current = { ...next, reads: next.status === 'ok' ? 'replica' : 'primary' };
    if (current.status === 'unavailable' && previous.status !== 'unavailable') lose();
    if (previous.status === 'unavailable' && current.status !== 'unavailable')
      lost = new Promise<void>((resolve) => (lose = resolve));
    if (current.reads !== previous.reads) options.onSwitch(current, previous);
  };

  async function measure(): Promise<void> {
    let primaryLsn: number;
    try {
      const { rows } = await within(
        options.primary.query<{ lsn: number }>(`SELECT ${LSN('pg_current_wal_lsn()')} AS lsn`),
        timeoutMs,
      );
      primaryLsn = rows[0]!.lsn;
    } catch {
      // Without the primary's position the lag cannot be told: reads stay where they are.
      return;
    }
    const at = now();
    if (samples.length === 0 || primaryLsn > samples[samples.length - 1]!.lsn) samples.push({ lsn: primaryLsn, at });
    // The oldest sample defines the lag: when there are too many, thin out the ones after it.
    if (samples.length > MAX_SAMPLES) samples.splice(1, 1);
    let replayed: { recovery: boolean; lsn: number | null };
    try {
      const { rows } = await within(
        options.replica.query<{ recovery: boolean; lsn: number | null }>(
          `SELECT pg_is_in_recovery() AS recovery, ${LSN('pg_last_wal_replay_lsn()')} AS lsn`,
        ),
        timeoutMs,
      );
      replayed = rows[0]!;
    } catch (err) {
      set({ status: 'unavailable', lagSeconds: null, lagBytes: null, error: (err as Error).message });
      return;
    }
    // Not in recovery (the URL names a primary, or the replica was promoted): it has everything it will ever have.
    const replayedLsn = replayed.recovery ? (replayed.lsn ?? 0) : Number.POSITIVE_INFINITY;
    samples = samples.filter((sample) => sample.lsn > replayedLsn);
    const lagSeconds = samples.length === 0 ? 0 : (at - samples[0]!.at) / 1_000;
    const lagBytes = Math.max(0, primaryLsn - Math.min(replayedLsn, primaryLsn));
    set({ status: lagSeconds > options.maxLagSeconds ? 'behind' : 'ok', lagSeconds, lagBytes });
  }

  const check = () => {
    // One check at a time: a slow one is not piled up by the timer.
    running ??= measure()
      .then(() => current)
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const timer = setInterval(() => void check(), options.checkIntervalMs ?? 1_000);
  timer.unref();
  void check();

  return {
    useReplica: () => current.reads === 'replica',
    state: () => current,
    check,
    unreachable(err) {
      if (current.status === 'unavailable') return;
      set({ status: 'unavailable', lagSeconds: null, lagBytes: null, error: (err as Error)?.message ?? String(err) });
    },
    lost: () => lost,
    close: () => clearInterval(timer),
  };
}

/**
 * Each function of `onReplica` where the route says so, else `onPrimary`'s. A call the replica cannot answer
 * (unreachable, not a bad query) is made again on the primary, and reads stay there until the replica is back; one
 * canceled by a replay conflict is made again on the primary alone.
 */
type Read = (...args: unknown[]) => Promise<unknown>;

export function routedReads<T extends object>(onPrimary: T, onReplica: T, route: ReplicaRoute): T {
  const routed: Record<string, Read> = {};
  const replicaReads = onReplica as Record<string, unknown>;
  for (const [name, value] of Object.entries(onPrimary)) {
    if (typeof value !== 'function' || typeof replicaReads[name] !== 'function') continue;
    const primaryRead = value as Read;
    const replicaRead = replicaReads[name] as Read;
    routed[name] = async (...args) => {
      if (!route.useReplica()) return primaryRead(...args);
      let answer: { value: unknown } | undefined;
      try {
        // A replica that stops answering mid-query (frozen, cut off) would hold the read until TCP gives up: once
        // the checks find it unavailable, the read is made on the primary and the replica's answer ignored.
        const onReplica = replicaRead(...args);
        onReplica.catch(() => {});
        answer = await Promise.race([onReplica.then((value) => ({ value })), route.lost().then(() => undefined)]);
      } catch (err) {
        // Canceled by a conflict with the replica's replay (a vacuumed row it still needed): this read alone moves.
        if ((err as { code?: string })?.code === RECOVERY_CONFLICT) return primaryRead(...args);
        if (!isDatabaseUnavailable(err)) throw err;
        route.unreachable(err);
        return primaryRead(...args);
      }
      return answer === undefined ? primaryRead(...args) : answer.value;
    };
  }
  return routed as T;
}
