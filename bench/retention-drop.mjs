// `pnpm bench --retention` (issue 32): retention of a past day of a million events by partition drop while ingest
// runs. A fresh database's history gets day partitions from before its oldest day on (test-support's
// layOutDayPartitions), and each round fills a day 10 + round days ago with delivered events (ids of that day's
// moments, one attempt and one destination delivery each, in search chunks of 100), as old as retention deletes,
// beside --history-days retained days of search chunks. The production api then takes an open-loop ingest at a fixed
// rate: an unmeasured phase (what the fill left running settles), then two phases, their order alternating round by
// round: one without retention, one during which retention's partition step runs (the worker's own repository: count
// the kept rows, then drop the partition with its children's, then take its ids out of the search chunks). Reported:
// the kept-row count's and the drop's wall time, ingest p50 / p99 / max of each phase and of the requests that
// overlapped the drop, and what the database's backends waited on meanwhile (lib/activity-sampler.mjs).
// Results: bench/results/retention-drop.json.
//
// It loads the retention code from TypeScript, so bench/run.mjs runs it with tsx (`node --import tsx`).
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createPartitionRetentionRepository } from '../packages/db/src/repositories/partition-retention.repository.ts';
import { createPartitionRepository } from '../packages/db/src/repositories/partition.repository.ts';
import { createConcurrentDrop } from './experiments/concurrent-detach.ts';
import { layOutDayPartitions } from '../packages/test-support/src/partition-layout.ts';
import { admin, deleteKeys, freshDatabase, REDIS_URL } from './lib/database.mjs';
import { openLoop } from './lib/load.mjs';
import { sampleActivity, waitsBetween } from './lib/activity-sampler.mjs';
import { cachedMb, evict, relationFiles } from './lib/page-cache.mjs';
import { freePort, startNode, stop, waitForHttp } from './lib/processes.mjs';
import { percentile } from './lib/stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const ORG = '00000000-0000-7000-8000-000000000001';
const DAY = 86_400_000;
const FILL_CHUNK = 100_000;

const utcDay = (at) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));

const DESTINATION = '00000000-0000-7000-8000-0000000000d1';

/**
 * A rule with one destination, whose delivered deliveries the filled days hold beside their events. Its source is not
 * the one ingest posts to, so the measured ingest is unchanged, and nothing is ever delivered (no worker runs).
 */
async function addDestination(pool) {
  const rule = '00000000-0000-7000-8000-0000000000a1';
  await pool.query(
    `INSERT INTO providers (id, organization_id, name, source, target_url, created_at, updated_at)
     VALUES ($2, $1, 'archive', 'archive', 'http://target.example/hook', now(), now())`,
    [ORG, rule],
  );
  await pool.query(
    `INSERT INTO destinations (id, organization_id, provider_id, name, target_url, created_at, updated_at)
     VALUES ($3, $1, $2, 'second', 'http://second.example/hook', now(), now())`,
    [ORG, rule, DESTINATION],
  );
}

/**
 * Fills the day's partition with `events` delivered events, their attempts, one delivered destination delivery each
 * and their search chunks, in chunks.
 */
async function fill(pool, day, events, body) {
  for (let done = 0; done < events; done += FILL_CHUNK) {
    const n = Math.min(FILL_CHUNK, events - done);
    await pool.query(
      `WITH e AS (
         INSERT INTO events (id, organization_id, source, target_url, body, headers, status, attempt_count,
           created_at, updated_at, delivered_at)
         SELECT relay_uuid7(t AT TIME ZONE 'UTC'), $1, 'github', 'http://target.example/hook', convert_to($2, 'UTF8'),
           '{"content-type":"application/json","x-github-event":"push"}', 'delivered', 1, t, t, t
         FROM (SELECT $3::timestamp + (($5::int + g) * interval '1 millisecond') * (86000000 / $6::int) AS t
               FROM generate_series(1, $4::int) g) s
         RETURNING id, organization_id, created_at),
       a AS (
         INSERT INTO delivery_attempts (id, event_id, organization_id, attempt_number, target_url, response_status,
           duration_ms, started_at, finished_at)
         SELECT gen_random_uuid(), e.id, $1, 1, 'http://target.example/hook', 200, 12, e.created_at, e.created_at
         FROM e),
       d AS (
         INSERT INTO deliveries (id, organization_id, event_id, destination_id, status, attempt_count, delivered_at,
           created_at, updated_at)
         SELECT gen_random_uuid(), $1, e.id, $7, 'delivered', 1, e.created_at, e.created_at, e.created_at FROM e)
       INSERT INTO event_search_chunks (organization_id, event_ids, keys)
       SELECT $1, array_agg(id), '{}'::int[] FROM (SELECT id, (row_number() OVER ()) / 100 AS g FROM e) c GROUP BY g`,
      [ORG, body, day.toISOString().slice(0, 19).replace('T', ' '), n, done, events, DESTINATION],
    );
  }
  // A partition past retention was vacuumed long ago (autovacuum's insert threshold): its visibility map and hint bits
  // are set, which the drop's index walks rely on. A day filled just now would pay for setting them during the drop.
  await pool.query('VACUUM (ANALYZE) events, delivery_attempts, deliveries, event_search_keys, event_search_chunks');
}

/**
 * Search chunks of the `days` days before today (retained: no round drops them), `chunks` a day of 100 ids each,
 * with no events behind them: what a week of history adds to the chunks a drop must look through for its range's.
 */
async function fillHistoryChunks(pool, days, chunks) {
  for (let d = 1; d <= days; d++)
    await pool.query(
      `INSERT INTO event_search_chunks (organization_id, event_ids, keys)
       SELECT $1, ARRAY(SELECT relay_uuid7(s.t + x * interval '1 millisecond') FROM generate_series(1, 100) x), '{}'
       FROM (SELECT $2::timestamptz + g * (interval '86000 seconds' / $3::int) AS t
             FROM generate_series(1, $3::int) g) s`,
      [ORG, new Date(utcDay(new Date()).getTime() - d * DAY).toISOString(), chunks],
    );
  await pool.query('VACUUM (ANALYZE) event_search_chunks');
}

/** Moves the day's (empty) partitions and their indexes to `tablespace`. */
async function moveDay(pool, suffix, tablespace) {
  const { rows } = await pool.query(
    `SELECT c.relname AS name, i.relname AS index FROM pg_class c
     LEFT JOIN pg_index x ON x.indrelid = c.oid LEFT JOIN pg_class i ON i.oid = x.indexrelid
     WHERE c.relkind = 'r' AND c.relname LIKE $1`,
    [`%\\_p${suffix}`],
  );
  for (const name of new Set(rows.map((r) => r.name)))
    await pool.query(`ALTER TABLE "${name}" SET TABLESPACE "${tablespace}"`);
  for (const { index } of rows.filter((r) => r.index !== null))
    await pool.query(`ALTER INDEX "${index}" SET TABLESPACE "${tablespace}"`);
}

// Retention of 7 days: the rounds' days are past it, every row of them deletable.
const cutoffsNow = () => [{ orgId: ORG, before: new Date(Date.now() - 7 * DAY), unacknowledgedBefore: new Date(0) }];

const latencies = (samples) => samples.map((s) => s.t1 - s.t0);
const summary = (samples) => {
  const ms = latencies(samples);
  return { requests: ms.length, p50: percentile(ms, 50), p99: percentile(ms, 99), max: Math.max(0, ...ms) };
};

const KINDS = {
  ingest: 'SELECT id, provider_id',
  drop: 'DROP TABLE',
  unindex: 'DELETE FROM event_search_chunks',
  unindexIds: 'UPDATE event_search_chunks',
  unindexFind: 'SELECT c.id::text',
  count: 'SELECT count(*)',
  lock: 'LOCK TABLE',
  alter: 'ALTER TABLE',
};

/**
 * The drop's window in 100 ms buckets: the ingest requests that started in each (count, p50, max latency) and what
 * the database's active backends waited on there (kind:wait → samples), for where ingest's time went.
 */
function timeline(dropped) {
  const from = dropped.t1 - 200;
  const buckets = [];
  for (let at = from; at < dropped.t2 + 200; at += 100) {
    const ms = latencies(dropped.loop.samples.filter((x) => x.t0 >= at && x.t0 < at + 100));
    const waits = waitsBetween(dropped.activity, at, at + 100, KINDS);
    const active = Object.fromEntries(
      Object.entries(waits).flatMap(([kind, w]) => Object.entries(w).map(([wait, n]) => [`${kind}:${wait}`, n])),
    );
    buckets.push({
      ms: Math.round(at - dropped.t1),
      n: ms.length,
      p50: percentile(ms, 50),
      max: Math.max(0, ...ms),
      active,
    });
  }
  return buckets;
}

export async function runRetentionDrop({
  smoke = false,
  // Evict the filled day's files from the page cache before its drop (lib/page-cache.mjs): a day past retention on an
  // install whose history is larger than memory. Otherwise the day is wholly cached, as just written.
  cold = false,
  // An existing tablespace for the filled days' partitions and their indexes (null: the database's own): where the
  // data directory's file system removes files slowly (mounted with online `discard`), a tablespace on another
  // measures the step there.
  tablespace = null,
  events: eventsOption,
  rounds: roundsOption,
  // Days of search chunks kept beside the dropped day's (fillHistoryChunks): the drop looks through them for its own.
  historyDays: historyOption,
  // 'concurrent': every other pair of rounds drops with DETACH ... CONCURRENTLY (experiments/concurrent-detach.ts).
  variant = 'locked',
  log = console.log,
} = {}) {
  const events = eventsOption ?? (smoke ? 5_000 : 1_000_000);
  // Each round fills its own day first (a million events: minutes, the search rows' trigram index most of it).
  const rounds = roundsOption ?? 1;
  const rate = smoke ? 50 : 300;
  const phaseS = smoke ? 2 : 10;
  const body = readFileSync(path.join(here, 'github-push.json'), 'utf8');
  const dbName = `relay_bench_retention_${process.pid}`;
  const prefix = `benchret${process.pid}`;
  const url = await freshDatabase(root, dbName);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const partitions = createPartitionRepository(pool);
  const retention = createPartitionRetentionRepository(pool);
  const concurrentDrop = createConcurrentDrop(pool, (p) => retention.countKept(cutoffsNow(), p));
  // --variant concurrent: rounds in pairs, today's drop then the experiment's (each order of phases for both when the
  // rounds are a multiple of 4).
  const variantOf = (round) =>
    variant === 'concurrent' && Math.floor((round - 1) / 2) % 2 === 1 ? 'concurrent' : 'locked';
  // Day partitions from before the oldest round's day through a week ahead, in place of the migration's first
  // partition (all empty).
  await layOutDayPartitions(pool, utcDay(new Date(Date.now() - (11 + rounds) * DAY)), 19 + rounds);
  await addDestination(pool);
  const historyDays = historyOption ?? (smoke ? 1 : 6);
  await fillHistoryChunks(pool, historyDays, Math.ceil(events / 100));
  const port = await freePort();
  const api = startNode(path.join(root, 'apps/api/dist/main.mjs'), {
    DATABASE_URL: url,
    REDIS_URL,
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    DEFAULT_TARGET_URL: 'http://127.0.0.1:9/hook',
    TARGET_ALLOW_PRIVATE: 'true',
    PORT: String(port),
    INGEST_RATE_LIMIT: '0',
    API_RATE_LIMIT: '0',
  });
  const rows = [];
  try {
    await waitForHttp(`http://127.0.0.1:${port}/ready`);
    // A warm-up at the same rate: the api's first requests (its code compiled, the pools filled) are not measured.
    await openLoop({ port, path: '/github', body, rate, durationS: phaseS });
    for (let round = 1; round <= rounds; round++) {
      // Each round drops a day of its own, 10 + round days ago, filled before the round's two phases.
      const day = utcDay(new Date(Date.now() - (10 + round) * DAY));
      const suffix = day.toISOString().slice(0, 10).replaceAll('-', '');
      if (tablespace) await moveDay(pool, suffix, tablespace);
      const filled = Date.now();
      await fill(pool, day, events, body);
      log(`retention: round ${round}: ${events} events filled into ${suffix} in ${Date.now() - filled} ms`);
      const family = await partitions.listPartitions();
      const partition = family.find((p) => p.table === 'events' && p.name === `events_p${suffix}`);
      // The day's files and how much of them is cached when its phases begin (null: not readable here, which only
      // --cold needs).
      const names = family.filter((p) => p.name.endsWith(`_p${suffix}`)).map((p) => p.name);
      const dayFiles = await relationFiles(pool, names).catch((err) => {
        if (cold) throw err;
        return null;
      });
      // A day past retention was written out long ago: the fill's dirty pages are flushed now, not by a checkpoint
      // spread over the phases (the first phase after the fill measured 3-10 times the second's p99 without this).
      await pool.query('CHECKPOINT');
      if (cold) evict(dayFiles.files);
      const cachedBeforeMb = dayFiles ? cachedMb(dayFiles.files) : null;
      const cutoffs = cutoffsNow();
      const withDropFirst = round % 2 === 0;
      const phase = async (dropping) => {
        const loop = openLoop({ port, path: '/github', body, rate, durationS: phaseS });
        if (!dropping) return { loop: await loop };
        await new Promise((resolve) => setTimeout(resolve, (phaseS * 1000) / 3));
        const sampler = await sampleActivity(url);
        const t0 = performance.timeOrigin + performance.now();
        const kept = await retention.countKept(cutoffs, partition);
        const t1 = performance.timeOrigin + performance.now();
        const drop =
          variantOf(round) === 'concurrent'
            ? await concurrentDrop(partition, family)
            : await retention.dropPartition(cutoffs, partition, family);
        const t2 = performance.timeOrigin + performance.now();
        const activity = await sampler.stop();
        // Only the filled days hold deliveries (ingest makes none without a worker): the day's are gone with it.
        const { rows: left } = await pool.query(
          `SELECT count(*)::int AS n FROM deliveries WHERE created_at >= $1 AND created_at < $2`,
          [day, new Date(day.getTime() + DAY)],
        );
        // No worker runs, so ingest makes no chunks: what is left is the retained days' (fillHistoryChunks).
        const { rows: chunks } = await pool.query('SELECT count(*)::int AS n FROM event_search_chunks');
        const waits = waitsBetween(activity, t1, t2, KINDS);
        return {
          loop: await loop,
          kept,
          drop,
          countMs: t1 - t0,
          dropMs: t2 - t1,
          t1,
          t2,
          deliveriesLeft: left[0].n,
          chunksLeft: chunks[0].n,
          waits,
          activity: activity.filter((a) => a.at >= t1 - 200 && a.at <= t2 + 200),
        };
      };
      // An unmeasured phase first, as after the warm-up: whatever the fill left running settles before the two
      // measured phases (its p99 is reported beside theirs).
      const settling = await openLoop({ port, path: '/github', body, rate, durationS: phaseS });
      const first = await phase(withDropFirst);
      const second = await phase(!withDropFirst);
      const [plain, dropped] = withDropFirst ? [second, first] : [first, second];
      const overlapping = dropped.loop.samples.filter((s) => s.t1 >= dropped.t1 && s.t0 <= dropped.t2);
      const row = {
        round,
        variant: variantOf(round),
        events,
        outcome: dropped.drop.outcome,
        droppedEvents: dropped.drop.events ?? 0,
        dropSteps: dropped.drop.steps,
        deliveriesLeft: dropped.deliveriesLeft,
        chunksLeft: dropped.chunksLeft,
        historyChunks: historyDays * Math.ceil(events / 100),
        keptBeforeDrop: dropped.kept,
        dayMb: dayFiles?.mb ?? null,
        cachedBeforeMb,
        countKeptMs: Math.round(dropped.countMs),
        dropMs: Math.round(dropped.dropMs),
        ingestSettling: summary(settling.samples),
        ingestWithoutRetention: summary(plain.loop.samples),
        ingestWithRetention: summary(dropped.loop.samples),
        ingestOverlappingTheDrop: summary(overlapping),
        waitsDuringTheDrop: dropped.waits,
        timeline: timeline(dropped),
        failures: plain.loop.failures.length + dropped.loop.failures.length + settling.failures.length,
        load: os.loadavg()[0],
      };
      row.p99Ratio = row.ingestWithRetention.p99 / row.ingestWithoutRetention.p99;
      rows.push(row);
      log(`retention: round ${round}: ${JSON.stringify(row)}`);
    }
  } finally {
    await stop(api);
    await pool.end();
    await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await deleteKeys(prefix);
  }
  const median = (pick) => percentile(rows.map(pick), 50);
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    smoke,
    settings: { events, rounds, rate, phaseS, cold, tablespace, historyDays, variant },
    dropMsMedian: median((r) => r.dropMs),
    p99RatioMedian: median((r) => r.p99Ratio),
    byVariant: Object.fromEntries(
      [...new Set(rows.map((r) => r.variant))].map((v) => {
        const mine = rows.filter((r) => r.variant === v);
        const mid = (pick) => percentile(mine.map(pick), 50);
        return [v, { rounds: mine.length, dropMs: mid((r) => r.dropMs), p99Ratio: mid((r) => r.p99Ratio) }];
      }),
    ),
    rounds: rows,
  };
  const file = smoke
    ? 'retention-drop-smoke.json'
    : `retention-drop${cold ? '-cold' : ''}${tablespace ? '-tablespace' : ''}${variant === 'locked' ? '' : `-${variant}`}.json`;
  writeFileSync(path.join(here, 'results', file), `${JSON.stringify(result, null, 2)}\n`);
  log(
    `retention: drop ${result.dropMsMedian} ms (median of ${rows.length}), ingest p99 with/without retention ` +
      `${result.p99RatioMedian.toFixed(2)}x`,
  );
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const smoke = process.argv.includes('--smoke');
  const value = (name) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? Number(process.argv[at + 1]) : undefined;
  };
  await runRetentionDrop({
    smoke,
    cold: process.argv.includes('--cold'),
    tablespace: process.argv.includes('--tablespace') ? process.argv[process.argv.indexOf('--tablespace') + 1] : null,
    events: value('--events'),
    historyDays: value('--history-days'),
    rounds: value('--rounds'),
    variant: process.argv.includes('--variant') ? process.argv[process.argv.indexOf('--variant') + 1] : undefined,
  });
}
