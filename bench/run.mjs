// pnpm bench [--smoke] [--runs N] [--workers N] [--profile] [--fair] [--search [--search-events N]] [--fanout N]
//   [--transform [--runs N]] [--pacing-ab [--rounds N] [--pacing-ab-base DIR]]
// One run: baselines (bare Express, BullMQ no-op worker) and the relay (production build) measured
// side by side on this machine; the median of the runs goes to bench/results/latest.json.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { admin, dbUrl, deleteKeys, query, REDIS_URL, useDatabaseServer } from './lib/database.mjs';
import { summarizeProfile } from './lib/cpu-profile.mjs';
import { startProfileCluster } from './lib/pg-cluster.mjs';
import { eventTimeline } from './lib/timeline.mjs';
import { startPhase } from './lib/usage.mjs';
import { openLoop, saturate } from './lib/load.mjs';
import {
  ask,
  forkReady,
  freePort,
  peakRssMb,
  startNode,
  stop,
  waitForHttp,
  waitForReceipts,
} from './lib/processes.mjs';
import { buildDeliveryFloor, deliveryFloor, ingestFloor, latencyFloor, SIGNING_SECRET } from './lib/floors.mjs';
import { percentile, round, summarize } from './lib/stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
// --profile: CPU profiles of api and workers, per-event CPU, Redis commands and (on a throw-away
// cluster with pg_stat_statements) Postgres statements, written to bench/results/profile.json.
const profile = args.includes('--profile');
const profileDir = path.join(here, 'results', 'profiles');
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const RUNS = option('--runs', smoke ? 1 : 3);
const WORKERS = option('--workers', 2);
const DURATION_S = smoke ? 1 : 10;
const BACKLOG = smoke ? 500 : 20_000;
const CONNECTIONS = 64;
const body = readFileSync(path.join(here, 'github-push.json'), 'utf8');
const log = (...parts) => console.error(`[bench] ${parts.join(' ')}`);

async function expressBaseline() {
  const { child, msg } = await forkReady(path.join(here, 'express-baseline.mjs'));
  try {
    await saturate({ url: `http://127.0.0.1:${msg.port}/github`, body, connections: CONNECTIONS, durationS: 1 });
    return await saturate({
      url: `http://127.0.0.1:${msg.port}/github`,
      body,
      connections: CONNECTIONS,
      durationS: DURATION_S,
    });
  } finally {
    await stop(child);
  }
}

async function bullmqBaseline(prefix, concurrency) {
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue('noop', { connection, prefix });
  for (let i = 0; i < BACKLOG; i += 1000) {
    const n = Math.min(1000, BACKLOG - i);
    await queue.addBulk(
      Array.from({ length: n }, (_, j) => ({ name: 'noop', data: { id: i + j }, opts: { removeOnComplete: true } })),
    );
  }
  const { child } = await forkReady(path.join(here, 'bullmq-baseline.mjs'), {
    REDIS_URL,
    QUEUE_PREFIX: prefix,
    JOBS: String(BACKLOG),
    CONCURRENCY: String(concurrency),
  });
  const done = new Promise((resolve) => child.on('message', (m) => m.type === 'done' && resolve(m)));
  child.send({ type: 'start' });
  const { ms } = await done;
  await stop(child);
  await queue.close();
  connection.disconnect();
  return { jobs: BACKLOG, seconds: ms / 1000, perSecond: BACKLOG / (ms / 1000) };
}

async function relayRun(run) {
  const dbName = `relay_bench_${process.pid}_${run}`;
  const prefix = `bench${process.pid}r${run}`;
  await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await admin(`CREATE DATABASE "${dbName}"`);
  const url = dbUrl(dbName);
  execFileSync(process.execPath, [path.join(root, 'scripts/db.mjs'), 'migrate'], {
    env: { ...process.env, DATABASE_URL: url },
    stdio: 'ignore',
  });
  if (profile) await query(url, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const { child: target, msg: targetReady } = await forkReady(path.join(here, 'target-server.mjs'));
  const port = await freePort();
  const env = {
    DATABASE_URL: url,
    REDIS_URL,
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
  // Experiments: BENCH_API_FLAGS / BENCH_WORKER_FLAGS add V8 flags to the relay's processes.
  const extraFlags = (name) => (process.env[name] ?? '').split(' ').filter(Boolean);
  const api = startNode(path.join(root, 'apps/api/dist/main.mjs'), env, [
    ...cpuProf('api'),
    ...extraFlags('BENCH_API_FLAGS'),
  ]);
  const workers = [];
  const startWorkers = () => {
    for (let i = 0; i < WORKERS; i++)
      workers.push(
        startNode(path.join(root, 'apps/delivery-worker/dist/main.mjs'), env, [
          ...cpuProf(`worker${i + 1}`),
          ...extraFlags('BENCH_WORKER_FLAGS'),
        ]),
      );
  };
  const usage = {};
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
    const warm = await saturate({ url: ingestUrl, body, connections: CONNECTIONS, durationS: 1 });
    const ingestPhase = await startPhase({ pids: { api: api.pid }, databaseUrl: url, pgStats: profile });
    const ingest = await saturate({ url: ingestUrl, body, connections: CONNECTIONS, durationS: DURATION_S });
    usage.ingest = await ingestPhase.end(ingest.ok);
    accepted += warm.ok + ingest.ok;
    if (accepted < BACKLOG)
      accepted += (await saturate({ url: ingestUrl, body, connections: CONNECTIONS, amount: BACKLOG - accepted })).ok;
    const [{ n: stored }] = await query(url, 'SELECT count(*)::int AS n FROM events');
    log(`run ${run}: ingest ${Math.round(ingest.rps)}/s, backlog ${stored}`);

    // (c) drain the backlog with the workers.
    const drainStart = performance.now();
    startWorkers();
    const drainPhase = await startPhase({
      pids: { api: api.pid, ...Object.fromEntries(workers.map((w, i) => [`worker${i + 1}`, w.pid])) },
      databaseUrl: url,
      pgStats: profile,
    });
    const drained = await waitForReceipts(target, stored);
    usage.drain = await drainPhase.end(drained.unique);
    const drainSeconds = (performance.now() - drainStart) / 1000;
    log(`run ${run}: drained ${drained.unique} in ${drainSeconds.toFixed(1)} s`);

    // (d) open-loop at half the measured ingest rate, workers running (more than the pipeline sustains
    // on two cores: the backlog and the latency grow); then at half the sustainable rate (the target's).
    const rate = Math.max(10, Math.round(ingest.rps / 2));
    const loop = await openLoop({ port, path: '/github', body, rate, durationS: DURATION_S });
    accepted += loop.samples.length;
    let expected = stored + loop.samples.length;
    await waitForReceipts(target, expected);
    // The relay's sustainable rate: ingest and delivery at once, sharing this machine's cores, so each
    // event costs an ingest and a delivery (1 / (1/ingest + 1/delivery)); measured at half of it.
    const sustainable = 1 / (1 / ingest.rps + drainSeconds / stored);
    const sustainableRate = Math.max(10, Math.round(sustainable / 2));
    const calm = await openLoop({ port, path: '/github', body, rate: sustainableRate, durationS: DURATION_S });
    accepted += calm.samples.length;
    expected += calm.samples.length;
    await waitForReceipts(target, expected);
    // (e) a trickle: 10 events/s, the latency of a quiet relay.
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

    // (e) peak RSS, (f) the ledger: every accepted event reached the target, once.
    const rss = { api: peakRssMb(api.pid), worker: Math.max(...workers.map((w) => peakRssMb(w.pid) ?? 0)) };
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
      trickleTimeline,
      rssApiMb: rss.api,
      rssWorkerMb: rss.worker,
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
    await deleteKeys(prefix);
  }
}

function versionOf(pkg, from = 'apps/api') {
  try {
    return JSON.parse(readFileSync(path.join(root, from, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

async function main() {
  log(`building (${smoke ? 'smoke' : `${RUNS} runs`}, ${WORKERS} workers${profile ? ', profiling' : ''})`);
  const cluster = profile ? await startProfileCluster() : null;
  if (cluster) useDatabaseServer(cluster.url);
  try {
    await measure();
  } finally {
    cluster?.stop();
  }
}

async function measure() {
  execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'ignore' });
  const floorEntry = await buildDeliveryFloor(root);
  if (profile) {
    rmSync(profileDir, { recursive: true, force: true });
    mkdirSync(profileDir, { recursive: true });
  }
  const runs = [];
  for (let run = 1; run <= RUNS; run++) {
    const express = await expressBaseline();
    const bullmq = await bullmqBaseline(`benchnoop${process.pid}r${run}`, 32 * WORKERS);
    await deleteKeys(`benchnoop${process.pid}r${run}`);
    const ingestFloorRun = await ingestFloor({
      root,
      here,
      name: `relay_bench_${process.pid}_${run}_floor`,
      prefix: `benchfloori${process.pid}r${run}`,
      body,
      connections: CONNECTIONS,
      durationS: DURATION_S,
    });
    await deleteKeys(`benchfloori${process.pid}r${run}`);
    const deliveryFloorRun = await deliveryFloor({
      entry: floorEntry,
      here,
      prefix: `benchfloord${process.pid}r${run}`,
      jobs: BACKLOG,
      workers: WORKERS,
      concurrency: 32,
      body,
    });
    await deleteKeys(`benchfloord${process.pid}r${run}`);
    log(
      `run ${run}: floors: ingest ${Math.round(ingestFloorRun.rps)}/s, delivery ${Math.round(deliveryFloorRun.perSecond)}/s`,
    );
    const relay = await relayRun(run);
    // The floors chained, at the rate the relay's latency was judged at: what this machine allows.
    const latency = await latencyFloor({
      root,
      here,
      entry: floorEntry,
      name: `relay_bench_${process.pid}_${run}_latency`,
      prefix: `benchfloorl${process.pid}r${run}`,
      body,
      workers: WORKERS,
      concurrency: 32,
      rate: relay.sustainableRate,
      durationS: DURATION_S,
    });
    await deleteKeys(`benchfloorl${process.pid}r${run}`);
    log(`run ${run}: latency floor at ${relay.sustainableRate}/s: ${JSON.stringify(latency)}`);
    runs.push({
      expressPerSecond: express.rps,
      bullmqNoopPerSecond: bullmq.perSecond,
      ingestFloorPerSecond: ingestFloorRun.rps,
      deliveryFloorPerSecond: deliveryFloorRun.perSecond,
      ingestFloorCpuMs: ingestFloorRun.cpuMsPerRequest,
      deliveryFloorCpuMs: deliveryFloorRun.cpuMsPerJob,
      floorSustainableE2eP50: latency.e2eP50,
      floorSustainableE2eP99: latency.e2eP99,
      floorSustainableIngestP99: latency.ingestP99,
      ...relay,
    });
    log(`run ${run}: ${JSON.stringify(runs.at(-1))}`);
  }
  const perRunOnly = new Set(['usage', 'sustainableTimeline', 'trickleTimeline']);
  const metrics = Object.keys(runs[0]).filter((m) => !perRunOnly.has(m));
  const summary = Object.fromEntries(metrics.map((m) => [m, summarize(runs.map((r) => r[m]))]));
  const med = (m) => summary[m].median;
  // Ratios of medians, and the median of each run's own ratio (both sides measured in the same run,
  // minutes apart, so the machine's mood of the hour cancels out).
  const sameRun = (num, den) => summarize(runs.map((r) => r[num] / r[den])).median;
  const ratios = {
    ingestVsExpress: med('ingestPerSecond') / med('expressPerSecond'),
    ingestVsFloor: med('ingestPerSecond') / med('ingestFloorPerSecond'),
    deliveredVsBullmqNoop: med('deliveredPerSecond') / med('bullmqNoopPerSecond'),
    deliveredVsFloor: med('deliveredPerSecond') / med('deliveryFloorPerSecond'),
    sameRun: {
      ingestVsExpress: sameRun('ingestPerSecond', 'expressPerSecond'),
      ingestVsFloor: sameRun('ingestPerSecond', 'ingestFloorPerSecond'),
      deliveredVsBullmqNoop: sameRun('deliveredPerSecond', 'bullmqNoopPerSecond'),
      deliveredVsFloor: sameRun('deliveredPerSecond', 'deliveryFloorPerSecond'),
    },
  };
  const targets = {
    deliveredVsFloor: { target: '>= 0.8', met: ratios.sameRun.deliveredVsFloor >= 0.8 },
    ingestVsFloor: { target: '>= 0.9', met: ratios.sameRun.ingestVsFloor >= 0.9 },
    ingestVsExpress: { target: '>= 0.6', met: ratios.sameRun.ingestVsExpress >= 0.6 },
    e2eP99Ms: { target: '<= 50 at half the sustainable rate', met: med('sustainableE2eP99') <= 50 },
    ingestP99Ms: { target: '<= 20 at half the sustainable rate', met: med('sustainableIngestP99') <= 20 },
    trickleE2eP50Ms: { target: '<= 10 at 10 events/s', met: med('trickleE2eP50') <= 10 },
    rssMb: { target: '<= 200 each', met: med('rssApiMb') <= 200 && med('rssWorkerMb') <= 200 },
    duplicates: { target: '0', met: runs.every((r) => r.duplicates === 0) },
    // autocannon counts the 202s it read before its clock stopped; requests still in flight then were
    // stored too, so stored ≥ accepted, and every stored event must reach the target.
    lost: { target: '0', met: runs.every((r) => r.lost === 0 && r.stored >= r.accepted) },
  };
  const result = {
    date: new Date().toISOString(),
    mode: smoke ? 'smoke' : 'full',
    runs: RUNS,
    workers: WORKERS,
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      memoryGb: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
    },
    versions: {
      express: versionOf('express'),
      bullmq: versionOf('bullmq'),
      prismaClient: versionOf('@prisma/client'),
      got: versionOf('got', 'apps/delivery-worker'),
      autocannon: versionOf('autocannon', '.'),
    },
    settings: {
      durationS: DURATION_S,
      backlog: BACKLOG,
      connections: CONNECTIONS,
      payloadBytes: Buffer.byteLength(body),
    },
    summary,
    ratios,
    targets,
    perRun: runs,
  };
  mkdirSync(path.join(here, 'results'), { recursive: true });
  if (profile) {
    const profiles = readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'));
    const report = {
      date: result.date,
      usage: runs.map((r) => r.usage),
      cpuProfiles: Object.fromEntries(profiles.map((f) => [f, summarizeProfile(path.join(profileDir, f))])),
    };
    const file = smoke ? 'profile-smoke.json' : 'profile.json';
    writeFileSync(path.join(here, 'results', file), `${JSON.stringify(report, null, 2)}\n`);
    log(`profile: bench/results/${file} (CPU profiles in bench/results/profiles/)`);
  }
  writeFileSync(
    path.join(here, 'results', smoke ? 'smoke.json' : profile ? 'profile-run.json' : 'latest.json'),
    `${JSON.stringify(result, null, 2)}\n`,
  );
  const row = (name, m, unit = '') => {
    const s = summary[m];
    return `| ${name} | ${round(s.median)}${unit} | ${round(s.min)}–${round(s.max)}${unit} |`;
  };
  console.log(
    [
      `| metric (${RUNS} run${RUNS > 1 ? 's' : ''}, median) | value | min–max |`,
      '|---|---|---|',
      row('bare Express 5 + express.json() (req/s)', 'expressPerSecond'),
      row('BullMQ no-op worker (jobs/s)', 'bullmqNoopPerSecond'),
      row('durable-ingest floor (req/s)', 'ingestFloorPerSecond'),
      row('delivery floor (jobs/s)', 'deliveryFloorPerSecond'),
      row('relay ingest accepted/s', 'ingestPerSecond'),
      row('relay delivered/s (backlog drain)', 'deliveredPerSecond'),
      row('end-to-end p50 at half the ingest rate, overload (ms)', 'e2eP50'),
      row('end-to-end p99 at half the ingest rate, overload (ms)', 'e2eP99'),
      row('ingest p50 at half the ingest rate, overload (ms)', 'ingestP50'),
      row('ingest p99 at half the ingest rate, overload (ms)', 'ingestP99'),
      row('half the sustainable rate, ingest and delivery at once (req/s)', 'sustainableRate'),
      row('end-to-end p50 at that rate (ms)', 'sustainableE2eP50'),
      row('end-to-end p99 at that rate (ms)', 'sustainableE2eP99'),
      row('ingest p99 at that rate (ms)', 'sustainableIngestP99'),
      row('latency floor (the floors chained) at that rate: end-to-end p50 (ms)', 'floorSustainableE2eP50'),
      row('latency floor at that rate: end-to-end p99 (ms)', 'floorSustainableE2eP99'),
      row('latency floor at that rate: ingest p99 (ms)', 'floorSustainableIngestP99'),
      row('end-to-end p50 at 10 events/s (ms)', 'trickleE2eP50'),
      row('end-to-end p99 at 10 events/s (ms)', 'trickleE2eP99'),
      row('api CPU per ingested event (ms)', 'ingestApiCpuMs'),
      row('durable-ingest floor CPU per request (ms)', 'ingestFloorCpuMs'),
      row('Postgres CPU per ingested event (ms)', 'ingestPostgresCpuMs'),
      row('worker CPU per delivered event (ms, all workers)', 'drainWorkerCpuMs'),
      row('delivery floor CPU per job (ms, all processes)', 'deliveryFloorCpuMs'),
      row('Postgres CPU per delivered event (ms)', 'drainPostgresCpuMs'),
      row('Redis commands per ingested event', 'ingestRedisCommands'),
      row('Redis commands per delivered event', 'drainRedisCommands'),
      row('api peak RSS (MB)', 'rssApiMb'),
      row('worker peak RSS (MB)', 'rssWorkerMb'),
      row('lost events', 'lost'),
      row('duplicate deliveries', 'duplicates'),
      '',
      `same-run ratios (median): ingest / floor = ${ratios.sameRun.ingestVsFloor.toFixed(2)} (target ≥ 0.9), ` +
        `ingest / Express = ${ratios.sameRun.ingestVsExpress.toFixed(2)} (target ≥ 0.6); ` +
        `delivered / floor = ${ratios.sameRun.deliveredVsFloor.toFixed(2)} (target ≥ 0.8), ` +
        `delivered / BullMQ no-op = ${ratios.sameRun.deliveredVsBullmqNoop.toFixed(2)}`,
      `targets met: ${Object.entries(targets)
        .map(([k, v]) => `${k} ${v.met ? 'yes' : 'NO'}`)
        .join(', ')}`,
    ].join('\n'),
  );
  if (!targets.lost.met) process.exitCode = 1;
}

// pnpm bench --fair: the fair-delivery scenario (a healthy target alone, then beside a hanging one).
// pnpm bench --search [--search-events N]: search over a large organization (default 1,000,000 events).
// pnpm bench --fanout N: a rule with N destinations against the same rule with none (bench/fanout.mjs).
// `--fanout` alone (or followed by another flag) means 3 destinations.
// pnpm bench --transform: a typical transform's worker CPU per delivery beside the plain delivery rate.
// pnpm bench --redis-cluster: the sharded queues on a private single Redis and a 3-primary cluster (redis-cluster.mjs).
// pnpm bench --pacing-ab: a rule without pacing, the build before pacing against this one (bench/pacing-ab.mjs).
const fanOutCount = () => (/^\d+$/.test(args[args.indexOf('--fanout') + 1] ?? '') ? option('--fanout', 3) : 3);
const scenario = args.includes('--redis-cluster')
  ? import('./redis-cluster.mjs').then((rc) => rc.runRedisCluster({ smoke, log }))
  : args.includes('--transform')
    ? import('./transform-delivery.mjs').then((t) => t.runTransformDelivery({ root, smoke, log }))
    : args.includes('--pacing-ab')
      ? import('./pacing-ab.mjs').then((ab) => ab.runPacingAb({ root, smoke, log }))
      : args.includes('--fair')
        ? import('./fair-delivery.mjs').then((fair) => fair.runFairDelivery({ root, smoke, workers: WORKERS, log }))
        : args.includes('--fanout')
          ? import('./fanout.mjs').then((fanOut) =>
              fanOut.runFanOut({ root, smoke, workers: WORKERS, destinations: fanOutCount(), log }),
            )
          : args.includes('--search')
            ? import('./search-scale.mjs').then((search) => {
                execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'ignore' });
                return search.runSearchScale({
                  root,
                  events: option('--search-events', smoke ? 5_000 : 1_000_000),
                  log,
                });
              })
            : main();
scenario.catch((err) => {
  console.error(err);
  process.exit(1);
});
