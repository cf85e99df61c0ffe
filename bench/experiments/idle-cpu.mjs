// The relay's CPU with no traffic at all: the api and two workers started as the bench starts them, on a fresh
// database, then each process's CPU (and Postgres's and Redis's) over a quiet window. Run by hand:
//   pnpm exec node bench/experiments/idle-cpu.mjs [seconds]
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { admin, dbUrl, REDIS_URL } from '../lib/database.mjs';
import { freePort, startNode, stop, waitForHttp } from '../lib/processes.mjs';
import { cpuMsByName, cpuMsOf } from '../lib/usage.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const seconds = Number(process.argv[2] ?? 10);
const name = `relay_idle_${process.pid}`;
await admin(`CREATE DATABASE "${name}"`);
const url = dbUrl(name);
execFileSync(process.execPath, [path.join(root, 'scripts/db.mjs'), 'migrate'], {
  env: { ...process.env, DATABASE_URL: url },
  stdio: 'ignore',
});
const port = await freePort();
const env = {
  DATABASE_URL: url,
  REDIS_URL,
  QUEUE_PREFIX: `idle${process.pid}`,
  LOG_LEVEL: 'warn',
  DEFAULT_TARGET_URL: 'http://127.0.0.1:9/hook',
  TARGET_ALLOW_PRIVATE: 'true',
  PORT: String(port),
  WORKER_HEALTH_PORT: '0',
  ...JSON.parse(process.env.BENCH_RELAY_ENV ?? '{}'),
};
const api = startNode(path.join(root, 'apps/api/dist/main.mjs'), env);
const workers = [1, 2].map(() => startNode(path.join(root, 'apps/delivery-worker/dist/main.mjs'), env));
try {
  await waitForHttp(`http://127.0.0.1:${port}/ready`);
  await new Promise((r) => setTimeout(r, 5000));
  const pids = { api: api.pid, worker1: workers[0].pid, worker2: workers[1].pid };
  const at = () => ({
    ...Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, cpuMsOf(p)])),
    postgres: cpuMsByName('postgres'),
    redis: cpuMsByName('redis-server'),
  });
  const before = at();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const after = at();
  const share = Object.fromEntries(
    Object.keys(after).map((k) => [k, Math.round(((after[k] - before[k]) / (seconds * 1000)) * 1000) / 1000]),
  );
  console.log(`idle for ${seconds} s, share of one core:`, share);
} finally {
  await Promise.all([stop(api), ...workers.map((w) => stop(w))]);
  await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}
