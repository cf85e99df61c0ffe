import { partitionBoundId, partitionName, type PartitionRange } from '@relay/core';
import type pg from 'pg';
import { withTransaction } from '../transaction';

/**
 * The partitioned history (docs/partitioning.md), parent first: `events` by RANGE (id), its children by RANGE
 * (event_id), all with the same bounds, so an event, its attempts, search keys, payload and deliveries share a
 * period (deliveries' first partition, from their upgrade, spans several of events').
 */
export const PARTITIONED_TABLES = [
  'events',
  'delivery_attempts',
  'event_search_keys',
  'event_payloads',
  'deliveries',
] as const;
export type PartitionedTable = (typeof PARTITIONED_TABLES)[number];

/** An attached partition; `from` null: MINVALUE (the migration's `<table>_first`), `to` null: MAXVALUE. */
export interface AttachedPartition {
  table: PartitionedTable;
  name: string;
  from: string | null;
  to: string | null;
}

const UUID = "'([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})'";
// A range bound as pg_get_expr prints it: FOR VALUES FROM (MINVALUE) TO ('01a24dcc-d800-0000-0000-000000000000').
const BOUND = new RegExp(`^FOR VALUES FROM \\((?:MINVALUE|${UUID})\\) TO \\((?:MAXVALUE|${UUID})\\)$`);

const LIST = `
SELECT p.relname AS parent, c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
WHERE i.inhparent = ANY($1::regclass[])
ORDER BY 1, 2`;

async function listOf(db: pg.Pool | pg.PoolClient, tables: readonly PartitionedTable[]): Promise<AttachedPartition[]> {
  const { rows } = await db.query<{ parent: PartitionedTable; name: string; bound: string }>(LIST, [tables]);
  return rows.map((r) => {
    const m = BOUND.exec(r.bound);
    // A DEFAULT partition (docs/partitioning.md: there is none by design) or another key would make every range
    // below meaningless: refused loudly rather than guessed around.
    if (!m) throw new Error(`partition ${r.name} of ${r.parent} has an unexpected bound: ${r.bound}`);
    return { table: r.parent, name: r.name, from: m[1] ?? null, to: m[2] ?? null };
  });
}

/** Where a table's partitions end: the largest upper bound (null: MAXVALUE, everything covered; none: undefined). */
function latestEnd(partitions: readonly AttachedPartition[]): string | null | undefined {
  let end: string | undefined;
  for (const p of partitions) {
    if (p.to === null) return null;
    if (end === undefined || p.to > end) end = p.to;
  }
  return end;
}

/** One partition ensurePartitions attached: its bounds as uuids (clipped, so maybe not its period's start). */
export interface CreatedPartition {
  table: PartitionedTable;
  name: string;
  from: string;
  to: string;
}

// An outcome's update of an event changes no indexed column (migration 20261207100000_hot_outcomes): the room a
// fillfactor of 70 leaves on each page lets it be a HOT update, with no new entry in any index.
const PARTITION_OPTIONS: Partial<Record<PartitionedTable, string>> = { events: ' WITH (fillfactor = 70)' };

/** How long a run waits for the tables its DDL locks (writers queue behind it meanwhile). */
const DDL_LOCK_TIMEOUT = '250ms';
/** How long a run waits for another run on the same table to finish (a few DDL statements, each bounded above). */
const TURN_TIMEOUT = '60s';

export function createPartitionRepository(pool: pg.Pool) {
  // One transaction per table. The partition is created as a plain table, then attached: ATTACH takes SHARE UPDATE
  // EXCLUSIVE on the parent, where CREATE TABLE ... PARTITION OF would take ACCESS EXCLUSIVE, and the table is empty,
  // so nothing is scanned. Attaching still adds the foreign keys' triggers, which takes SHARE ROW EXCLUSIVE on the
  // tables at their other end (for events: deliveries, the attempts, search and ordering rows, organizations; for a
  // child: events' partitions), so writers there queue behind it while it waits for theirs. A short lock_timeout
  // bounds that queue (the writers' own transactions last milliseconds); a busy minute makes it give up, retried next
  // hour, with a week of partitions ahead. The advisory lock makes two workers' runs (a start and a scheduled one)
  // take turns, the second then finding the first's partitions instead of failing on their names. Waiting for it is
  // not the queue above (no writer waits behind an advisory lock), and the other run can hold it past 250 ms on a
  // busy machine (CI failed a second worker's start that way), so that wait has its own, longer bound.
  async function ensureTable(table: PartitionedTable, ranges: readonly PartitionRange[]): Promise<CreatedPartition[]> {
    return withTransaction(pool, async (client) => {
      await client.query(`SET LOCAL lock_timeout = '${TURN_TIMEOUT}'`);
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`partitions:${table}`]);
      await client.query(`SET LOCAL lock_timeout = '${DDL_LOCK_TIMEOUT}'`);
      let end = latestEnd(await listOf(client, [table]));
      const created: CreatedPartition[] = [];
      for (const range of ranges) {
        if (end === null) break;
        // A range starting before the latest end (the period changed; the migration's days under a week period)
        // starts at that end instead, so ranges never overlap; wholly covered, it is skipped.
        const wanted = partitionBoundId(range.from);
        const from = end !== undefined && wanted < end ? end : wanted;
        const to = partitionBoundId(range.to);
        if (from >= to) continue;
        const name = partitionName(table, range);
        await client.query(
          `CREATE TABLE "${name}" (LIKE "${table}" INCLUDING DEFAULTS INCLUDING STORAGE)${PARTITION_OPTIONS[table] ?? ''}`,
        );
        await client.query(
          `ALTER TABLE "${table}" ATTACH PARTITION "${name}" FOR VALUES FROM ('${from}') TO ('${to}')`,
        );
        created.push({ table, name, from, to });
        end = to;
      }
      return created;
    });
  }

  return {
    /** Every partition of the family's parents, by table and name. */
    listPartitions: () => listOf(pool, PARTITIONED_TABLES),

    /**
     * Creates and attaches, for each family table, the ranges (partitionsToEnsure in partition-plan.ts) its
     * partitions do not reach yet. Events first: a child's partition then never covers ids events has no
     * partition for. Running it again creates nothing.
     */
    async ensurePartitions(ranges: readonly PartitionRange[]): Promise<CreatedPartition[]> {
      const sorted = [...ranges].sort((a, b) => a.from.getTime() - b.from.getTime());
      const created: CreatedPartition[] = [];
      for (const table of PARTITIONED_TABLES) created.push(...(await ensureTable(table, sorted)));
      return created;
    },

    /**
     * The parents' statistics: autovacuum analyses partitions, never a partitioned parent, whose statistics the
     * planner uses for estimates across partitions (docs/partitioning.md).
     */
    async analyzeParents(): Promise<void> {
      await pool.query(`ANALYZE ${PARTITIONED_TABLES.join(', ')}`);
    },
  };
}

export type PartitionRepository = ReturnType<typeof createPartitionRepository>;
