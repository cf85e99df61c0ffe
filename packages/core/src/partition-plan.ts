// The one place partition ranges are decided (docs/partitioning.md): which partitions must exist for a
// period and a clock, and which are past retention. Pure: the caller brings the clock and the cutoffs, the
// maintenance job does the I/O. Every boundary is computed in UTC (Date.UTC), so neither the process' TZ
// nor daylight saving can move one: a day partition is always exactly 24 hours.

export const PARTITION_PERIODS = ['day', 'week', 'month'] as const;
export type PartitionPeriod = (typeof PARTITION_PERIODS)[number];

/** One partition: [from, to) in UTC, and the suffix of its tables' names (`events_p<suffix>`). */
export interface PartitionRange {
  suffix: string;
  from: Date;
  to: Date;
}

const DAY_MS = 86_400_000;
// A guard against a wrong clock or cutoff making the job create (or the plan list) thousands of tables.
export const MAX_PARTITIONS_PER_PLAN = 5_000;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const utcMidnight = (at: Date) => Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());

/** The start of the period that contains `at` (a UTC midnight; a week starts on its ISO Monday). */
export function periodStart(period: PartitionPeriod, at: Date): Date {
  if (period === 'month') return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const midnight = utcMidnight(at);
  if (period === 'day') return new Date(midnight);
  const daysSinceMonday = (new Date(midnight).getUTCDay() + 6) % 7;
  return new Date(midnight - daysSinceMonday * DAY_MS);
}

/** The start of the period after the one that starts at `start`. */
export function nextPeriodStart(period: PartitionPeriod, start: Date): Date {
  if (period === 'month') return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  return new Date(start.getTime() + (period === 'day' ? 1 : 7) * DAY_MS);
}

// ISO 8601: a week belongs to the year of its Thursday, and week 1 is the one holding that year's first Thursday.
function isoWeek(monday: Date): { year: number; week: number } {
  const thursday = new Date(monday.getTime() + 3 * DAY_MS);
  const year = thursday.getUTCFullYear();
  const week = 1 + Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY_MS));
  return { year, week };
}

/** The name suffix of the period starting at `start`: 20261126 (day), 2026w48 (ISO week), 202611 (month). */
export function partitionSuffix(period: PartitionPeriod, start: Date): string {
  const year = pad(start.getUTCFullYear(), 4);
  if (period === 'week') {
    const { year: weekYear, week } = isoWeek(start);
    return `${pad(weekYear, 4)}w${pad(week)}`;
  }
  const month = pad(start.getUTCMonth() + 1);
  return period === 'month' ? `${year}${month}` : `${year}${month}${pad(start.getUTCDate())}`;
}

/** A table's partition for a range: `events_p20261126`. */
export function partitionName(table: string, range: PartitionRange): string {
  return `${table}_p${range.suffix}`;
}

// A UUIDv7 starts with the 48-bit Unix millisecond it was made in, and Postgres orders uuids bytewise, so
// the smallest uuid of a millisecond is a partition bound that ids made at or after that moment sort above.
const MAX_UUID7_MS = 2 ** 48;
const HEX_PREFIX = /^([0-9a-f]{8})-([0-9a-f]{4})-/;

/**
 * The partition bound of a moment (events by id, their children by event_id): the smallest UUIDv7 of its
 * millisecond, its first 12 hex digits the Unix milliseconds, the rest zeros; SQL's relay_uuid7_floor(at).
 */
export function partitionBoundId(at: Date): string {
  const ms = at.getTime();
  if (!Number.isInteger(ms) || ms < 0 || ms >= MAX_UUID7_MS) throw new RangeError('partition bound: invalid date');
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}-0000-0000-000000000000`;
}

/** The moment a UUIDv7 (or a partition bound) was made in: its first 48 bits as Unix milliseconds. */
export function partitionBoundTime(id: string): Date {
  const m = HEX_PREFIX.exec(id.toLowerCase());
  if (!m) throw new RangeError(`partition bound: not a uuid: ${id}`);
  return new Date(parseInt(m[1]! + m[2]!, 16));
}

/** Every partition that holds some moment of [from, through], oldest first (the upgrade's copy needs the past). */
export function partitionsCovering(period: PartitionPeriod, from: Date, through: Date): PartitionRange[] {
  if (!Number.isFinite(from.getTime()) || !Number.isFinite(through.getTime())) {
    throw new RangeError('partition range: invalid date');
  }
  const ranges: PartitionRange[] = [];
  for (let start = periodStart(period, from); start <= through;) {
    if (ranges.length >= MAX_PARTITIONS_PER_PLAN) {
      throw new RangeError(`partition range: more than ${MAX_PARTITIONS_PER_PLAN} ${period} partitions`);
    }
    const to = nextPeriodStart(period, start);
    ranges.push({ suffix: partitionSuffix(period, start), from: start, to });
    start = to;
  }
  return ranges;
}

/**
 * The partitions that must exist now: the current period's and every one up to `now + aheadMs`, so ingest
 * never meets a missing partition while the maintenance job is down for less than `aheadMs`.
 */
export function partitionsToEnsure(period: PartitionPeriod, now: () => Date, aheadMs: number): PartitionRange[] {
  if (!(aheadMs >= 0) || !Number.isFinite(aheadMs)) throw new RangeError('partition plan: aheadMs must be >= 0');
  const at = now();
  return partitionsCovering(period, at, new Date(at.getTime() + aheadMs));
}

/**
 * What retention may do with a partition, by its bounds alone:
 * - `droppable`: it ended at or before every organization's cutoff, and no organization keeps everything: every
 *   row was stored before every cutoff. The database must still confirm no row in it is kept (queued, paused,
 *   unacknowledged failures, changed since) before the drop; an id never moves, so a partition holding a kept row
 *   stays.
 * - `edge`: some rows may be due, others not (it straddles a cutoff, or organizations' cutoffs differ, or one
 *   keeps everything): due rows are deleted one by one, as before partitions.
 * - `retained`: it starts at or after every cutoff: nothing in it can be due.
 */
export type PartitionRetention = 'droppable' | 'edge' | 'retained';

export interface ClassifiedPartition extends PartitionRange {
  retention: PartitionRetention;
}

/**
 * Sorts partitions by retention. `cutoffs` holds each organization's `before` cutoff (retention-plan.ts), or
 * null for one that keeps everything. No organizations at all: nothing is past retention.
 */
export function classifyPartitions(
  partitions: readonly PartitionRange[],
  cutoffs: readonly (Date | null)[],
): ClassifiedPartition[] {
  const dated = cutoffs.filter((c): c is Date => c !== null).map((c) => c.getTime());
  const keepsEverything = dated.length < cutoffs.length;
  const earliest = dated.length ? Math.min(...dated) : -Infinity;
  const latest = dated.length ? Math.max(...dated) : -Infinity;
  return partitions.map((p) => {
    let retention: PartitionRetention = 'edge';
    if (p.from.getTime() >= latest) retention = 'retained';
    else if (!keepsEverything && p.to.getTime() <= earliest) retention = 'droppable';
    return { ...p, retention };
  });
}
