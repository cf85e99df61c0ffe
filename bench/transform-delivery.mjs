// pnpm bench --transform [--smoke] [--runs N (default 5)] [--transform-backlog N] [--profile]
// Issue 30, "Done when": a typical transform's cost per delivery (target: at most 1 ms of worker CPU) beside the
// plain delivery rate, in the same run. A run is two phases on their own databases with the production build and one
// worker: a rule without a transform, and the same rule with the documented GitHub push → chat message transform.
// Each drains the same backlog of the bench's 1.3 KB push; the worker's CPU (every thread: the sandbox's too, /proc)
// per delivery is read for both, from its first delivery to its last (boot is no delivery work), and the run's
// difference is the transform's cost. Runs are interleaved: the two phases of a run follow each other, their order
// alternating from run to run, so the machine's load of the minute falls on both sides alike; the result is the
// median of the runs' own differences, every run shown. --profile writes the worker's CPU profiles (every thread)
// to bench/results/profiles/transform-*. Results: bench/results/transform.json.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { admin, deleteKeys, freshDatabase, query, REDIS_URL } from './lib/database.mjs';
import { saturate } from './lib/load.mjs';
import { forkReady, freePort, peakRssMb, startNode, stop, waitForHttp, waitForReceipts } from './lib/processes.mjs';
import { cpuMsByThread, cpuMsOf, sleepsByThread } from './lib/usage.mjs';
import { round } from './lib/stats.mjs';
import { describeUndelivered } from './lib/undelivered.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const body = readFileSync(path.join(here, 'github-push.json'), 'utf8');
const ORG = '00000000-0000-7000-8000-000000000001';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function chatTransform(root) {
  const doc = readFileSync(path.join(root, 'docs/transformations.md'), 'utf8');
  const code = /```js\n(\/\/ example: github-push-to-chat\n[\s\S]*?)```/.exec(doc)?.[1];
  if (!code) throw new Error('docs/transformations.md: the github-push-to-chat example is missing');
  return code;
}

export async function phase({ root, name, transform, backlog, log, profileDir, smoke }) {
  const dbName = `relay_transform_${process.pid}_${name}`;
  const prefix = `xform${process.pid}${name}`;
  const url = await freshDatabase(root, dbName);
  const { child: target, msg: targetReady } = await forkReady(path.join(here, 'target-server.mjs'));
  await query(
    url,
    `INSERT INTO providers (id, organization_id, name, source, target_url, transform, updated_at)
     VALUES (gen_random_uuid(), $1, 'github', 'github', $2, $3, now())`,
    [ORG, `http://127.0.0.1:${targetReady.port}/hook`, transform],
  );
  const port = await freePort();
  const env = {
    DATABASE_URL: url,
    REDIS_URL,
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    TARGET_ALLOW_PRIVATE: 'true',
    PORT: String(port),
    WORKER_HEALTH_PORT: '0',
  };
  const api = startNode(path.join(root, 'apps/api/dist/main.mjs'), env);
  let worker;
  try {
    await waitForHttp(`http://127.0.0.1:${port}/ready`);
    const ingested = await saturate({ url: `http://127.0.0.1:${port}/github`, body, connections: 64, amount: backlog });
    const profileFlags = profileDir
      ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=transform-${name}-${Date.now()}.cpuprofile`]
      : [];
    worker = startNode(path.join(root, 'apps/delivery-worker/dist/main.mjs'), env, profileFlags);
    // Boot (module load, connections) is not delivery work: CPU is counted from the first receipt on.
    await waitForReceipts(target, 1);
    const cpu0 = cpuMsOf(worker.pid);
    const threads0 = cpuMsByThread(worker.pid);
    const sleeps0 = sleepsByThread(worker.pid);
    const started = performance.now();
    const drained = await waitForReceipts(target, ingested.ok);
    const seconds = (performance.now() - started) / 1000;
    const cpuMs = cpuMsOf(worker.pid) - cpu0;
    const threads1 = cpuMsByThread(worker.pid);
    const sleeps1 = sleepsByThread(worker.pid);
    const rssMb = peakRssMb(worker.pid);
    const [stored] = await query(
      url,
      `SELECT count(*) FILTER (WHERE transformed_body IS NOT NULL)::int AS transformed,
         count(*) FILTER (WHERE status = 'delivered')::int AS delivered FROM events`,
    );
    // A shortfall is shown with what became of each missing event (a lost event must not pass as a slow run).
    const undelivered = drained.unique < ingested.ok ? await describeUndelivered(url, prefix) : [];
    if (undelivered.length > 0) log(`${name}: undelivered: ${JSON.stringify(undelivered, null, 2)}`);
    // The worker's CPU when it has nothing to deliver (its timers, sweeps, BullMQ's blocking reads): a drain that a
    // loaded machine makes longer accrues more of it per delivery, which is the machine's doing, not the delivery's.
    // Read over a few idle seconds and shown beside, never subtracted from the judged figure.
    await sleep(1000);
    const idle0 = cpuMsOf(worker.pid);
    const idleStart = performance.now();
    await sleep(smoke ? 1000 : 5000);
    const idleMsPerSecond = (cpuMsOf(worker.pid) - idle0) / ((performance.now() - idleStart) / 1000);
    const delivered = drained.unique - 1;
    // Where the CPU went, by thread (the main thread, the sandbox threads, V8's helpers): per delivery.
    const byThread = Object.fromEntries(
      Object.keys(threads1).map((kind) => [kind, round((threads1[kind] - threads0[kind]) / delivered, 3)]),
    );
    // How often each kind of thread slept (and was woken), per delivery.
    const sleeps = Object.fromEntries(
      Object.keys(sleeps1).map((kind) => [kind, round((sleeps1[kind] - sleeps0[kind]) / delivered, 2)]),
    );
    log(
      `${name}: ${drained.unique} delivered in ${seconds.toFixed(2)} s, ${(cpuMs / delivered).toFixed(3)} ms CPU each ` +
        `(idle ${idleMsPerSecond.toFixed(1)} ms/s, load ${os.loadavg()[0].toFixed(1)}; ` +
        `by thread ${JSON.stringify(byThread)}; sleeps ${JSON.stringify(sleeps)})`,
    );
    return {
      backlog: ingested.ok,
      deliveredPerSecond: round(delivered / seconds),
      workerCpuMsPerDelivery: round(cpuMs / delivered, 3),
      workerIdleCpuMsPerSecond: round(idleMsPerSecond, 1),
      workerCpuMsPerDeliveryByThread: byThread,
      workerSleepsPerDeliveryByThread: sleeps,
      workerCpuMsPerDeliveryNetOfIdle: round((cpuMs - idleMsPerSecond * seconds) / delivered, 3),
      loadAverage: round(os.loadavg()[0], 1),
      workerPeakRssMb: rssMb,
      eventsWithStoredTransform: stored.transformed,
      eventsDelivered: stored.delivered,
      ...(undelivered.length > 0 ? { undelivered } : {}),
    };
  } finally {
    await Promise.all([stop(api), ...(worker ? [stop(worker)] : [])]);
    await stop(target);
    await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await deleteKeys(prefix);
  }
}

export async function runTransformDelivery({ root, smoke, log }) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  const backlog = option('--transform-backlog', smoke ? 300 : 5_000);
  // Five by default: three runs' differences spread over 0.84–1.27 ms here (docs/performance.md, "Fifth round").
  const runs = option('--runs', smoke ? 1 : 5);
  const profileDir = args.includes('--profile') ? path.join(here, 'results/profiles') : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  log(`transform delivery: building (${runs} runs of two phases, ${backlog} events per phase)`);
  execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'ignore' });
  const code = chatTransform(root);
  const perRun = [];
  for (let run = 1; run <= runs; run++) {
    const sides = [
      { side: 'plain', name: `plain${run}`, transform: null },
      { side: 'transformed', name: `transform${run}`, transform: code },
    ];
    const measured = {};
    for (const { side, name, transform } of run % 2 ? sides : sides.reverse())
      measured[side] = await phase({ root, name, transform, backlog, log, profileDir, smoke });
    const cost = round(measured.transformed.workerCpuMsPerDelivery - measured.plain.workerCpuMsPerDelivery, 3);
    const net = round(
      measured.transformed.workerCpuMsPerDeliveryNetOfIdle - measured.plain.workerCpuMsPerDeliveryNetOfIdle,
      3,
    );
    log(`run ${run}: transform ${cost} ms of worker CPU per delivery (${net} ms net of the idle worker's CPU)`);
    perRun.push({
      run,
      order: run % 2 ? 'plain first' : 'transform first',
      ...measured,
      transformCpuMsPerDelivery: cost,
      transformCpuMsPerDeliveryNetOfIdle: net,
    });
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const cost = median(perRun.map((r) => r.transformCpuMsPerDelivery));
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    smoke,
    transform: 'github-push-to-chat (docs/transformations.md)',
    settings: { runs, backlog, workers: 1 },
    // Medians of the runs: the plain delivery rate beside the transformed one, and the transform's CPU per delivery.
    plainDeliveredPerSecond: median(perRun.map((r) => r.plain.deliveredPerSecond)),
    transformedDeliveredPerSecond: median(perRun.map((r) => r.transformed.deliveredPerSecond)),
    plainWorkerCpuMsPerDelivery: median(perRun.map((r) => r.plain.workerCpuMsPerDelivery)),
    transformCpuMsPerDelivery: cost,
    transformCpuMsPerDeliveryByRun: perRun.map((r) => r.transformCpuMsPerDelivery),
    // Beside, not judged: the same difference with each phase's idle-worker CPU over its drain taken out.
    transformCpuMsPerDeliveryNetOfIdle: median(perRun.map((r) => r.transformCpuMsPerDeliveryNetOfIdle)),
    loadAverages: perRun.flatMap((r) => [r.plain.loadAverage, r.transformed.loadAverage]),
    target: { transformCpuMsPerDelivery: 1, met: cost <= 1 },
    perRun,
  };
  if (!smoke) {
    mkdirSync(path.join(here, 'results'), { recursive: true });
    writeFileSync(path.join(here, 'results/transform.json'), `${JSON.stringify(result, null, 2)}\n`);
  }
  console.log(JSON.stringify(result, null, 2));
  log(
    `transform: ${cost} ms of worker CPU per delivery (median; runs ${result.transformCpuMsPerDeliveryByRun.join(', ')}), ` +
      `plain delivery ${result.plainDeliveredPerSecond}/s, transformed ${result.transformedDeliveredPerSecond}/s`,
  );
  if (!result.target.met) process.exitCode = 1;
}
