// The Postgres statements of one routing phase (bench/lib/rule-phase.mjs: a backlog ingested, then drained by the
// workers, a rule with DESTINATIONS unfiltered destinations beside its primary target), run by hand:
//
//   pnpm exec node bench/routing-profile.mjs        (DESTINATIONS, default 3; EVENTS, default 4,000; TOP, 25)
//
// On a throw-away cluster (test-support's pg-cluster.ts) with pg_stat_statements, which the machine's own server does
// not load. Prints each statement's calls, total and mean execution time and rows, slowest first (statements inside
// functions included: pg_stat_statements.track = all), then the phase's own figures.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startPgCluster } from '../packages/test-support/src/pg-cluster.ts';
import { useDatabaseServer } from './lib/database.mjs';
import { deliveryPhase, pushBodies } from './lib/rule-phase.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const settings = ['-c shared_preload_libraries=pg_stat_statements', '-c pg_stat_statements.track=all'];
const cluster = await startPgCluster({ settings });
const sql = async (text) => {
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
};
try {
  await sql('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  useDatabaseServer(cluster.url);
  const phase = await deliveryPhase({
    root: path.resolve(here, '..'),
    name: 'profile',
    destinations: Array.from({ length: Number(process.env.DESTINATIONS ?? 3) }, () => ({ filter: null })),
    expectedFor: (ids) => ids.flat(),
    events: Number(process.env.EVENTS ?? 4_000),
    workers: 2,
    bodies: pushBodies(readFileSync(path.join(here, 'github-push.json'), 'utf8')),
    log: (...parts) => console.error(`[routing-profile] ${parts.join(' ')}`),
  });
  const rows = await sql(`SELECT calls, round(total_exec_time::numeric, 1) AS total_ms,
      round((total_exec_time / calls)::numeric, 3) AS mean_ms, rows,
      left(regexp_replace(query, '\\s+', ' ', 'g'), 120) AS query
    FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'
    ORDER BY total_exec_time DESC LIMIT ${Number(process.env.TOP ?? 25)}`);
  console.log('calls\ttotal ms\tmean ms\trows\tstatement');
  for (const r of rows) console.log(`${r.calls}\t${r.total_ms}\t${r.mean_ms}\t${r.rows}\t${r.query}`);
  const { perTarget: _perTarget, ...figures } = phase;
  console.log(JSON.stringify(figures));
} finally {
  cluster.remove();
}
