import { EVENT_STATUSES, type OrgId } from '@relay/core';
import type pg from 'pg';
import { PARTITIONED_TABLES, type AttachedPartition } from './partition.repository';
import type { EventCutoffs } from './retention.repository';

/** One organization's cutoffs; an organization not listed keeps everything. */
export interface OrganizationCutoffs extends EventCutoffs {
  orgId: OrgId;
}

/** What dropping a partition came to. `kept`: a row of it is kept after all; `busy`: a lock was not had in time. */
/** `dropped` with the number of events the partition held (retention counts them as deleted), else why not. */
export type PartitionDropOutcome = { outcome: 'dropped'; events: number } | { outcome: 'kept' | 'busy' };

/** Taken by retention's drops and the upgrade's copy out of the legacy partition: never both at once. */
export const PARTITION_MAINTENANCE_LOCK = 0x72_70_61_72; // 'rpar'

// The events of one partition ($4, $5: its bounds) that retention keeps: of an organization that keeps
// everything, last changed after its cutoff, or not deletable (queued, paused, ordering-blocked (queued),
// unacknowledged failures within the hard maximum, or a delivery of theirs is). The negation of the row deletes'
// DELETABLE_EVENT, written as a union of branches that each walk an index of the partition, because it is counted
// while retention's drop holds the family's tables: as one filter it read every row of the partition (a million
// events: ~10 s, with ingest waiting behind the lock: `pnpm bench --retention`).
const RANGE = (t: string) =>
  `${t}.partition_at >= ($4::timestamptz AT TIME ZONE 'UTC') AND ${t}.partition_at < ($5::timestamptz AT TIME ZONE 'UTC')`;
// Every status retention never deletes, however old: all but the deletable ones, so a status added later is kept.
const UNDELETABLE = EVENT_STATUSES.filter((s) => !['delivered', 'ignored', 'failed'].includes(s))
  .map((s) => `'${s}'`)
  .join(', ');
const CUTOFFS = `unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[]) AS c(org, before, unacknowledged_before)`;
const KEPT_IDS = `
SELECT e.id, e.partition_at FROM events e
WHERE ${RANGE('e')} AND e.organization_id IN (SELECT o.id FROM organizations o WHERE o.id <> ALL($1::uuid[]))
UNION
SELECT e.id, e.partition_at FROM ${CUTOFFS} JOIN events e ON e.organization_id = c.org
WHERE ${RANGE('e')} AND e.updated_at >= (c.before AT TIME ZONE 'UTC')
UNION
SELECT e.id, e.partition_at FROM events e WHERE ${RANGE('e')} AND e.status IN (${UNDELETABLE})
UNION
SELECT e.id, e.partition_at FROM ${CUTOFFS} JOIN events e ON e.organization_id = c.org
WHERE ${RANGE('e')} AND e.status = 'failed' AND e.acknowledged_at IS NULL
  AND e.updated_at >= (c.unacknowledged_before AT TIME ZONE 'UTC')
UNION
SELECT v.event_id, v.partition_at FROM deliveries v WHERE ${RANGE('v')} AND v.status IN (${UNDELETABLE})
UNION
SELECT v.event_id, v.partition_at FROM ${CUTOFFS} JOIN deliveries v ON v.organization_id = c.org
WHERE ${RANGE('v')} AND v.status = 'failed' AND v.acknowledged_at IS NULL
  AND v.updated_at >= (c.unacknowledged_before AT TIME ZONE 'UTC')`;
const COUNT_KEPT = `SELECT count(*)::int AS n FROM (${KEPT_IDS}) kept`;

const params = (cutoffs: readonly OrganizationCutoffs[], p: Pick<AttachedPartition, 'from' | 'to'>) => [
  cutoffs.map((c) => c.orgId),
  cutoffs.map((c) => c.before.toISOString()),
  cutoffs.map((c) => c.unacknowledgedBefore.toISOString()),
  p.from!.toISOString(),
  p.to.toISOString(),
];

const isLockTimeout = (err: unknown) => (err as { code?: string }).code === '55P03';

/**
 * Retention by partition (docs/partitioning.md "Retention by detach, then drop"): counts the rows of an old
 * partition retention keeps, moves a few of them to the current partition, and drops a partition none of whose
 * rows is kept, with its children's partitions.
 */
export function createPartitionRetentionRepository(pool: pg.Pool) {
  return {
    async countKept(cutoffs: readonly OrganizationCutoffs[], partition: AttachedPartition): Promise<number> {
      const { rows } = await pool.query<{ n: number }>(COUNT_KEPT, params(cutoffs, partition));
      return rows[0]!.n;
    },

    /**
     * Moves up to `limit` kept events of the partition into the current one (partition_at = now; created_at and
     * updated_at unchanged, so the API and retention see the same event). The composite foreign keys' ON UPDATE
     * CASCADE takes their deliveries, attempts, search, pending and ordering rows along in the same statement.
     * Rows a delivery holds are skipped (SKIP LOCKED) and found again by the recount before the drop.
     */
    async moveKept(cutoffs: readonly OrganizationCutoffs[], partition: AttachedPartition, limit: number) {
      const result = await pool.query(
        `UPDATE events m SET partition_at = now() AT TIME ZONE 'UTC'
         FROM (SELECT e.id, e.partition_at FROM (${KEPT_IDS}) kept
           JOIN events e ON e.id = kept.id AND e.partition_at = kept.partition_at
           LIMIT $6 FOR UPDATE OF e SKIP LOCKED) k
         WHERE m.id = k.id AND m.partition_at = k.partition_at`,
        [...params(cutoffs, partition), limit],
      );
      return result.rowCount ?? 0;
    },

    /**
     * Drops the partition of every family table for `partition`'s range, in one transaction: the parents are
     * locked (DETACH without CONCURRENTLY needs ACCESS EXCLUSIVE on each), the partition's kept rows are counted
     * again under that lock (a retry that made one queued since the first count keeps the partition), the
     * pending-search and ordering rows of its events are deleted, then the children's partitions are detached and
     * dropped before the events one (Postgres refuses to detach an events partition still referenced). The family
     * waits for the transaction's milliseconds (plus the recount of one old partition); lock_timeout bounds how
     * long writers can queue behind it, and a busy table makes the drop wait for the next run. All or nothing: a
     * failure leaves the partitions attached.
     */
    async dropPartition(
      cutoffs: readonly OrganizationCutoffs[],
      partition: AttachedPartition,
      family: readonly AttachedPartition[],
    ): Promise<PartitionDropOutcome> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query("SET LOCAL lock_timeout = '2s'");
        const { rows: lock } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [
          PARTITION_MAINTENANCE_LOCK,
        ]);
        if (!lock[0]!.ok) {
          await client.query('ROLLBACK');
          return { outcome: 'busy' };
        }
        // What the drop deletes, for retention's totals and relay_retention_deleted_total, counted before the lock
        // below (a million rows take a second or more to count): no row can enter a past partition meanwhile (the
        // upgrade's copy waits for the advisory lock), so at most an operator's delete of one of them is miscounted.
        const { rows: held } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${partition.name}"`);
        // The detaches need ACCESS EXCLUSIVE on each parent: taken at once, events first as writers take them (one
        // by one, a writer holding one parent and waiting for another could deadlock with this). From here until
        // the commit the family's reads and writes wait (the kept rows' recount over the partition's indexes and
        // the catalog changes: `pnpm bench --retention`); nothing can make a row kept meanwhile.
        await client.query(`LOCK TABLE ${PARTITIONED_TABLES.join(', ')} IN ACCESS EXCLUSIVE MODE`);
        const { rows } = await client.query<{ n: number }>(COUNT_KEPT, params(cutoffs, partition));
        if (rows[0]!.n > 0) {
          await client.query('ROLLBACK');
          return { outcome: 'kept' };
        }
        for (const table of ['event_search_pending', 'event_ordering'])
          await client.query(
            `DELETE FROM ${table} t USING "${partition.name}" e WHERE t.event_id = e.id AND t.partition_at = e.partition_at`,
          );
        for (const table of [...PARTITIONED_TABLES].reverse()) {
          const same = family.filter(
            (p) =>
              p.table === table &&
              p.from?.getTime() === partition.from?.getTime() &&
              p.to.getTime() === partition.to.getTime(),
          );
          for (const p of same) {
            await client.query(`ALTER TABLE "${table}" DETACH PARTITION "${p.name}"`);
            await client.query(`DROP TABLE "${p.name}"`);
          }
        }
        await client.query('COMMIT');
        return { outcome: 'dropped', events: held[0]!.n };
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        if (isLockTimeout(err)) return { outcome: 'busy' };
        throw err;
      } finally {
        client.release();
      }
    },
  };
}

export type PartitionRetentionRepository = ReturnType<typeof createPartitionRetentionRepository>;
