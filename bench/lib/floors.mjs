// The two floors of a run: the least work a durable ingest and a signed delivery can do on this
// machine, measured with the same load as the relay so relay ÷ floor says what the relay adds.
import { build } from 'esbuild';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { admin, freshDatabase, query, REDIS_URL } from './database.mjs';
import { openLoop, saturate } from './load.mjs';
import { ask, forkReady, startNode, stop, waitForReceipts } from './processes.mjs';
import { percentile } from './stats.mjs';
import { startCalmProbe } from './calm-probe.mjs';
import { cpuMsOf, startPhase } from './usage.mjs';
import { bundleWorkspace } from '../../scripts/lib/bundle-workspace.mjs';

export const SIGNING_SECRET = 'whsec_YmVuY2gtc2lnbmluZy1zZWNyZXQtMzItYnl0ZXMhIQ==';

/** Bundles bench/delivery-floor.ts beside the worker's bundle (same packages, same build settings). */
export async function buildDeliveryFloor(root) {
  const outfile = path.join(root, 'apps/delivery-worker/dist/delivery-floor.mjs');
  await build({
    entryPoints: [path.join(root, 'bench/delivery-floor.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    packages: 'external',
    plugins: [bundleWorkspace(root)],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: 'warning',
  });
  return outfile;
}

/** Delivery floor: `jobs` queued jobs carrying the body, drained by `workers` floor processes. */
export async function deliveryFloor({ entry, here, prefix, jobs, workers, concurrency, body }) {
  const { child: target, msg } = await forkReady(path.join(here, 'target-server.mjs'));
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue('floor-delivery', { connection, prefix });
  const orgId = '00000000-0000-7000-8000-000000000001';
  for (let i = 0; i < jobs; i += 1000) {
    const n = Math.min(1000, jobs - i);
    await queue.addBulk(
      Array.from({ length: n }, (_, j) => {
        const eventId = `00000000-0000-7000-8000-${String(i + j).padStart(12, '0')}`;
        return { name: 'deliver', data: { orgId, eventId, body }, opts: { jobId: eventId, removeOnComplete: true } };
      }),
    );
  }
  const env = {
    REDIS_URL,
    QUEUE_PREFIX: prefix,
    TARGET_URL: `http://127.0.0.1:${msg.port}/hook`,
    SIGNING_SECRET,
    CONCURRENCY: String(concurrency),
  };
  const started = performance.now();
  const children = Array.from({ length: workers }, () => startNode(entry, env));
  try {
    const stats = await waitForReceipts(target, jobs);
    const seconds = (performance.now() - started) / 1000;
    // CPU per job of the floor's processes, to set beside the relay worker's (bench/lib/usage.mjs).
    const cpuMs = children.reduce((sum, c) => sum + cpuMsOf(c.pid), 0);
    return { perSecond: stats.unique / seconds, delivered: stats.unique, cpuMsPerJob: cpuMs / stats.unique };
  } finally {
    await Promise.all(children.map((c) => stop(c)));
    await stop(target);
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
    connection.disconnect();
  }
}

/** A migrated database with `floor_events`: a copy of `events` without the trigram index. */
async function floorDatabase(root, name) {
  const url = await freshDatabase(root, name);
  await query(url, 'CREATE TABLE floor_events (LIKE events INCLUDING ALL)');
  const [trgm] = await query(
    url,
    "SELECT indexname FROM pg_indexes WHERE tablename = 'floor_events' AND indexdef LIKE '%gin_trgm_ops%'",
  );
  if (trgm) await query(url, `DROP INDEX "${trgm.indexname}"`);
  return url;
}

const FLOOR_ORG = '00000000-0000-7000-8000-000000000001';

/** Durable-ingest floor: bench/ingest-floor.mjs against a migrated database's copy of `events` without search. */
export async function ingestFloor({ root, here, name, prefix, body, connections, durationS }) {
  const url = await floorDatabase(root, name);
  try {
    const { child, msg } = await forkReady(path.join(here, 'ingest-floor.mjs'), {
      DATABASE_URL: url,
      REDIS_URL,
      QUEUE_PREFIX: prefix,
      ORG_ID: FLOOR_ORG,
    });
    try {
      const target = `http://127.0.0.1:${msg.port}/github`;
      await saturate({ url: target, body, connections, durationS: 1 });
      const cpu0 = cpuMsOf(child.pid);
      const result = await saturate({ url: target, body, connections, durationS });
      return { ...result, cpuMsPerRequest: (cpuMsOf(child.pid) - cpu0) / result.ok };
    } finally {
      await stop(child);
    }
  } finally {
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

/**
 * Latency floor: the two floors chained (ingest floor -> queue -> delivery-floor workers -> target) under
 * the open-loop rate the relay's latency is judged at, on the same machine: the least ingest and
 * end-to-end latency this machine allows at that rate with the unavoidable work (a durable insert, a
 * queue, a signed POST), so a relay figure can be read against it.
 */
export async function latencyFloor({ root, here, entry, name, prefix, body, workers, concurrency, rate, durationS }) {
  const url = await floorDatabase(root, name);
  const { child: target, msg: targetReady } = await forkReady(path.join(here, 'target-server.mjs'));
  const children = [];
  try {
    const { child, msg } = await forkReady(path.join(here, 'ingest-floor.mjs'), {
      DATABASE_URL: url,
      REDIS_URL,
      QUEUE_PREFIX: prefix,
      ORG_ID: FLOOR_ORG,
      // Flush at once, like the relay's group commit (INGEST_BATCH_WAIT_MS=0).
      INGEST_BATCH_WAIT_MS: '0',
    });
    children.push(child);
    const env = {
      REDIS_URL,
      QUEUE_PREFIX: prefix,
      TARGET_URL: `http://127.0.0.1:${targetReady.port}/hook`,
      SIGNING_SECRET,
      CONCURRENCY: String(concurrency),
      // The ingest floor queues ids only; its workers send this body (no database read: a floor).
      FLOOR_BODY: body,
    };
    for (let i = 0; i < workers; i++) children.push(startNode(entry, env));
    // A warm-up second first (the workers connect, the JIT warms, as the relay had by its calm phase).
    const warm = await openLoop({ port: msg.port, path: '/github', body, rate, durationS: 1 });
    await waitForReceipts(target, warm.samples.length);
    // How busy the machine was and what each process spent per event, as the relay's phase at this rate records
    // (relay-run.mjs), so the two can be read side by side.
    const probe = await startCalmProbe(null, async () => ({}));
    const phase = await startPhase({
      pids: {
        ingest: child.pid,
        ...Object.fromEntries(children.slice(1).map((w, i) => [`worker${i + 1}`, w.pid])),
        loadGenerator: process.pid,
        target: target.pid,
      },
      databaseUrl: url,
    });
    const load = await openLoop({ port: msg.port, path: '/github', body, rate, durationS });
    const machine = await probe.end();
    await waitForReceipts(target, warm.samples.length + load.samples.length);
    const usage = await phase.end(load.samples.length);
    const receipts = new Map((await ask(target, 'receipts')).receipts.map(([id, t]) => [id, t]));
    const e2e = load.samples.map((s) => receipts.get(s.id) - s.t0).filter((v) => Number.isFinite(v));
    const ingest = load.samples.map((s) => s.t1 - s.t0);
    return {
      e2eP50: percentile(e2e, 50),
      e2eP99: percentile(e2e, 99),
      ingestP50: percentile(ingest, 50),
      ingestP99: percentile(ingest, 99),
      delivered: e2e.length,
      offered: load.offered,
      busy: machine.busy,
      runnableMean: machine.runnableMean,
      cpuMsPerEvent: Object.fromEntries(Object.entries(usage.cpu).map(([k, c]) => [k, c.msPerEvent])),
      redisCommandsPerEvent: usage.redisCommandsPerEvent,
    };
  } finally {
    await Promise.all(children.map((c) => stop(c)));
    await stop(target);
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue('floor-delivery', { connection, prefix });
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
    connection.disconnect();
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}
