// pnpm bench --search [--search-events N]: event search over a large organization (default 1,000,000
// events, filled with generate_series; minutes, never run in CI). Times GET /events?search= for a rare
// term, a term in every payload and a term with no match, and the plain list, through the production
// api, once the production worker has indexed them (its time is recorded); an id and a number in one event too.
// Budget: a page in ≤ 50 ms (p95) each. The result goes to bench/results/search.json.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { admin, deleteKeys, freshDatabase, REDIS_URL } from './lib/database.mjs';
import { freePort, startNode, stop, waitForHttp } from './lib/processes.mjs';
import { percentile } from './lib/stats.mjs';
import { cpuMsOf } from './lib/usage.mjs';

const DEFAULT_ORG = '00000000-0000-7000-8000-000000000001';
// One payload shaped like a GitHub push (~1.3 KB): every event has "octo-common"; one in RARE_EVERY has
// a rare word; no event has the no-match word.
const RARE_EVERY = 100_000;
const payloadSql = `json_build_object(
  'ref', 'refs/heads/main', 'before', md5(n::text), 'after', md5((n + 1)::text),
  'repository', json_build_object('full_name', 'octo-common/repo-' || (n % 500), 'private', false,
    'description', 'A repository of the octo-common organization used by the search benchmark', 'size', n % 9000),
  'pusher', json_build_object('name', 'user' || (n % 3000), 'email', 'user' || (n % 3000) || '@example.com'),
  'head_commit', json_build_object('id', md5(n::text || 'c'), 'message',
    CASE WHEN n % ${RARE_EVERY} = 0 THEN 'fix: handle the quetzalcoatl edge case' ELSE 'chore: routine update ' || n END,
    'timestamp', '2026-11-23T10:00:00Z', 'url', 'https://github.com/octo-common/repo/commit/' || md5(n::text)),
  'commits', json_build_array(json_build_object('id', md5(n::text || 'x'), 'distinct', true,
    'added', json_build_array('src/file' || (n % 77) || '.ts'), 'removed', json_build_array(),
    'modified', json_build_array('README.md', 'package.json', 'src/index.ts'))),
  'padding', repeat('lorem ipsum dolor sit amet ', 20)
)::text`;

export async function runSearchScale({ root, events, log }) {
  const dbName = `relay_bench_search_${process.pid}`;
  const prefix = `benchsearch${process.pid}`;
  const url = await freshDatabase(root, dbName);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let api;
  let worker;
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    log(`filling ${events} events`);
    const t0 = performance.now();
    for (let from = 1; from <= events; from += 250_000) {
      const to = Math.min(events, from + 249_999);
      await db.query(
        `WITH stored AS (
           INSERT INTO events (id, organization_id, source, body, headers, status, attempt_count, created_at,
             updated_at, delivered_at)
           SELECT relay_uuid7(), '${DEFAULT_ORG}', 'github', convert_to(${payloadSql}, 'UTF8'),
             '{"content-type": "application/json", "x-github-event": "push"}'::jsonb, 'delivered', 1,
             now() AT TIME ZONE 'UTC' - make_interval(secs => ${events} - n),
             now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
           FROM generate_series(${from}, ${to}) AS n
           RETURNING id, organization_id)
         INSERT INTO event_search_pending (event_id, organization_id) SELECT id, organization_id FROM stored`,
      );
      log(`  ${to} rows`);
    }
    const fillSeconds = (performance.now() - t0) / 1000;
    log(`filled in ${fillSeconds.toFixed(0)} s; the worker indexes them`);
    // The production indexer (a worker with no deliveries to make), as after an upgrade or a restore.
    const env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: url,
      REDIS_URL,
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: 'warn',
      INITIAL_ADMIN_USERNAME: 'bench',
      INITIAL_ADMIN_PASSWORD: 'bench-search-password',
      PASSWORD_HASH_MEMORY_KIB: '1024',
      PASSWORD_HASH_TIME_COST: '1',
    };
    const i0 = performance.now();
    worker = startNode(path.join(root, 'apps/delivery-worker/dist/main.mjs'), env);
    const pending = async () => (await db.query('SELECT count(*)::int AS n FROM event_search_pending')).rows[0].n;
    while ((await pending()) > 0) await new Promise((r) => setTimeout(r, 500));
    const indexSeconds = (performance.now() - i0) / 1000;
    const workerCpuSeconds = cpuMsOf(worker.pid) / 1000;
    await stop(worker);
    worker = undefined;
    const sizes = (
      await db.query(`SELECT pg_total_relation_size('event_search_chunks')::bigint AS chunks,
        pg_total_relation_size('event_search_keys')::bigint AS keys`)
    ).rows[0];
    log(`indexed in ${indexSeconds.toFixed(0)} s (worker CPU ${workerCpuSeconds.toFixed(0)} s)`);
    await db.query('VACUUM ANALYZE');

    api = startNode(path.join(root, 'apps/api/dist/main.mjs'), env);
    await waitForHttp(`${base}/ready`, 30_000);
    const authorization = `Basic ${Buffer.from('bench:bench-search-password').toString('base64')}`;
    const timeQuery = async (qs, repeat = 15) => {
      const times = [];
      let last;
      for (let i = 0; i < repeat + 2; i++) {
        const start = performance.now();
        const res = await fetch(`${base}/events?${qs}`, { headers: { authorization } });
        last = await res.json();
        if (!res.ok) throw new Error(`GET /events?${qs}: ${res.status} ${JSON.stringify(last)}`);
        if (i >= 2) times.push(performance.now() - start);
      }
      return {
        query: qs,
        p50Ms: percentile(times, 50),
        p95Ms: percentile(times, 95),
        rows: last.events.length,
        total: last.total,
        totalExact: last.total_exact,
      };
    };
    // One event's commit hash and message number (n = 424242 at a million; the last event in a smaller fill).
    const probe = Math.min(424_242, events);
    const scenarios = [
      await timeQuery('per_page=50'),
      await timeQuery('search=quetzalcoatl&per_page=50'),
      await timeQuery('search=octo-common&per_page=50'),
      await timeQuery('search=zebra-quokka-nomatch&per_page=50'),
      // An id (part of one event's commit hash) and a number (one event's message): found by the events' own keys.
      await timeQuery(
        `search=${(await db.query("SELECT substr(md5($1 || 'c'), 1, 16) AS id", [String(probe)])).rows[0].id}&per_page=50`,
      ),
      await timeQuery(`search=update%20${probe}&per_page=50`),
    ];
    for (const s of scenarios)
      log(`  ${s.query}: p50 ${s.p50Ms.toFixed(1)} ms, p95 ${s.p95Ms.toFixed(1)} ms, total ${s.total}`);
    const result = {
      date: new Date().toISOString(),
      events,
      fillSeconds,
      indexSeconds,
      indexWorkerCpuSeconds: workerCpuSeconds,
      indexBytes: { chunks: Number(sizes.chunks), keys: Number(sizes.keys) },
      budgetMs: 50,
      scenarios,
      met: scenarios.every((s) => s.p95Ms <= 50),
    };
    writeFileSync(
      path.join(root, 'bench/results', events >= 1_000_000 ? 'search.json' : 'search-smoke.json'),
      `${JSON.stringify(result, null, 2)}\n`,
    );
    console.log(
      [
        `| GET /events over ${events} events | p50 (ms) | p95 (ms) | rows | total |`,
        '|---|---|---|---|---|',
        ...scenarios.map(
          (s) =>
            `| ${s.query} | ${s.p50Ms.toFixed(1)} | ${s.p95Ms.toFixed(1)} | ${s.rows} | ` +
            `${s.total}${s.totalExact === false ? ' (estimate)' : ''} |`,
        ),
      ].join('\n'),
    );
    return result;
  } finally {
    await db.end();
    await stop(worker);
    await stop(api);
    await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await deleteKeys(prefix);
  }
}
