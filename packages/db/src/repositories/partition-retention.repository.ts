import { EVENT_STATUSES, type OrgId } from '@relay/core';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { withTransaction } from '../transaction';
import { dropAllDetached, dropOwnForeignKeys } from './detached-tables';
import { PARTITIONED_TABLES, type AttachedPartition } from './partition.repository';
import type { EventCutoffs } from './retention.repository';

/** One organization's cutoffs (retention-plan.ts); an organization not listed keeps everything. */
export interface OrganizationCutoffs extends EventCutoffs {
  orgId: OrgId;
}

/** `dropped` with the number of events the partition held (retention counts them as deleted), else why not. */
export type PartitionDropOutcome = { outcome: 'dropped'; events: number } | { outcome: 'kept' | 'busy' };

/** An events partition: its name, and its ids' range (`from` null: the first partition, from MINVALUE). */
export type PartitionBounds = Pick<AttachedPartition, 'name' | 'from' | 'to'>;

// The smallest uuid: `id >= NIL` holds for every id, so the first partition (FROM MINVALUE) needs no other statement,
// and the bound stays a comparison the executor prunes partitions by.
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const RANGE = (column: string) => `${column} >= $4::uuid AND ${column} < $5::uuid`;
// Every status retention never deletes, however old: all but the deletable ones, so a status added later is kept
// (the row deletes' allow-list in retention.repository.ts says the same).
const UNDELETABLE = EVENT_STATUSES.filter((s) => !['delivered', 'ignored', 'failed'].includes(s))
  .map((s) => `'${s}'`)
  .join(', ');
const CUTOFFS = `unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[]) AS c(org, before, unacknowledged_before)`;
const utc = (column: string) => `(${column} AT TIME ZONE 'UTC')`;

// The events of one partition's range that retention keeps: the negation of retention.repository.ts' DUE (its
// organization has no retention, or it changed at or after its cutoff, or it is not deletable: an undeletable status,
// an unacknowledged failure within the hard maximum, or a delivery of it is queued, paused or such a failure).
// Written as a union of branches that each walk an index for one reason to keep, restricted to the range, so it reads
// the kept rows' index entries rather than the partition's rows: it runs again while the drop holds the family's
// tables. events has no index on status or updated_at (an outcome's update changes no indexed column, migration
// 20261207100000_hot_outcomes), so the reasons that name them are read elsewhere:
// - the events not delivered are event_open's rows, by its primary key over the range: the undeletable, those changed
//   since the cutoff, the unacknowledged failures within the maximum (an organization without retention keeps them
//   by the first branch);
// - a delivered one changed since the cutoff was changed by an outcome, which stores its primary attempt in the same
//   statement (relay_record_outcomes; a retry reopens it: event_open), so it has a primary attempt finished since
//   the cutoff: the range's attempts by delivery_attempts' (organization_id, finished_at) index, none or a few for a
//   partition this old. This branch is what catches, under the drop's lock, an event retried and delivered again
//   since the first count. Not seen as kept: a delivered event changed by hand (no attempt), and one whose outcome was
//   recorded after the cutoff for an attempt ended before it (changed right at the cutoff: due at the next run). A
//   hook's or a destination's attempt changes no event (a destination's deliveries are the last branches).
// The events partition is read by name: given the id range on the parent instead, the planner walked the partition's
// whole primary key (250,000 buffers at a million events) for a branch an index of the partition answers. The failed
// deliveries' branch joins the partition too (their events are all in it): joined to the parent, it planned a path
// into every partition of events (3.3 ms of planning with 41 day partitions against 0.58, under the drop's lock).
const keptIds = (table: string) => `
SELECT e.id FROM "${table}" e
WHERE e.organization_id IN (SELECT o.id FROM organizations o WHERE o.id <> ALL($1::uuid[]))
UNION
SELECT o.id FROM event_open o LEFT JOIN ${CUTOFFS} ON c.org = o.organization_id
WHERE ${RANGE('o.id')} AND (o.status IN (${UNDELETABLE}) OR o.updated_at >= ${utc('c.before')}
  OR (o.status = 'failed' AND o.acknowledged_at IS NULL AND o.updated_at >= ${utc('c.unacknowledged_before')}))
UNION
SELECT a.event_id FROM ${CUTOFFS} JOIN delivery_attempts a ON a.organization_id = c.org
WHERE ${RANGE('a.event_id')} AND a.finished_at >= ${utc('c.before')} AND a.kind = 'main'
UNION
SELECT v.event_id FROM deliveries v WHERE ${RANGE('v.event_id')} AND v.status IN ('queued', 'paused')
UNION
SELECT v.event_id FROM deliveries v JOIN "${table}" e ON e.id = v.event_id JOIN ${CUTOFFS} ON c.org = e.organization_id
WHERE ${RANGE('v.event_id')} AND v.status = 'failed' AND v.acknowledged_at IS NULL
  AND v.updated_at >= ${utc('c.unacknowledged_before')}`;
/** The count of the events of partition `table` that retention keeps (parameters: keptParams). */
export const keptCount = (table: string) => `SELECT count(*)::int AS n FROM (${keptIds(table)}) kept`;
// The kept rows' branches must walk their indexes: the planner, seeing a whole partition inside the range, read every
// row of it for a branch (0.8 s at a million events, under the drop's lock) where the index has none.
// And no JIT: the disabled sequential scans' cost pushes the plan past jit_above_cost, and compiling it took 0.4 s
// of the 0.47 s the count took under the lock.
const INDEX_WALKS = 'SET LOCAL enable_seqscan = off; SET LOCAL jit = off';
// The checks Postgres runs as it detaches the events partition (no row of a plain table may still reference it) join
// the small referencing tables to the partition, which it otherwise hashed by reading the partition whole (1.2 s at a
// million events, under the lock) instead of probing its key for each referencing row. (Not for the kept count,
// whose organizations branch then walked the partition.)
const PROBES = 'SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off';

// The plain tables naming events (docs/partitioning.md, "Which tables"), with the column that does: a drop fires no
// trigger, so the range's rows go first, each over its index led by that column (event_open's primary key: the
// range's open rows left are deletable ones, ignored or failed).
export const REFERENCING = [
  ['event_search_escaped', 'event_id'],
  ['event_search_pending', 'event_id'],
  ['event_ordering', 'event_id'],
  ['event_open', 'id'],
] as const;
/** Deletes the rows of `table` naming an event of the id range [$1, $2), by its column `column`. */
export const deleteRange = (table: string, column = 'event_id') =>
  `DELETE FROM ${table} WHERE ${column} >= $1::uuid AND ${column} < $2::uuid`;
// Everything the drop locks, all at once and in one order, since its statements take these locks anyway and a lock
// upgraded half-way invites a deadlock. Checked on Postgres 15: the detaches need ACCESS EXCLUSIVE on each parent
// (LOCK TABLE recurses to every partition, as the drops' trigger removals need), and dropping a partition's foreign
// keys takes ACCESS EXCLUSIVE on the tables at their other end: the plain tables referencing events, destinations (the
// attempts') and organizations (events'). event_open is among the plain tables: the kept count reads it and the
// drop deletes the range's rows. So everything that reads these tables waits for the transaction, which is why only
// index walks run under it.
const LOCKED = [...PARTITIONED_TABLES, ...REFERENCING.map(([table]) => table), 'destinations', 'organizations'];
const LOCK = `LOCK TABLE ${LOCKED.join(', ')} IN ACCESS EXCLUSIVE MODE`;

// What the trigger function relay_unindex_deleted_events does for deleted rows (migration 20261204050000), which a
// DROP does not fire, for a whole dropped range at once: the chunks holding an id of the range are found by their
// ids' spans (a chunk is a row per 100 events; a million ids through the GIN index took 30 s, and testing every
// chunk's ids read the whole history's chunks, migration 20261206100000), tested exactly, then, a batch at a time and
// locked in id order as the trigger does, a chunk all of whose events were in the range is deleted and the others lose
// those ids and are marked stale for the indexer to rebuild.
const IN_RANGE = 'EXISTS (SELECT 1 FROM unnest(c.event_ids) AS x WHERE x >= $1::uuid AND x < $2::uuid)';
const SPAN_MEETS = "relay_uuid_span(c.event_ids) && int8range(relay_uuid_ms($1::uuid), relay_uuid_ms($2::uuid), '[]')";
/** The chunks holding an id of the range [$1, $2), by their spans' index (run with INDEX_WALKS). */
export const CHUNKS_IN_RANGE = `SELECT c.id::text FROM event_search_chunks c WHERE ${SPAN_MEETS} AND ${IN_RANGE}
  ORDER BY c.id`;
const UNINDEX = {
  lock: 'SELECT 1 FROM event_search_chunks WHERE id = ANY ($1::bigint[]) ORDER BY id FOR UPDATE',
  deleteWhole: `DELETE FROM event_search_chunks c WHERE c.id = ANY ($3::bigint[])
    AND NOT EXISTS (SELECT 1 FROM unnest(c.event_ids) AS x WHERE x < $1::uuid OR x >= $2::uuid)`,
  removeIds: `UPDATE event_search_chunks c
    SET event_ids = ARRAY(SELECT x FROM unnest(c.event_ids) AS x WHERE x < $1::uuid OR x >= $2::uuid), stale = true
    WHERE c.id = ANY ($3::bigint[]) AND ${IN_RANGE}`,
};
const UNINDEX_BATCH = 1_000;

// The family's tables by name, for a drop interrupted between its detach and its DROP TABLEs: such a table is no
// partition any more, and the next drop removes it.
const DETACHED = `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = current_schema() AND c.relkind = 'r' AND NOT c.relispartition
    AND c.relname ~ '^(${PARTITIONED_TABLES.join('|')})_(first|p[0-9w]+)$'`;

/** Taken by retention's drops: two workers' runs never drop at once (the second finds it busy). */
const DROP_LOCK = 'partitions:retention';

// A partition up to MAXVALUE is never past retention: refused rather than read as an empty range.
export const idRange = (p: PartitionBounds): [string, string] => {
  if (p.to === null) throw new RangeError('partition retention: a partition without an upper bound');
  return [p.from ?? NIL_UUID, p.to];
};

export const keptParams = (cutoffs: readonly OrganizationCutoffs[], p: PartitionBounds) => [
  cutoffs.map((c) => c.orgId),
  cutoffs.map((c) => c.before.toISOString()),
  cutoffs.map((c) => c.unacknowledgedBefore.toISOString()),
  ...idRange(p),
];

// A lock not had within lock_timeout, or a deadlock with a writer Postgres broke by cancelling this side: both mean
// the tables are busy now, and the next run tries again.
const LOCK_TIMEOUT_CODE = '55P03';
const isBusy = (err: unknown) => [LOCK_TIMEOUT_CODE, '40P01'].includes((err as { code?: string }).code ?? '');

// While the LOCK waits for the writers holding a table, every writer that comes after queues behind it, ingest
// included: each try waits at most LOCK_TIMEOUT (as partition creation does; the writers' own transactions last
// milliseconds, so only a long one, or a long read of organizations or destinations, outlasts it), then lets the
// queue drain for LOCK_PAUSE_MS before the next, LOCK_TRIES in all, then the drop is busy until the next run.
const LOCK_TIMEOUT = '250ms';
const LOCK_TRIES = 3;
const LOCK_PAUSE_MS = 1_000;

/** How the drop waits between its tries for the family's locks (tests inject one that ends the wait they made). */
export interface PartitionRetentionOptions {
  pause?: (ms: number) => Promise<void>;
}

/**
 * Retention by partition (docs/partitioning.md, "Retention by detach, then drop"): counts the rows of a partition
 * past every cutoff that retention keeps, and drops a partition none of whose rows is kept, with its children's.
 */
export function createPartitionRetentionRepository(pool: pg.Pool, options: PartitionRetentionOptions = {}) {
  const pause = options.pause ?? ((ms: number) => sleep(ms));

  /** Takes LOCKED in the open transaction, LOCK_TRIES tries; false: still busy after the last. */
  async function lockFamily(client: pg.PoolClient): Promise<boolean> {
    for (let tried = 1; ; tried++) {
      await client.query('SAVEPOINT family_lock');
      try {
        await client.query(LOCK);
        return true;
      } catch (err) {
        if ((err as { code?: string }).code !== LOCK_TIMEOUT_CODE) throw err;
        await client.query('ROLLBACK TO SAVEPOINT family_lock');
        if (tried === LOCK_TRIES) return false;
        await pause(LOCK_PAUSE_MS);
      }
    }
  }

  return {
    /** How many events of the partition retention keeps (see keptIds). */
    async countKept(cutoffs: readonly OrganizationCutoffs[], partition: PartitionBounds): Promise<number> {
      return withTransaction(pool, async (client) => {
        await client.query(INDEX_WALKS);
        const { rows } = await client.query<{ n: number }>(keptCount(partition.name), keptParams(cutoffs, partition));
        return rows[0]!.n;
      });
    },

    /**
     * Drops the events partition `partition` and the family's partitions of the same range (from `family`). One
     * transaction detaches them: everything its statements lock taken at once (LOCKED), the kept rows counted again
     * under that lock (a retry that made one queued since the first count keeps the partition), the range's rows of
     * the plain referencing tables deleted, then the children's partitions detached and their foreign keys dropped
     * (a detached child still references events, which refuses to detach a partition rows reference) before the
     * events one. No file is removed in it. Each try for the locks waits at most LOCK_TIMEOUT, which bounds how long
     * writers queue behind it; after LOCK_TRIES the drop is busy until the next run. A failure leaves every partition
     * attached. After its commit, the detached events table's rows are counted and the detached tables dropped each
     * in its own transaction, DROP_CONCURRENCY at a time, while the range leaves event_search_chunks (removeDetached).
     */
    async dropPartition(
      cutoffs: readonly OrganizationCutoffs[],
      partition: AttachedPartition,
      family: readonly AttachedPartition[],
    ): Promise<PartitionDropOutcome> {
      const client = await pool.connect();
      let committed = false;
      try {
        // What an interrupted drop left detached goes first.
        const left = (await client.query<{ name: string }>(DETACHED)).rows.map((r) => r.name);
        if (left.length > 0) await dropAllDetached(pool, left);
        await client.query('BEGIN');
        await client.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
        const lock = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS ok', [
          DROP_LOCK,
        ]);
        if (!lock.rows[0]!.ok) {
          await client.query('ROLLBACK');
          return { outcome: 'busy' };
        }
        const range = idRange(partition);
        if (!(await lockFamily(client))) {
          await client.query('ROLLBACK');
          return { outcome: 'busy' };
        }
        await client.query(INDEX_WALKS);
        const { rows } = await client.query<{ n: number }>(keptCount(partition.name), keptParams(cutoffs, partition));
        if (rows[0]!.n > 0) {
          await client.query('ROLLBACK');
          return { outcome: 'kept' };
        }
        const { detached, trimmed } = childrenOf(partition, family);
        for (const [table, column] of REFERENCING) await client.query(deleteRange(table, column), range);
        for (const table of trimmed) await client.query(deleteRange(table), range);
        await client.query(PROBES);
        for (const p of detached) await detach(client, p);
        await client.query('COMMIT');
        committed = true;
        const names = detached.map((p) => p.name);
        return { outcome: 'dropped', events: await removeDetached(pool, partition.name, names, range) };
      } catch (err) {
        if (!committed) await client.query('ROLLBACK').catch(() => {});
        if (!committed && isBusy(err)) return { outcome: 'busy' };
        throw err;
      } finally {
        client.release();
      }
    },
  };
}

async function unindex(pool: pg.Pool, range: [string, string]): Promise<void> {
  const chunks = await withTransaction(pool, async (client) => {
    await client.query(INDEX_WALKS);
    return (await client.query<{ id: string }>(CHUNKS_IN_RANGE, range)).rows.map((r) => r.id);
  });
  for (let i = 0; i < chunks.length; i += UNINDEX_BATCH) {
    const batch = chunks.slice(i, i + UNINDEX_BATCH);
    await withTransaction(pool, async (client) => {
      await client.query(UNINDEX.lock, [batch]);
      await client.query(UNINDEX.deleteWhole, [...range, batch]);
      await client.query(UNINDEX.removeIds, [...range, batch]);
    });
  }
}

/**
 * After a drop's detach: the detached events table's rows (what retention counts as deleted) are counted where no
 * writer reaches them (a day can hold a million, 0.35 s to count when no longer cached, which counting before the
 * detach added to the step), then the detached tables go, DROP_CONCURRENCY at a time (the events partition first, the
 * largest in rows), while the range leaves the search chunks (the step's longest part where files are removed fast);
 * at most DROP_CONCURRENCY + 1 pool connections, since the pool also serves deliveries. Answers the count.
 */
export async function removeDetached(
  pool: pg.Pool,
  events: string,
  names: readonly string[],
  range: [string, string],
): Promise<number> {
  const ordered = [...names].sort((a, b) => Number(b === events) - Number(a === events));
  const countedThenDropped = countSerially(pool, events).then(async (counted) => {
    await dropAllDetached(pool, ordered);
    return counted;
  });
  const [held, unindexed] = await Promise.allSettled([countedThenDropped, unindex(pool, range)]);
  if (held.status === 'rejected') throw held.reason;
  if (unindexed.status === 'rejected') throw unindexed.reason;
  return held.value;
}

const lower = (p: PartitionBounds) => p.from ?? NIL_UUID;
// Upper bounds compare as uuids (null: MAXVALUE, above every one).
const below = (bound: string, upper: string | null) => upper === null || bound < upper;
const overlaps = (a: PartitionBounds, b: PartitionBounds) => below(lower(a), b.to) && below(lower(b), a.to);

/**
 * What dropping the events partition `partition` does to each child table's partitions overlapping its range. A child
 * partition that no other events partition overlaps is detached with it (with events' bounds: the same range; a wider
 * one, such as deliveries' first partition from their upgrade, once the last events partition it spans goes: its rows
 * of earlier ranges went with their partitions' drops). A child whose overlapping partition spans other events
 * partitions still attached has the range's rows deleted from it instead (`trimmed`), as the plain tables do.
 */
export function childrenOf(
  partition: AttachedPartition,
  family: readonly AttachedPartition[],
): { detached: AttachedPartition[]; trimmed: string[] } {
  const otherEvents = family.filter((f) => f.table === 'events' && f.name !== partition.name);
  const detached: AttachedPartition[] = [];
  const trimmed = new Set<string>();
  for (const child of family) {
    if (child.table === 'events' || !overlaps(child, partition)) continue;
    if (otherEvents.some((e) => overlaps(e, child))) trimmed.add(child.table);
    else detached.push(child);
  }
  return { detached: detached.concat(partition), trimmed: [...trimmed] };
}

/**
 * The detached events table's rows, counted by one backend: a parallel count of a million took both cores of a small
 * machine for 0.15 s, while ingest's statements waited for one (`pnpm bench --retention`'s timeline).
 */
function countSerially(pool: pg.Pool, table: string): Promise<number> {
  return withTransaction(pool, async (client) => {
    await client.query('SET LOCAL max_parallel_workers_per_gather = 0');
    const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table}"`);
    return rows[0]!.n;
  });
}

async function detach(client: pg.PoolClient, p: AttachedPartition): Promise<void> {
  await client.query(`ALTER TABLE "${p.table}" DETACH PARTITION "${p.name}"`);
  await dropOwnForeignKeys(client, p.name);
}

export type PartitionRetentionRepository = ReturnType<typeof createPartitionRetentionRepository>;
