import { partitionBoundLiteral, partitionName, type PartitionRange } from '@relay/core';
import type pg from 'pg';

/**
 * The partitioned family (docs/partitioning.md), parent first: a child partition's foreign key needs its events
 * partition, so ranges are attached in this order and detached in the reverse one.
 */
export const PARTITIONED_TABLES = ['events', 'deliveries', 'delivery_attempts', 'event_search'] as const;
export type PartitionedTable = (typeof PARTITIONED_TABLES)[number];

/** An attached partition of a family table; `from` null: unbounded below (the upgrade's legacy partition). */
export interface AttachedPartition {
  table: PartitionedTable;
  name: string;
  from: Date | null;
  to: Date;
}

// A range bound as pg_get_expr prints it: FOR VALUES FROM ('2026-12-03 00:00:00') TO ('2026-12-04 00:00:00'),
// or FROM (MINVALUE) for the legacy partition.
const BOUND = /FROM \((MINVALUE|'[^']+')\) TO \('([^']+)'\)/;
const utc = (literal: string) => new Date(`${literal.replace(' ', 'T')}Z`);

const LIST = `
SELECT p.relname AS parent, c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
WHERE p.relname = ANY($1::text[]) AND p.relnamespace = 'public'::regnamespace
ORDER BY 1, 2`;

/** What ensure() did: the partitions it attached, by name. */
export interface EnsureResult {
  created: string[];
}

/**
 * Creates and attaches the partitions a plan asks for (partitionsToEnsure in partition-plan.ts). A planned range
 * that overlaps an existing partition (PARTITION_PERIOD was changed) starts at that partition's end instead, so
 * ranges never overlap; nothing is left to create once its start reaches its end.
 */
export function createPartitionRepository(pool: pg.Pool) {
  async function list(): Promise<AttachedPartition[]> {
    const { rows } = await pool.query<{ parent: PartitionedTable; name: string; bound: string }>(LIST, [
      PARTITIONED_TABLES,
    ]);
    return rows.flatMap((r) => {
      const m = BOUND.exec(r.bound);
      if (!m) return [];
      return [
        { table: r.parent, name: r.name, from: m[1] === 'MINVALUE' ? null : utc(m[1]!.slice(1, -1)), to: utc(m[2]!) },
      ];
    });
  }

  // Created as a plain table, then attached: ATTACH takes SHARE UPDATE EXCLUSIVE on the parent, so ingest and
  // delivery go on (CREATE TABLE ... PARTITION OF would take ACCESS EXCLUSIVE). The table is empty, so attaching
  // scans nothing. lock_timeout: a long reader of the parent makes this give up (retried by the next run) rather
  // than queue every writer behind it. One transaction per table: a failure leaves no unattached table behind.
  async function attach(table: PartitionedTable, name: string, from: Date, to: Date): Promise<void> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query("SET LOCAL lock_timeout = '2s'");
      await client.query(`CREATE TABLE "${name}" (LIKE "${table}" INCLUDING DEFAULTS)`);
      await client.query(
        `ALTER TABLE "${table}" ATTACH PARTITION "${name}" FOR VALUES FROM ('${partitionBoundLiteral(from)}') TO ('${partitionBoundLiteral(to)}')`,
      );
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  return {
    list,

    async ensure(plan: readonly PartitionRange[]): Promise<EnsureResult> {
      const existing = await list();
      const created: string[] = [];
      for (const table of PARTITIONED_TABLES) {
        const mine = existing.filter((p) => p.table === table);
        for (const range of plan) {
          let from = range.from.getTime();
          const to = range.to.getTime();
          // Oldest first, so one pass moves the start past every partition it runs into.
          mine.sort((a, b) => (a.from?.getTime() ?? -Infinity) - (b.from?.getTime() ?? -Infinity));
          for (const p of mine)
            if ((p.from?.getTime() ?? -Infinity) < to && p.to.getTime() > from) from = Math.max(from, p.to.getTime());
          if (from >= to) continue;
          const name = partitionName(table, range);
          await attach(table, name, new Date(from), new Date(to));
          mine.push({ table, name, from: new Date(from), to: new Date(to) });
          created.push(name);
        }
      }
      return { created };
    },

    /**
     * The end of the newest partition that every family table has (null: none): ingest can store events up to
     * this instant.
     */
    async coveredUntil(): Promise<Date | null> {
      const all = await list();
      const ends = PARTITIONED_TABLES.map((t) =>
        Math.max(...all.filter((p) => p.table === t && p.from !== null).map((p) => p.to.getTime())),
      );
      const until = Math.min(...ends);
      return Number.isFinite(until) ? new Date(until) : null;
    },

    /**
     * Statistics of the partitioned parents: autovacuum analyses only the partitions, never a parent, whose
     * statistics the planner uses for joins and estimates across partitions.
     */
    async analyzeParents(): Promise<void> {
      await pool.query(`ANALYZE ${PARTITIONED_TABLES.join(', ')}`);
    },
  };
}

export type PartitionRepository = ReturnType<typeof createPartitionRepository>;
