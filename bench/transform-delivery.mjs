// pnpm bench --transform [--smoke] [--transform-backlog N]
// Issue 30, "Done when": a typical transform's cost per delivery (target: at most 1 ms of worker CPU) beside the
// plain delivery rate, in the same run. Two phases on their own databases with the production build and one worker:
// a rule without a transform, then the same rule with the documented GitHub push → chat message transform. Each
// drains the same backlog of the bench's 1.3 KB push; the worker's CPU (every thread: the sandbox's too, /proc) per
// delivery is read for both, and their difference is the transform's cost. Results: bench/results/transform.json.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { admin, deleteKeys, freshDatabase, query, REDIS_URL } from './lib/database.mjs';
import { saturate } from './lib/load.mjs';
import { forkReady, freePort, peakRssMb, startNode, stop, waitForHttp, waitForReceipts } from './lib/processes.mjs';
import { cpuMsOf } from './lib/usage.mjs';
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

async function phase({ root, name, transform, backlog, log }) {
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
    worker = startNode(path.join(root, 'apps/delivery-worker/dist/main.mjs'), env);
    // Boot (module load, connections) is not delivery work: CPU is counted from the first receipt on.
    await waitForReceipts(target, 1);
    const cpu0 = cpuMsOf(worker.pid);
    const started = performance.now();
    const drained = await waitForReceipts(target, ingested.ok);
    const seconds = (performance.now() - started) / 1000;
    const cpuMs = cpuMsOf(worker.pid) - cpu0;
    const rssMb = peakRssMb(worker.pid);
    const [stored] = await query(
      url,
      `SELECT count(*) FILTER (WHERE transformed_body IS NOT NULL)::int AS transformed,
         count(*) FILTER (WHERE status = 'delivered')::int AS delivered FROM events`,
    );
    // A shortfall is shown with what became of each missing event (a lost event must not pass as a slow run).
    const undelivered = drained.unique < ingested.ok ? await describeUndelivered(url, prefix) : [];
    if (undelivered.length > 0) log(`${name}: undelivered: ${JSON.stringify(undelivered, null, 2)}`);
    await sleep(200);
    const delivered = drained.unique - 1;
    log(
      `${name}: ${drained.unique} delivered in ${seconds.toFixed(2)} s, ${(cpuMs / delivered).toFixed(3)} ms CPU each`,
    );
    return {
      backlog: ingested.ok,
      deliveredPerSecond: round(delivered / seconds),
      workerCpuMsPerDelivery: round(cpuMs / delivered, 3),
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
  const i = args.indexOf('--transform-backlog');
  const backlog = i >= 0 ? Number(args[i + 1]) : smoke ? 300 : 5_000;
  log(`transform delivery: building (${backlog} events per phase)`);
  execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'ignore' });
  const plain = await phase({ root, name: 'plain', transform: null, backlog, log });
  const transformed = await phase({ root, name: 'transform', transform: chatTransform(root), backlog, log });
  const cost = round(transformed.workerCpuMsPerDelivery - plain.workerCpuMsPerDelivery, 3);
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    smoke,
    transform: 'github-push-to-chat (docs/transformations.md)',
    plain,
    transformed,
    transformCpuMsPerDelivery: cost,
    target: { transformCpuMsPerDelivery: 1, met: cost <= 1 },
  };
  if (!smoke) {
    mkdirSync(path.join(here, 'results'), { recursive: true });
    writeFileSync(path.join(here, 'results/transform.json'), `${JSON.stringify(result, null, 2)}\n`);
  }
  console.log(JSON.stringify(result, null, 2));
  if (!result.target.met) process.exitCode = 1;
}
