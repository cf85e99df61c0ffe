// Retention sizing, run by hand (never in `pnpm test`); it needs tsx to load the retention repository:
//
//   nice -n 19 node --import tsx bench/retention-sizing.mjs [--events 100000] [--days 10] [--batch 1000]
//
// Starts a throw-away PostgreSQL cluster of its own (under the script's nice level, so it never loads the
// machine's server), migrates a database, fills it with `--events` delivered events spread over `--days`
// days (a ~1.3 KB GitHub push payload each, realistic headers, one attempt, indexed for search by the workers'
// indexer), then reports the disk each table and index takes per event and per million events, the query plans
// of retention's statements, and how fast retention deletes half of them. Results: bench/results/retention-sizing.json.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createEventSearchRepository } from '../packages/db/src/repositories/event-search.repository.ts';
import { createRetentionRepository } from '../packages/db/src/repositories/retention.repository.ts';
import { freshDatabase, useDatabaseServer } from './lib/database.mjs';
import { startProfileCluster } from './lib/pg-cluster.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '100000' },
    days: { type: 'string', default: '10' },
    batch: { type: 'string', default: '1000' },
  },
});
const EVENTS = Number(values.events);
const DAYS = Number(values.days);
const BATCH = Number(values.batch);
const ORG = '00000000-0000-7000-8000-000000000001';
const TABLES = [
  'events',
  'delivery_attempts',
  'event_search_chunks',
  'event_search_keys',
  'event_search_pending',
  'audit_entries',
];
const log = (...args) => console.log(...args);

// The push payload with per-event values where GitHub's vary (hashes, ids, message), so no two bodies are equal.
const template = JSON.stringify(JSON.parse(readFileSync(path.join(root, 'bench/github-push.json'), 'utf8')));
const bodySql = `convert_to(replace(replace(replace($1::text,
  '6113728f27ae82c7b1a177c8d03f9e96e0adf246', md5(n::text) || substr(md5(n::text || 'b'), 1, 8)),
  '76ae82ad4c4d1ef8d5b7b2d0a9c1e6a4f0a4e3b1', md5((n + 1)::text) || substr(md5(n::text || 'a'), 1, 8)),
  'Hello-World', 'repo-' || (n % 500)), 'UTF8')`;
const headersSql = `jsonb_build_object('content-type', 'application/json', 'user-agent', 'GitHub-Hookshot/8e03811',
  'x-github-event', 'push', 'x-github-delivery', gen_random_uuid()::text,
  'x-github-hook-id', (400000000 + n % 1000)::text,
  'x-hub-signature-256', 'sha256=' || md5(n::text) || md5(n::text || 's'))`;

// Event ids as ingest makes them (UUIDv7: the time first), so the search index groups events by time as in
// production and retention's oldest-first batches meet whole chunks.
const v7IdSql = `(lpad(to_hex((extract(epoch FROM t) * 1000)::bigint), 12, '0') || '7' || substr(md5(n::text), 1, 3)
  || '8' || substr(md5(n::text), 4, 15))::uuid`;

async function fill(db, pool) {
  const spanSeconds = DAYS * 86_400;
  for (let from = 1; from <= EVENTS; from += 50_000) {
    const to = Math.min(EVENTS, from + 49_999);
    await db.query(
      `WITH stored AS (
         INSERT INTO events (id, organization_id, source, target_url, body, headers, status, attempt_count,
           created_at, updated_at, delivered_at)
         SELECT ${v7IdSql}, '${ORG}', 'github', 'https://ci.example.com/hooks/github', ${bodySql},
           ${headersSql}, 'delivered', 1, t, t + interval '40 milliseconds', t + interval '40 milliseconds'
         FROM generate_series(${from}, ${to}) AS n,
           LATERAL (SELECT now() AT TIME ZONE 'UTC' - make_interval(secs => ${spanSeconds} * (${EVENTS} - n)::float8
             / ${EVENTS})) AS at(t)
         RETURNING id, organization_id, source, body, headers, updated_at),
       attempts AS (
         INSERT INTO delivery_attempts (id, event_id, organization_id, attempt_number, kind, target_url,
           response_status, response_body, duration_ms, started_at, finished_at)
         SELECT gen_random_uuid(), id, organization_id, 1, 'main', 'https://ci.example.com/hooks/github', 200,
           '{"ok":true}', 38, updated_at - interval '38 milliseconds', updated_at FROM stored)
       INSERT INTO event_search_pending (event_id, organization_id) SELECT id, organization_id FROM stored`,
      [template],
    );
    log(`  ${to} events`);
  }
  // Indexed for search by the workers' indexer, in its default batches.
  const search = createEventSearchRepository(pool);
  while ((await search.indexPending(200)) > 0);
  // One audit entry per 100 events (settings changes, retries, logins are far rarer than webhooks).
  await db.query(
    `INSERT INTO audit_entries (id, organization_id, actor_user_id, actor_email, action, resource_type, resource_id,
       metadata, created_at)
     SELECT gen_random_uuid(), '${ORG}', gen_random_uuid(), 'ops@example.com', 'event.retried', 'event',
       gen_random_uuid()::text, '{"source":"github"}', now() AT TIME ZONE 'UTC' - make_interval(days => n % ${DAYS})
     FROM generate_series(1, ${Math.ceil(EVENTS / 100)}) AS n`,
  );
  await db.query('VACUUM ANALYZE');
}

async function sizes(db) {
  const { rows } = await db.query(
    `SELECT c.relname AS table, pg_relation_size(c.oid) AS heap,
       coalesce(pg_total_relation_size(c.reltoastrelid), 0) AS toast, pg_indexes_size(c.oid) AS indexes,
       pg_total_relation_size(c.oid) AS total,
       c.reltuples::bigint AS rows
     FROM pg_class c WHERE c.relname = ANY($1) AND c.relkind = 'r' ORDER BY c.relname`,
    [TABLES],
  );
  const indexes = await db.query(
    `SELECT t.relname AS table, i.relname AS index, pg_relation_size(i.oid) AS bytes
     FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
     WHERE t.relname = ANY($1) ORDER BY t.relname, i.relname`,
    [TABLES],
  );
  return {
    tables: rows.map((r) => ({ ...r, heap: +r.heap, toast: +r.toast, indexes: +r.indexes, total: +r.total })),
    indexes: indexes.rows.map((r) => ({ ...r, bytes: +r.bytes })),
  };
}

// A pool stand-in that explains each statement (executed, then rolled back) instead of running it.
function explainingPool(client, plans) {
  return {
    async query(sql, params) {
      await client.query('BEGIN');
      try {
        const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, params);
        plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
        return { rows: [{ events: 0, attempts: 0, search: 0, search_pending: 0, reached: null }], rowCount: 0 };
      } finally {
        await client.query('ROLLBACK');
      }
    },
  };
}

const mib = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;

const cluster = await startProfileCluster();
try {
  useDatabaseServer(cluster.url);
  const url = await freshDatabase(root, 'relay_retention_sizing');
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  try {
    log(`filling ${EVENTS} events over ${DAYS} days`);
    const t0 = performance.now();
    const client = await pool.connect();
    try {
      await fill(client, pool);
    } finally {
      client.release();
    }
    log(`filled in ${Math.round((performance.now() - t0) / 1000)} s`);

    const measured = await sizes(pool);
    const total = measured.tables.reduce((sum, t) => sum + t.total, 0);
    const eventTables = measured.tables.filter((t) => t.table !== 'audit_entries').reduce((s, t) => s + t.total, 0);
    log('\ntable                   rows       heap MiB  toast MiB  index MiB  total MiB  bytes/event');
    for (const t of measured.tables)
      log(
        `${t.table.padEnd(22)} ${String(t.rows).padStart(9)}  ${String(mib(t.heap)).padStart(9)}  ` +
          `${String(mib(t.toast)).padStart(9)}  ${String(mib(t.indexes)).padStart(9)}  ${String(mib(t.total)).padStart(9)}  ` +
          `${String(Math.round(t.total / EVENTS)).padStart(11)}`,
      );
    log('\nindex                                              MiB   bytes/event');
    for (const i of measured.indexes)
      log(
        `${i.index.padEnd(48)} ${String(mib(i.bytes)).padStart(6)}   ${String(Math.round(i.bytes / EVENTS)).padStart(6)}`,
      );
    const perEvent = eventTables / EVENTS;
    log(`\nper event (events, attempts, search): ${Math.round(perEvent)} bytes`);
    log(
      `per million events: ${Math.round(((perEvent * 1e6) / 1024 ** 3) * 100) / 100} GiB (all tables: ${mib((total / EVENTS) * 1e6)} MiB)`,
    );

    // Retention deletes the older half: the plans of its statements, then the real run's speed.
    const repository = createRetentionRepository(pool);
    const cutoffs = {
      before: new Date(Date.now() - (DAYS / 2) * 86_400_000),
      unacknowledgedBefore: new Date(Date.now() - 90 * 86_400_000),
    };
    const plans = [];
    const explainClient = await pool.connect();
    try {
      const explaining = createRetentionRepository(explainingPool(explainClient, plans));
      await explaining.deleteEventBatch(ORG, cutoffs, BATCH);
      await explaining.deleteAuditBatch(cutoffs.before, BATCH);
    } finally {
      explainClient.release();
    }
    log('\nplan of one event batch:\n' + plans[0] + '\n\nplan of one audit batch:\n' + plans[1]);

    const t1 = performance.now();
    let deleted = 0;
    let batches = 0;
    let from;
    const batchMs = [];
    for (;;) {
      const b0 = performance.now();
      const batch = await repository.deleteEventBatch(ORG, cutoffs, BATCH, from);
      batchMs.push(performance.now() - b0);
      deleted += batch.events;
      batches++;
      if (batch.events < BATCH) break;
      from = batch.reached;
    }
    const seconds = (performance.now() - t1) / 1000;
    batchMs.sort((a, b) => a - b);
    const p = (q) => Math.round(batchMs[Math.min(batchMs.length - 1, Math.floor(q * batchMs.length))]);
    log(
      `\ndeleted ${deleted} events in ${batches} batches of ${BATCH}: ${seconds.toFixed(1)} s, ` +
        `${Math.round(deleted / seconds)} events/s, batch median ${p(0.5)} ms, p99 ${p(0.99)} ms`,
    );

    writeFileSync(
      path.join(root, 'bench/results/retention-sizing.json'),
      `${JSON.stringify(
        {
          measuredAt: new Date().toISOString(),
          events: EVENTS,
          days: DAYS,
          ...measured,
          bytesPerEvent: Math.round(perEvent),
          deletion: {
            batch: BATCH,
            deleted,
            seconds,
            eventsPerSecond: Math.round(deleted / seconds),
            batchMsMedian: p(0.5),
            batchMsP99: p(0.99),
          },
          plans,
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    await pool.end();
  }
} finally {
  cluster.stop();
}
