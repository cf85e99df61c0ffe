// The relay's own run in `pnpm bench` (run.mjs) and in `pnpm bench --redis-cluster` (redis-cluster.mjs, the same run
// on a Redis Cluster beside a single Redis).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { admin, dbUrl, deleteKeys, query, REDIS_URL } from './database.mjs';
import { startCalmProbe } from './calm-probe.mjs';
import { eventTimeline } from './timeline.mjs';
import { startPhase } from './usage.mjs';
import { openLoop, saturate } from './load.mjs';
import {
  ask,
  forkReady,
  freePort,
  mappedFilesMb,
  peakRssMb,
  resetPeakRss,
  startNode,
  stop,
  waitForHttp,
  waitForReceipts,
} from './processes.mjs';
import { percentile } from './stats.mjs';
import { SIGNING_SECRET } from './floors.mjs';

/**
 * One run of the relay (production build) against a fresh database: ingest at saturation into a backlog, the drain
 * of that backlog by `workers` worker processes, open-loop phases at half the ingest rate, at half the sustainable
 * rate and at 10/s, and the ledger (every accepted event delivered, once). `redis`: the relay's Redis settings (by
 * default the shared REDIS_URL) and the nodes whose commands are counted (default: that Redis). `sql`: statements
 * run on the migrated database before the relay starts (an experiment's schema).
 */
export async function relayRun({
  root,
  here,
  run,
  body,
  workers: WORKERS,
  durationS: DURATION_S,
  backlog: BACKLOG,
  connections: CONNECTIONS,
  profile = false,
  profileDir,
  log,
  redis = { env: { REDIS_URL }, nodes: undefined },
  label = '',
  sql = [],
}) {
  const dbName = `relay_bench_${process.pid}_${label}${run}`;
  const prefix = `bench${process.pid}${label}r${run}`;
  await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await admin(`CREATE DATABASE "${dbName}"`);
  const url = dbUrl(dbName);
  execFileSync(process.execPath, [path.join(root, 'scripts/db.mjs'), 'migrate'], {
    env: { ...process.env, DATABASE_URL: url },
    stdio: 'ignore',
  });
  // A variant's own schema changes (relay-ab.mjs's `sql`), made to the migrated database before the relay starts.
  for (const statement of sql) await query(url, statement);
  if (profile) await query(url, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const { child: target, msg: targetReady } = await forkReady(path.join(here, 'target-server.mjs'));
  const port = await freePort();
  const env = {
    DATABASE_URL: url,
    ...redis.env,
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    DEFAULT_TARGET_URL: `http://127.0.0.1:${targetReady.port}/hook`,
    TARGET_ALLOW_PRIVATE: 'true',
    // Deliveries are signed, as the delivery floor's are.
    DEFAULT_SIGNING_SECRET: SIGNING_SECRET,
    PORT: String(port),
    WORKER_HEALTH_PORT: '0',
    // Limits off: the bench measures the relay, not a refusal (the ingest limit is off unless set anyway).
    INGEST_RATE_LIMIT: '0',
    API_RATE_LIMIT: '0',
    // Experiments: BENCH_RELAY_ENV='{"SEARCH_INDEX_INTERVAL_MS":"600000"}' overrides the relay's settings.
    ...JSON.parse(process.env.BENCH_RELAY_ENV ?? '{}'),
  };
  const cpuProf = (name) =>
    profile
      ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}-run${run}-${Date.now()}.cpuprofile`]
      : [];
  // Experiments: BENCH_API_FLAGS adds V8 flags to the api (startNode adds BENCH_WORKER_FLAGS to every worker).
  const apiFlags = (process.env.BENCH_API_FLAGS ?? '').split(' ').filter(Boolean);
  const api = startNode(path.join(root, 'apps/api/dist/main.mjs'), env, [...cpuProf('api'), ...apiFlags]);
  const workers = [];
  const startWorkers = () => {
    for (let i = 0; i < WORKERS; i++)
      workers.push(startNode(path.join(root, 'apps/delivery-worker/dist/main.mjs'), env, cpuProf(`worker${i + 1}`)));
  };
  const usage = {};
  // Peak RSS phase by phase (each phase's peak reset at its start): where the run's peak, the target's, is reached.
  const rssByPhase = {};
  let rssPhase = 'start';
  const nextRssPhase = (next) => {
    const workerPeaks = workers.map((w) => peakRssMb(w.pid) ?? 0);
    rssByPhase[rssPhase] = { api: peakRssMb(api.pid), worker: workerPeaks.length ? Math.max(...workerPeaks) : null };
    for (const pid of [api.pid, ...workers.map((w) => w.pid)]) resetPeakRss(pid);
    rssPhase = next;
  };
  let accepted = 0;
  try {
    await waitForHttp(`http://127.0.0.1:${port}/ready`);
    // Workers run before traffic arrives, as in a deployment (their first sweep meets an empty
    // queue); then they are stopped so ingest is measured alone and leaves a backlog.
    const firstWorker = startNode(path.join(root, 'apps/delivery-worker/dist/main.mjs'), {
      ...env,
      WORKER_HEALTH_PORT: String(await freePort()),
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await stop(firstWorker);
    const ingestUrl = `http://127.0.0.1:${port}/github`;
    // (b) ingest at saturation, no worker running: the events become the backlog of (c).
    nextRssPhase('ingest');
    const warm = await saturate({ url: ingestUrl, body, connections: CONNECTIONS, durationS: 1 });
    const ingestPhase = await startPhase({
      pids: { api: api.pid },
      databaseUrl: url,
      pgStats: profile,
      redisNodes: redis.nodes,
    });
    const ingest = await saturate({ url: ingestUrl, body, connections: CONNECTIONS, durationS: DURATION_S });
    usage.ingest = await ingestPhase.end(ingest.ok);
    accepted += warm.ok + ingest.ok;
    if (accepted < BACKLOG)
      accepted += (await saturate({ url: ingestUrl, body, connections: CONNECTIONS, amount: BACKLOG - accepted })).ok;
    const [{ n: stored }] = await query(url, 'SELECT count(*)::int AS n FROM events');
    log(`run ${run}: ingest ${Math.round(ingest.rps)}/s, backlog ${stored}`);

    // (c) drain the backlog with the workers.
    nextRssPhase('drain');
    const drainStart = performance.now();
    startWorkers();
    const drainPhase = await startPhase({
      pids: { api: api.pid, ...Object.fromEntries(workers.map((w, i) => [`worker${i + 1}`, w.pid])) },
      databaseUrl: url,
      pgStats: profile,
      redisNodes: redis.nodes,
    });
    const drained = await waitForReceipts(target, stored);
    usage.drain = await drainPhase.end(drained.unique);
    const drainSeconds = (performance.now() - drainStart) / 1000;
    log(`run ${run}: drained ${drained.unique} in ${drainSeconds.toFixed(1)} s`);

    // (d) open-loop at half the measured ingest rate, workers running (more than the pipeline sustains
    // on two cores: the backlog and the latency grow); then at half the sustainable rate (the target's).
    const rate = Math.max(10, Math.round(ingest.rps / 2));
    nextRssPhase('halfIngest');
    const loop = await openLoop({ port, path: '/github', body, rate, durationS: DURATION_S });
    accepted += loop.samples.length;
    let expected = stored + loop.samples.length;
    await waitForReceipts(target, expected);
    // The relay's sustainable rate: ingest and delivery at once, sharing this machine's cores, so each
    // event costs an ingest and a delivery (1 / (1/ingest + 1/delivery)); measured at half of it.
    const sustainable = 1 / (1 / ingest.rps + drainSeconds / stored);
    // BENCH_CALM_RATE (A/Bs only) fixes that phase's rate, so variants are compared at the same batch sizes.
    const sustainableRate = Number(process.env.BENCH_CALM_RATE) || Math.max(10, Math.round(sustainable / 2));
    const backlogNow = async () => {
      const [row] = await query(
        url,
        `SELECT (SELECT count(*) FROM event_search_pending)::int AS "searchPending",
           (SELECT count(*) FROM events WHERE status = 'queued')::int AS queued`,
      );
      return row;
    };
    const probe = await startCalmProbe(`http://127.0.0.1:${port}/metrics`, backlogNow);
    // Its CPU per event, the harness's too (this process sends, the target receives), against the saturated phases'.
    const calmPhase = await startPhase({
      pids: {
        api: api.pid,
        ...Object.fromEntries(workers.map((w, i) => [`worker${i + 1}`, w.pid])),
        loadGenerator: process.pid,
        target: target.pid,
      },
      databaseUrl: url,
      pgStats: profile,
      redisNodes: redis.nodes,
    });
    nextRssPhase('halfSustainable');
    const calm = await openLoop({ port, path: '/github', body, rate: sustainableRate, durationS: DURATION_S });
    const calmMachine = await probe.end();
    accepted += calm.samples.length;
    expected += calm.samples.length;
    await waitForReceipts(target, expected);
    usage.calm = await calmPhase.end(calm.samples.length);
    // (e) a trickle: 10 events/s, the latency of a quiet relay.
    nextRssPhase('trickle');
    const trickle = await openLoop({ port, path: '/github', body, rate: 10, durationS: DURATION_S });
    accepted += trickle.samples.length;
    expected += trickle.samples.length;
    await waitForReceipts(target, expected);
    // Requests autocannon abandoned when its clock stopped still commit afterwards, so the final
    // wait is against the database's count, re-read until it no longer grows.
    for (;;) {
      const [{ n }] = await query(url, 'SELECT count(*)::int AS n FROM events');
      await waitForReceipts(target, n);
      const [{ n: again }] = await query(url, 'SELECT count(*)::int AS n FROM events');
      if (again === n) break;
    }
    const receipts = new Map((await ask(target, 'receipts')).receipts.map(([id, t, n]) => [id, { t, n }]));
    const e2eOf = (samples) => samples.map((s) => receipts.get(s.id)?.t - s.t0).filter((v) => Number.isFinite(v));
    const e2e = e2eOf(loop.samples);
    const ingestLatency = loop.samples.map((s) => s.t1 - s.t0);
    const calmE2e = e2eOf(calm.samples);
    const calmIngest = calm.samples.map((s) => s.t1 - s.t0);
    const trickleE2e = e2eOf(trickle.samples);
    // Where the time of the calm phase's events went (attributes the latency tail).
    const sustainableTimeline = await eventTimeline(query, url, calm.samples, receipts);
    const trickleTimeline = await eventTimeline(query, url, trickle.samples, receipts);
    log(`run ${run}: half-sustainable timeline ${JSON.stringify(sustainableTimeline)}`);
    const calmCpu = Object.fromEntries(Object.entries(usage.calm.cpu).map(([k, c]) => [k, c.msPerEvent]));
    log(
      `run ${run}: half-sustainable machine ${JSON.stringify(calmMachine)}, CPU ms per event ${JSON.stringify(calmCpu)}`,
    );
    const calmRedis = usage.calm.redisTop.slice(0, 6).map((c) => `${c.cmd} ${c.perEvent}`);
    log(`run ${run}: half-sustainable Redis commands per event ${usage.calm.redisCommandsPerEvent}: ${calmRedis}`);

    // (e) peak RSS, (f) the ledger: every accepted event reached the target, once. The mapped files' part is read
    // at the end: those pages stay mapped once touched, so it is also the part of any earlier peak.
    const workerFiles = workers.map((w) => mappedFilesMb(w.pid) ?? 0);
    const rssFiles = { api: mappedFilesMb(api.pid), worker: workerFiles.length ? Math.max(...workerFiles) : null };
    nextRssPhase(undefined);
    const peaks = Object.values(rssByPhase);
    const rss = {
      api: Math.max(...peaks.map((p) => p.api ?? 0)),
      worker: Math.max(...peaks.map((p) => p.worker ?? 0)),
    };
    log(`run ${run}: peak RSS by phase (MB) ${JSON.stringify(rssByPhase)}, mapped files ${JSON.stringify(rssFiles)}`);
    const ids = (await query(url, 'SELECT id FROM events')).map((r) => r.id);
    const lostIds = ids.filter((id) => !receipts.has(id));
    const lost = lostIds.length;
    const lostSample = lost
      ? await query(
          url,
          `SELECT id, status, attempt_count, last_error, failure_reason, created_at, next_attempt_at
           FROM events WHERE id IN (${lostIds
             .slice(0, 5)
             .map((id) => `'${id}'`)
             .join(',')})`,
        )
      : [];
    if (lost) log(`run ${run}: not delivered: ${JSON.stringify(lostSample)}`);
    const duplicates = [...receipts.values()].reduce((sum, r) => sum + (r.n - 1), 0);
    return {
      ingestPerSecond: ingest.rps,
      ingestNon2xx: ingest.non2xx + ingest.errors,
      backlog: stored,
      deliveredPerSecond: stored / drainSeconds,
      offeredRate: rate,
      openLoopFailures: loop.failures.length + calm.failures.length + trickle.failures.length,
      e2eP50: percentile(e2e, 50),
      e2eP99: percentile(e2e, 99),
      ingestP50: percentile(ingestLatency, 50),
      ingestP99: percentile(ingestLatency, 99),
      sustainableRate,
      sustainableE2eP50: percentile(calmE2e, 50),
      sustainableE2eP99: percentile(calmE2e, 99),
      sustainableIngestP99: percentile(calmIngest, 99),
      trickleE2eP50: percentile(trickleE2e, 50),
      trickleE2eP99: percentile(trickleE2e, 99),
      sustainableTimeline,
      // The machine and the api's event loop during that phase (calm-probe.mjs), and its CPU per event: Postgres's,
      // and the relay's own processes' in all (api, workers, Postgres, Redis; not the harness).
      sustainableMachine: calmMachine,
      sustainablePostgresCpuMs: usage.calm.cpu.postgres.msPerEvent,
      sustainableRelayCpuMs: Object.entries(usage.calm.cpu)
        .filter(([k]) => k !== 'loadGenerator' && k !== 'target')
        .reduce((sum, [, c]) => sum + c.msPerEvent, 0),
      trickleTimeline,
      rssApiMb: rss.api,
      rssWorkerMb: rss.worker,
      rssApiFilesMb: rssFiles.api,
      rssWorkerFilesMb: rssFiles.worker,
      rssByPhase,
      accepted,
      stored: ids.length,
      lost,
      duplicates,
      // Per event: CPU milliseconds of each side and the commands it sent (deliverable of scale-out).
      ingestApiCpuMs: usage.ingest.cpu.api.msPerEvent,
      ingestPostgresCpuMs: usage.ingest.cpu.postgres.msPerEvent,
      ingestRedisCommands: usage.ingest.redisCommandsPerEvent,
      drainWorkerCpuMs: Object.entries(usage.drain.cpu)
        .filter(([k]) => k.startsWith('worker'))
        .reduce((sum, [, c]) => sum + c.msPerEvent, 0),
      drainPostgresCpuMs: usage.drain.cpu.postgres.msPerEvent,
      drainRedisCpuMs: usage.drain.cpu.redis.msPerEvent,
      drainRedisCommands: usage.drain.redisCommandsPerEvent,
      usage,
    };
  } finally {
    await Promise.all([stop(api), ...workers.map((w) => stop(w))]);
    await stop(target);
    await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    if (!redis.nodes) await deleteKeys(prefix);
  }
}
