// pnpm bench --fair [--smoke] [--workers N]
// Issue 11, item 5: a healthy target's delivery throughput (backlog drain) and end-to-end p99 (open
// loop) measured alone, then beside 100 events pending on a target that never answers. Each phase
// runs on its own database with the production build; the figures go to bench/results/fair.json.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { deleteKeys, freshDatabase, admin, query, REDIS_URL } from './lib/database.mjs';
import { openLoop, saturate } from './lib/load.mjs';
import { ask, forkReady, freePort, startNode, stop, waitForHttp, waitForReceipts } from './lib/processes.mjs';
import { percentile, round } from './lib/stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const body = readFileSync(path.join(here, 'github-push.json'), 'utf8');
const HANGING = 100;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The hanging target's events, sent with X-Target-Url (the api allows it in this scenario). */
async function ingestHanging(port, hangingPort) {
  const send = () =>
    fetch(`http://127.0.0.1:${port}/github`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-target-url': `http://127.0.0.1:${hangingPort}/stuck` },
      body,
    }).then((res) => {
      if (res.status !== 202) throw new Error(`hanging event refused: ${res.status}`);
    });
  await Promise.all(Array.from({ length: HANGING }, send));
}

async function phase({ root, name, withHanging, workers, backlog, rate, durationS, log }) {
  const dbName = `relay_fair_${process.pid}_${name}`;
  const prefix = `fair${process.pid}${name}`;
  const url = await freshDatabase(root, dbName);
  const { child: target, msg: targetReady } = await forkReady(path.join(here, 'target-server.mjs'));
  const { child: hanging, msg: hangingReady } = await forkReady(path.join(here, 'target-server.mjs'), { HANG: '1' });
  const port = await freePort();
  const env = {
    DATABASE_URL: url,
    REDIS_URL,
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    DEFAULT_TARGET_URL: `http://127.0.0.1:${targetReady.port}/hook`,
    TARGET_ALLOW_PRIVATE: 'true',
    ALLOW_PUBLIC_TARGET_OVERRIDE: 'true',
    PORT: String(port),
    WORKER_HEALTH_PORT: '0',
  };
  const workerEntry = path.join(root, 'apps/delivery-worker/dist/main.mjs');
  const api = startNode(path.join(root, 'apps/api/dist/main.mjs'), env);
  const running = [];
  try {
    await waitForHttp(`http://127.0.0.1:${port}/ready`);
    // As in the main run: a worker's first sweep meets an empty queue, then the backlog is built.
    const first = startNode(workerEntry, env);
    await sleep(1500);
    await stop(first);
    // The hanging target's events are enqueued first: the worst case, they are ahead in the queue.
    if (withHanging) await ingestHanging(port, hangingReady.port);
    const ingested = await saturate({ url: `http://127.0.0.1:${port}/github`, body, connections: 64, amount: backlog });
    const healthy = ingested.ok;

    const started = performance.now();
    for (let i = 0; i < workers; i++) running.push(startNode(workerEntry, env));
    const drained = await waitForReceipts(target, healthy);
    const drainSeconds = (performance.now() - started) / 1000;
    log(`${name}: drained ${drained.unique} of ${healthy} healthy events in ${drainSeconds.toFixed(2)} s`);

    const loop = await openLoop({ port, path: '/github', body, rate, durationS });
    await waitForReceipts(target, healthy + loop.samples.length);
    const receipts = new Map((await ask(target, 'receipts')).receipts.map(([id, t, n]) => [id, { t, n }]));
    const e2e = loop.samples.map((s) => receipts.get(s.id)?.t - s.t0).filter((v) => Number.isFinite(v));
    const [stuck] = await query(
      url,
      `SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued, coalesce(sum(attempt_count), 0)::int AS attempts
       FROM events WHERE target_url LIKE $1`,
      [`http://127.0.0.1:${hangingReady.port}/%`],
    );
    const hangingRequests = (await ask(hanging, 'stats')).total;
    return {
      healthyBacklog: healthy,
      deliveredPerSecond: drained.unique / drainSeconds,
      offeredRate: rate,
      openLoopDelivered: e2e.length,
      openLoopOffered: loop.samples.length,
      e2eP50: percentile(e2e, 50),
      e2eP99: percentile(e2e, 99),
      duplicates: [...receipts.values()].reduce((sum, r) => sum + (r.n - 1), 0),
      hangingStillQueued: stuck.queued,
      hangingAttempts: stuck.attempts,
      hangingRequests,
    };
  } finally {
    await Promise.all([stop(api), ...running.map((w) => stop(w))]);
    await Promise.all([stop(target), stop(hanging)]);
    await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await deleteKeys(prefix);
  }
}

export async function runFairDelivery({ root, smoke, workers, log }) {
  log(`fair delivery: building (${smoke ? 'smoke' : 'full'}, ${workers} workers)`);
  execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'ignore' });
  const settings = smoke ? { backlog: 500, rate: 100, durationS: 2 } : { backlog: 10_000, rate: 300, durationS: 10 };
  const common = { root, workers, log, ...settings };
  const alone = await phase({ ...common, name: 'alone', withHanging: false });
  log(`alone: ${JSON.stringify(alone)}`);
  const beside = await phase({ ...common, name: 'beside', withHanging: true });
  log(`beside hanging: ${JSON.stringify(beside)}`);
  const ratios = {
    throughput: beside.deliveredPerSecond / alone.deliveredPerSecond,
    p99: beside.e2eP99 / alone.e2eP99,
  };
  const targets = {
    throughput: { target: '>= 0.8 of alone', met: ratios.throughput >= 0.8 },
    p99: { target: '<= 2x alone', met: ratios.p99 <= 2 },
    hangingPending: { target: 'hanging events still queued', met: beside.hangingStillQueued > 0 },
    duplicates: { target: '0', met: alone.duplicates === 0 && beside.duplicates === 0 },
  };
  const result = {
    date: new Date().toISOString(),
    mode: smoke ? 'smoke' : 'full',
    workers,
    settings,
    alone,
    beside,
    ratios,
    targets,
  };
  mkdirSync(path.join(here, 'results'), { recursive: true });
  writeFileSync(
    path.join(here, 'results', smoke ? 'fair-smoke.json' : 'fair.json'),
    `${JSON.stringify(result, null, 2)}\n`,
  );
  const row = (label, key, digits = 1) => `| ${label} | ${round(alone[key], digits)} | ${round(beside[key], digits)} |`;
  console.log(
    [
      `| healthy target (${workers} workers) | alone | beside ${HANGING} hanging |`,
      '|---|---|---|',
      row('delivered/s (backlog drain)', 'deliveredPerSecond'),
      row(`end-to-end p50 at ${settings.rate}/s (ms)`, 'e2eP50'),
      row(`end-to-end p99 at ${settings.rate}/s (ms)`, 'e2eP99'),
      row('duplicate deliveries', 'duplicates', 0),
      row('hanging events still queued', 'hangingStillQueued', 0),
      '',
      `throughput beside / alone = ${ratios.throughput.toFixed(2)} (target ≥ 0.8); ` +
        `p99 beside / alone = ${ratios.p99.toFixed(2)} (target ≤ 2)`,
      `targets met: ${Object.entries(targets)
        .map(([k, v]) => `${k} ${v.met ? 'yes' : 'NO'}`)
        .join(', ')}`,
    ].join('\n'),
  );
  // As in the main run, speed targets are reported; correctness (nothing delivered twice, the
  // hanging target's events still pending rather than lost or failed) decides the exit code.
  if (!targets.duplicates.met || !targets.hangingPending.met) process.exitCode = 1;
}
