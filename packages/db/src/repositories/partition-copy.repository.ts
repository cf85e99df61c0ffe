import type pg from 'pg';
import { PARTITION_MAINTENANCE_LOCK } from './partition-retention.repository';
import { PARTITIONED_TABLES } from './partition.repository';

/** Where the upgrade's copy stands: the legacy partitions are gone, still hold rows, or are empty but attached. */
export type LegacyState = { state: 'absent' } | { state: 'copying'; remaining: number; oldest: Date | null };

/** What a try to drop the emptied legacy partitions came to. */
export type LegacyDropOutcome = 'dropped' | 'not_empty' | 'busy' | 'absent';

// The legacy partition's bound (the conversion migration's): every row below it has not been moved yet.
const LEGACY_BELOW = `'2000-01-02 00:00:00'`;

// One batch of the copy: the next `$2` legacy events after the cursor `$1` (by id, over the legacy table's own
// primary key), locked SKIP LOCKED so a delivery recording an outcome is never waited for (its event is moved by
// a later pass), and moved to the partition of their created_at by one UPDATE of the parent. Postgres 15 runs a
// row's move to another partition as an UPDATE for the foreign keys, whose ON UPDATE CASCADE moves its deliveries,
// attempts, search, pending and ordering rows in the same statement: nothing is copied twice, nothing deleted.
// `partition_at < LEGACY_BELOW` prunes the UPDATE to the legacy partition, and the ids as an array make it probe
// the primary key for each (a join would scan the legacy table once per batch).
const MOVE_BATCH = `
WITH batch AS (
  SELECT id FROM events_legacy WHERE $1::uuid IS NULL OR id > $1::uuid ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED
), moved AS (
  UPDATE events e SET partition_at = e.created_at
  WHERE e.partition_at < ${LEGACY_BELOW} AND e.id = ANY (ARRAY(SELECT id FROM batch))
  RETURNING 1
)
SELECT (SELECT count(*) FROM moved)::int AS moved, (SELECT id FROM batch ORDER BY id DESC LIMIT 1) AS last_id`;

const legacyName = (table: string) => `${table}_legacy`;

/**
 * The online upgrade's background copy (docs/partitioning.md "Online upgrade"): the conversion migration attached
 * the old tables as the legacy partitions in place, so every read already sees old and new rows through the
 * parents; this moves the legacy rows into their periods' partitions in batches, then drops the emptied legacy
 * partitions.
 */
export function createPartitionCopyRepository(pool: pg.Pool) {
  return {
    async state(): Promise<LegacyState> {
      const { rows } = await pool.query<{ present: boolean }>(
        `SELECT to_regclass('events_legacy') IS NOT NULL AS present`,
      );
      if (!rows[0]!.present) return { state: 'absent' };
      const { rows: counted } = await pool.query<{ remaining: number; oldest: Date | null }>(
        `SELECT count(*)::int AS remaining, min(created_at) AS oldest FROM events_legacy`,
      );
      return { state: 'copying', ...counted[0]! };
    },

    /**
     * Runs `fn` holding the partition maintenance lock (retention's drops take it too), on a connection of its
     * own; null when another process holds it.
     */
    async withLock<T>(fn: () => Promise<T>): Promise<T | null> {
      const client = await pool.connect();
      try {
        const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [
          PARTITION_MAINTENANCE_LOCK,
        ]);
        if (!rows[0]!.ok) return null;
        try {
          return await fn();
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [PARTITION_MAINTENANCE_LOCK]);
        }
      } finally {
        client.release();
      }
    },

    /** Moves up to `limit` legacy events after `afterId` (null: from the first); `lastId` null: none left after. */
    async moveBatch(afterId: string | null, limit: number): Promise<{ moved: number; lastId: string | null }> {
      const { rows } = await pool.query<{ moved: number; last_id: string | null }>(MOVE_BATCH, [afterId, limit]);
      return { moved: rows[0]!.moved, lastId: rows[0]!.last_id };
    },

    /**
     * Detaches and drops the legacy partitions once they are all empty (children first), in one transaction with
     * lock_timeout: an empty table's detach checks nothing, so the parents' ACCESS EXCLUSIVE lasts milliseconds.
     */
    async dropLegacy(): Promise<LegacyDropOutcome> {
      const client = await pool.connect();
      try {
        const { rows } = await client.query<{ present: boolean }>(
          `SELECT to_regclass('events_legacy') IS NOT NULL AS present`,
        );
        if (!rows[0]!.present) return 'absent';
        await client.query('BEGIN');
        await client.query("SET LOCAL lock_timeout = '2s'");
        // Every parent at once, events first as writers take them (see partition-retention.repository.ts).
        await client.query(`LOCK TABLE ${PARTITIONED_TABLES.join(', ')} IN ACCESS EXCLUSIVE MODE`);
        for (const table of PARTITIONED_TABLES) {
          const { rows: any } = await client.query(`SELECT 1 FROM ${legacyName(table)} LIMIT 1`);
          if (any.length > 0) {
            await client.query('ROLLBACK');
            return 'not_empty';
          }
        }
        for (const table of [...PARTITIONED_TABLES].reverse()) {
          await client.query(`ALTER TABLE ${table} DETACH PARTITION ${legacyName(table)}`);
          await client.query(`DROP TABLE ${legacyName(table)}`);
        }
        await client.query('COMMIT');
        return 'dropped';
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        if ((err as { code?: string }).code === '55P03') return 'busy';
        throw err;
      } finally {
        client.release();
      }
    },
  };
}

export type PartitionCopyRepository = ReturnType<typeof createPartitionCopyRepository>;
