// Where the api's and a worker's CPU goes at a low, steady rate (docs/performance.md, "The tail at half the
// sustainable rate": the api took 1.9-2.1 ms of CPU per webhook at 100/s against 0.4 at saturation). The api and one
// worker start as the bench starts them, with --cpu-prof, against a fresh database and the bench's target; an open
// loop sends RATE webhooks a second for SECONDS; then each process's CPU per event and its profile's top entries.
// Run by hand:
//   pnpm exec node bench/experiments/low-rate-profile.mjs [rate=100] [seconds=10]
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { summarizeProfile } from '../lib/cpu-profile.mjs';
import { admin, deleteKeys, freshDatabase, REDIS_URL } from '../lib/database.mjs';
import { openLoop } from '../lib/load.mjs';
import { forkReady, freePort, startNode, stop, waitForHttp, waitForReceipts } from '../lib/processes.mjs';
import { cpuMsByName, cpuMsOf } from '../lib/usage.mjs';

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(here, '..');
const rate = Number(process.argv[2] ?? 100);
const seconds = Number(process.argv[3] ?? 10);
const body = readFileSync(path.join(here, 'github-push.json'), 'utf8');
const name = `relay_lowrate_${process.pid}`;
const prefix = `lowrate${process.pid}`;
const url = await freshDatabase(root, name);
const { child: target, msg: targetReady } = await forkReady(path.join(here, 'target-server.mjs'));
const port = await freePort();
const env = {
  DATABASE_URL: url,
  REDIS_URL,
  QUEUE_PREFIX: prefix,
  LOG_LEVEL: 'warn',
  DEFAULT_TARGET_URL: `http://127.0.0.1:${targetReady.port}/hook`,
  TARGET_ALLOW_PRIVATE: 'true',
  PORT: String(port),
  WORKER_HEALTH_PORT: '0',
  INGEST_RATE_LIMIT: '0',
  API_RATE_LIMIT: '0',
  ...JSON.parse(process.env.BENCH_RELAY_ENV ?? '{}'),
};
const dir = mkdtempSync(path.join(os.tmpdir(), 'relay-lowrate-'));
const prof = (who) => ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${who}.cpuprofile`];
const api = startNode(path.join(root, 'apps/api/dist/main.mjs'), env, prof('api'));
const worker = startNode(path.join(root, 'apps/delivery-worker/dist/main.mjs'), env, prof('worker'));
try {
  await waitForHttp(`http://127.0.0.1:${port}/ready`);
  await new Promise((r) => setTimeout(r, 3000));
  const at = () => ({
    api: cpuMsOf(api.pid),
    worker: cpuMsOf(worker.pid),
    postgres: cpuMsByName('postgres'),
    redis: cpuMsByName('redis-server'),
  });
  const before = at();
  const loop = await openLoop({ port, path: '/github', body, rate, durationS: seconds });
  await waitForReceipts(target, loop.samples.length);
  const after = at();
  const n = loop.samples.length;
  const perEvent = Object.fromEntries(
    Object.keys(after).map((k) => [k, Number(((after[k] - before[k]) / n).toFixed(3))]),
  );
  console.log(`${n} events at ${rate}/s, CPU ms per event:`, perEvent);
} finally {
  await Promise.all([stop(api), stop(worker), stop(target)]);
  await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await deleteKeys(prefix);
}
for (const file of readdirSync(dir)) {
  const summary = summarizeProfile(path.join(dir, file), 25);
  console.log(`\n${file}: ${summary.totalMs} ms sampled`);
  for (const f of summary.functions) console.log(`  ${String(f.selfPercent).padStart(5)} %  ${f.name}`);
  console.log('  packages:', summary.packages.map((p) => `${p.name} ${p.selfPercent} %`).join(', '));
}
