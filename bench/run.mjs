// pnpm bench [--smoke] [--runs N] [--workers N] [--profile] [--fair] [--search [--search-events N]] [--fanout N]
//   [--retention [--retention-events N] [--rounds N] [--cold] [--tablespace NAME] [--history-days N]
//     [--variant concurrent]]
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
import { deleteKeys, REDIS_URL, useDatabaseServer } from './lib/database.mjs';
import { summarizeProfile } from './lib/cpu-profile.mjs';
import { startProfileCluster } from './lib/pg-cluster.mjs';
import { saturate } from './lib/load.mjs';
import { forkReady, stop } from './lib/processes.mjs';
import { relayRun } from './lib/relay-run.mjs';
import { buildDeliveryFloor, deliveryFloor, ingestFloor, latencyFloor } from './lib/floors.mjs';
import { round, summarize } from './lib/stats.mjs';

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
    const relay = await relayRun({
      root,
      here,
      run,
      body,
      workers: WORKERS,
      durationS: DURATION_S,
      backlog: BACKLOG,
      connections: CONNECTIONS,
      profile,
      profileDir,
      log,
    });
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
      // The floors' CPU per event at that rate (ingest server, workers, Postgres, Redis), against
      // sustainableRelayCpuMs: what the relay adds per event where its tail is judged; and how busy the machine was.
      floorSustainableCpuMs: Object.entries(latency.cpuMsPerEvent)
        .filter(([k]) => k !== 'loadGenerator' && k !== 'target')
        .reduce((sum, [, ms]) => sum + ms, 0),
      floorSustainableMachine: { busy: latency.busy, runnableMean: latency.runnableMean },
      ...relay,
    });
    log(`run ${run}: ${JSON.stringify(runs.at(-1))}`);
  }
  const perRunOnly = new Set([
    'usage',
    'sustainableTimeline',
    'sustainableMachine',
    'floorSustainableMachine',
    'rssByPhase',
    'trickleTimeline',
  ]);
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
      row('CPU per event at that rate: relay processes (ms)', 'sustainableRelayCpuMs'),
      row('CPU per event at that rate: the floors chained (ms)', 'floorSustainableCpuMs'),
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
      row('api RSS that is mapped files, mostly the node binary (MB)', 'rssApiFilesMb'),
      row('worker RSS that is mapped files (MB)', 'rssWorkerFilesMb'),
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
// pnpm bench --retention [--retention-events N] [--rounds N] [--cold]: a past day's partition dropped while ingest runs
// (retention-drop.mjs, run with tsx: it loads the retention repositories from TypeScript); --cold evicts the day's
// files from the page cache first, as a day past retention is on an install whose history exceeds memory; --tablespace
// puts the filled days in an existing tablespace (one on a file system mounted without online discard, say);
// --history-days N (default 6) keeps N retained days of search chunks beside the dropped day's; --variant concurrent
// drops every other pair of rounds' days with DETACH ... CONCURRENTLY (experiments/concurrent-detach.ts, measured only).
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
          : args.includes('--retention')
            ? Promise.resolve().then(() => {
                execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'ignore' });
                const events = args.includes('--retention-events')
                  ? ['--events', String(option('--retention-events', 0))]
                  : [];
                const rounds = args.includes('--rounds') ? ['--rounds', String(option('--rounds', 1))] : [];
                const history = args.includes('--history-days')
                  ? ['--history-days', String(option('--history-days', 6))]
                  : [];
                execFileSync(
                  process.execPath,
                  [
                    '--import',
                    'tsx',
                    path.join(here, 'retention-drop.mjs'),
                    ...(smoke ? ['--smoke'] : []),
                    ...(args.includes('--cold') ? ['--cold'] : []),
                    ...(args.includes('--tablespace') ? ['--tablespace', args[args.indexOf('--tablespace') + 1]] : []),
                    ...(args.includes('--variant') ? ['--variant', args[args.indexOf('--variant') + 1]] : []),
                    ...events,
                    ...rounds,
                    ...history,
                  ],
                  { stdio: 'inherit', cwd: root },
                );
              })
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
