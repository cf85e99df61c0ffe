import type pg from 'pg';

/** A scan a statement's plan ran: its node, its table (a partition counts as its partitioned table) and index. */
export interface PlanScan {
  node: string;
  table: string;
  index: string | null;
}

/** A node of a plan as `EXPLAIN (FORMAT JSON)` gives it. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Actual Loops'?: number;
  'Subplan Name'?: string;
  Plans?: PlanNode[];
}

/** A pool, or one of its clients holding a transaction's settings (`SET LOCAL enable_seqscan = off`). */
type Queryable = Pick<pg.ClientBase, 'query'>;

/**
 * Every node of a statement's plan, each with its children still attached, or only those of its part named
 * `subplan` (`CTE batch`) and below. Plain EXPLAIN unless `analyze`: nothing runs, so a write can be planned too.
 */
export async function planNodes(
  db: Queryable,
  sql: string,
  params: unknown[] = [],
  { subplan, analyze = false }: { subplan?: string; analyze?: boolean } = {},
): Promise<PlanNode[]> {
  const { rows } = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `EXPLAIN (${analyze ? 'ANALYZE, ' : ''}FORMAT JSON) ${sql}`,
    params,
  );
  const nodes: PlanNode[] = [];
  const walk = (node: PlanNode, within: boolean) => {
    const inside = within || node['Subplan Name'] === subplan;
    if (inside) nodes.push(node);
    node.Plans?.forEach((child) => walk(child, inside));
  };
  walk(rows[0]!['QUERY PLAN'][0].Plan, subplan === undefined);
  if (subplan !== undefined && nodes.length === 0) throw new Error(`no ${subplan} in the plan`);
  return nodes;
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
  const nodes = await planNodes(pool, sql, params, { subplan, analyze: true });
  return nodes.flatMap((node) => {
    const named = node['Relation Name'] ?? node['Index Name'];
    if (named === undefined || (node['Actual Loops'] ?? 0) === 0) return [];
    return [{ node: node['Node Type'], table: tables.get(named) ?? named, index: node['Index Name'] ?? null }];
  });
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
