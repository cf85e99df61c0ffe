import type pg from 'pg';

/** What `keptPlanScans` counted: sequential scans per table (only the tables that had any), index scans in all. */
export interface KeptPlanScans<T> {
  answer: T;
  seq: Record<string, number>;
  idx: number;
}

// A partitioned table's statistics are its partitions': each table counts with all of its own (pg_partition_tree
// answers nothing for a plain table, which counts itself).
const counts = async (client: pg.PoolClient, tables: readonly string[]) => {
  const { rows } = await client.query<{ relname: string; seq: number; idx: number }>(
    `SELECT t.name AS relname, sum(s.seq_scan)::int AS seq, coalesce(sum(s.idx_scan), 0)::int AS idx
     FROM unnest($1::text[]) t(name)
     JOIN pg_stat_xact_user_tables s ON s.relid = t.name::regclass
       OR s.relid IN (SELECT relid FROM pg_partition_tree(t.name::regclass))
     GROUP BY t.name`,
    [tables],
  );
  return new Map(rows.map((r) => [r.relname, r]));
};

// For the tests of the statements whose plans each connection keeps (event.sql.ts, delivery-statement.sql.ts): a plan
// kept while the tables are small must still look rows up by index. Runs `work` in a transaction (rolled back) where
// plan_cache_mode = force_generic_plan makes Postgres keep a plan from the first call, as the functions themselves
// declare (migration 20261205700000_generic_plans), and answers the scans of `tables` it made.
// `check` runs after they are counted, in the same transaction.
export async function keptPlanScans<T>(
  pool: pg.Pool,
  tables: readonly string[],
  work: (client: pg.PoolClient) => Promise<T>,
  check?: (client: pg.PoolClient) => Promise<unknown>,
): Promise<KeptPlanScans<T>> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
    const before = await counts(client, tables);
    const answer = await work(client);
    const after = await counts(client, tables);
    await check?.(client);
    await client.query('ROLLBACK');
    const seq: Record<string, number> = {};
    let idx = 0;
    for (const [table, now] of after) {
      const was = before.get(table) ?? { seq: 0, idx: 0 };
      if (now.seq > was.seq) seq[table] = now.seq - was.seq;
      idx += now.idx - was.idx;
    }
    return { answer, seq, idx };
  } finally {
    client.release();
  }
}

// Index entries read on `table` since the last call, as the statistics have them once this backend has flushed its
// own: pg_stat_force_next_flush makes the flush happen as the backend goes idle after it, which the second query
// waits for.
async function indexEntriesRead(client: pg.PoolClient, table: string): Promise<number> {
  await client.query('SELECT pg_stat_force_next_flush()');
  await client.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await client.query<{ n: number }>(
    `SELECT coalesce(sum(idx_tup_read), 0)::int AS n FROM pg_stat_user_indexes
     WHERE relid = $1::regclass OR relid IN (SELECT relid FROM pg_partition_tree($1::regclass))`,
    [table],
  );
  return rows[0]!.n;
}

/**
 * Runs `work` as `keptPlanScans` does (its kept plans made at once, rolled back) and answers how many index entries
 * of `table` it read: a kept plan may look rows up by index and still read a whole index (a bitmap of every queued
 * row ANDed with the one it wants), which only the entries read show.
 */
export async function keptPlanIndexReads<T>(
  pool: pg.Pool,
  table: string,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<{ answer: T; read: number }> {
  const client = await pool.connect();
  try {
    const before = await indexEntriesRead(client, table);
    await client.query('BEGIN');
    await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
    const answer = await work(client);
    await client.query('ROLLBACK');
    return { answer, read: (await indexEntriesRead(client, table)) - before };
  } finally {
    client.release();
  }
}
