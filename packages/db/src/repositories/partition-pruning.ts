import type pg from 'pg';

// Plan-time partition pruning for the worker's statements (docs/partitioning.md "Pruning"). A statement on the
// partitioned family that does not bound partition_at by constants probes every partition (today's, the ones
// created ahead, the retained past), and its plan grows with them: measured here, a load of 20 events by id cost
// 1.1 ms of Postgres time across 8 partitions against 0.34 ms pruned to one.

/** A pool or a transaction's client: what the statements run on. */
export type Queryable = Pick<pg.PoolClient, 'query'>;

/** How far back a load looks first: a delivery's first attempt, or a retry within hours, is found there. */
export const LOAD_RANGE_BEFORE_MS = 6 * 3_600_000;
/** How far ahead: the database's clock may run ahead of this process's (partition_at is the database's time). */
export const LOAD_RANGE_AFTER_MS = 3_600_000;

/** A partition key as the `timestamp` (UTC, without zone) the column holds, exact to the millisecond. */
export const partitionKey = (at: Date): string => at.toISOString().slice(0, -1);

/**
 * The range of partition_at a batch of loads looks in first: around `now`, widened to every hint the refs carry.
 * An event outside it (an old event's retry, or a clock far off) is then looked for in every partition.
 */
export function loadRange(refs: readonly { partitionAt?: Date }[], now: number): { from: Date; to: Date } {
  let from = now - LOAD_RANGE_BEFORE_MS;
  let to = now + LOAD_RANGE_AFTER_MS;
  for (const ref of refs) {
    if (ref.partitionAt === undefined) continue;
    from = Math.min(from, ref.partitionAt.getTime());
    to = Math.max(to, ref.partitionAt.getTime() + 1);
  }
  return { from: new Date(from), to: new Date(to) };
}

/**
 * A batch of outcomes was written in part: the pruned statement wrote the others, then the one for `failed`
 * (events not found by their partition key) threw. Only those failed; the others must not be written again.
 */
export class OutcomesPartlyRecorded extends Error {
  constructor(
    readonly failed: ReadonlySet<string>,
    override readonly cause: unknown,
  ) {
    super(`${failed.size} outcome(s) could not be recorded`);
    this.name = 'OutcomesPartlyRecorded';
  }
}
