import type pg from 'pg';

/** A scan a statement's plan ran: its node, its table (a partition counts as its partitioned table) and index. */
export interface PlanScan {
  node: string;
  table: string;
  index: string | null;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Loops'?: number;
  'Subplan Name'?: string;
  Plans?: PlanNode[];
}

// Each table's and index's table, a partition's (and its indexes') being its partitioned table.
const tablesOf = async (pool: pg.Pool) => {
  const { rows } = await pool.query<{ name: string; parent: string }>(
    `WITH parent AS (
       SELECT c.oid, coalesce((SELECT p.relname FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent
         WHERE i.inhrelid = c.oid), c.relname) AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p'))
     SELECT c.relname AS name, parent.name AS parent FROM parent JOIN pg_class c ON c.oid = parent.oid
     UNION ALL
     SELECT ic.relname, parent.name FROM pg_index x JOIN parent ON parent.oid = x.indrelid
       JOIN pg_class ic ON ic.oid = x.indexrelid`,
  );
  return new Map(rows.map((r) => [r.name, r.parent]));
};

// The scans a statement ran (EXPLAIN ANALYZE: a node the plan has but never executed is left out). An empty
// partition is planned as a sequential scan of no pages, and run-time pruning skips it when events are looked up
// by id: only what ran says whether the statement read a table beyond its primary key. `subplan`: only the scans
// of that part of the plan (`CTE recent`).
export async function planScans(pool: pg.Pool, sql: string, params: unknown[], subplan?: string): Promise<PlanScan[]> {
  const tables = await tablesOf(pool);
  const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
    params,
  );
  const scans: PlanScan[] = [];
  const walk = (node: PlanNode, within: boolean) => {
    const named = node['Relation Name'] ?? node['Index Name'];
    if (within && named !== undefined && (node['Actual Loops'] ?? 0) > 0)
      scans.push({ node: node['Node Type'], table: tables.get(named) ?? named, index: node['Index Name'] ?? null });
    node.Plans?.forEach((child) => walk(child, within || child['Subplan Name'] === subplan));
  };
  const plan = rows[0]!['QUERY PLAN'][0].Plan;
  walk(plan, subplan === undefined || plan['Subplan Name'] === subplan);
  return scans;
}

/** A pool that remembers each statement it is asked, for the tests of the statements a repository builds. */
export function recordingPool(pool: pg.Pool): { pool: pg.Pool; statements: { sql: string; params: unknown[] }[] } {
  const statements: { sql: string; params: unknown[] }[] = [];
  const recording = {
    query: (sql: string, params?: unknown[]) => {
      statements.push({ sql, params: params ?? [] });
      return pool.query(sql, params);
    },
  };
  return { pool: recording as unknown as pg.Pool, statements };
}
