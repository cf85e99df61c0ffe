// The two floors of a run: the least work a durable ingest and a signed delivery can do on this
// machine, measured with the same load as the relay so relay ÷ floor says what the relay adds.
import { build } from 'esbuild';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { admin, freshDatabase, query, REDIS_URL } from './database.mjs';
import { saturate } from './load.mjs';
import { forkReady, startNode, stop, waitForReceipts } from './processes.mjs';
import { cpuMsOf } from './usage.mjs';
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
    target: 'node20.19',
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

/** Durable-ingest floor: bench/ingest-floor.mjs against a migrated database's copy of `events` without search. */
export async function ingestFloor({ root, here, name, prefix, body, connections, durationS }) {
  const url = await freshDatabase(root, name);
  try {
    await query(url, 'CREATE TABLE floor_events (LIKE events INCLUDING ALL)');
    const [trgm] = await query(
      url,
      "SELECT indexname FROM pg_indexes WHERE tablename = 'floor_events' AND indexdef LIKE '%gin_trgm_ops%'",
    );
    if (trgm) await query(url, `DROP INDEX "${trgm.indexname}"`);
    const { child, msg } = await forkReady(path.join(here, 'ingest-floor.mjs'), {
      DATABASE_URL: url,
      REDIS_URL,
      QUEUE_PREFIX: prefix,
      ORG_ID: '00000000-0000-7000-8000-000000000001',
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
