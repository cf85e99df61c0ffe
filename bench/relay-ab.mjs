// An interleaved A/B of the whole relay run (bench/lib/relay-run.mjs: ingest into a backlog, its drain, the open-loop
// phases, the ledger), each variant a built checkout, the order alternating round by round so that the machine's
// mood of the minute falls on both alike. Prints each run and the medians; writes bench/results/$RESULTS
// (default relay-ab.json).
//
//   VARIANTS='[{"name":"before","root":"/work/before"},{"name":"after","root":"."}]' ROUNDS=3 \
//     DURATION_S=5 pnpm exec node bench/relay-ab.mjs
//
// `pnpm exec node`: the relay's processes run on the Node that runs this script (process.execPath), and pnpm's is the
// project's Node 24. The machine's own Node (Debian's 20 here) measured half the throughput (2026-12-05).
// DURATION_S (default 5): seconds of ingest at saturation, which make the backlog the workers drain (5 s: ~10,000
// events here, 10 s: ~20,000), and of each open-loop phase. relay-ab-20k.json: DURATION_S=10 ROUNDS=2
// RESULTS=relay-ab-20k.json.
// BENCH_CALM_RATE (events/s): the rate of the phase at half the sustainable rate, the same for every variant and
// round (by default each run's own estimate, so a faster minute also runs it faster, in larger batches).
// A variant's root must have run `node scripts/build.mjs` (a `git worktree` of another commit works). A variant's
// `env` (an object of settings) is added to BENCH_RELAY_ENV for its runs: two variants of one build can differ by a
// setting alone, e.g. [{"name":"unbounded","root":".","env":{"INGEST_MAX_IN_FLIGHT":"0"}},{"name":"default","root":"."}].
// A variant's `apiFlags` / `workerFlags` (arrays) add V8 flags to its api / workers, after the usual ones
// (processes.mjs), e.g. {"name":"hg50","root":".","apiFlags":["--heap-growing-percent=50"]}. A variant's `sql` (an
// array of statements) runs on each of its runs' migrated databases before the relay starts: an experiment's schema,
// e.g. bench/experiments/hot-outcomes.json (the HOT ceiling of issue 32 item 3).
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { relayRun } from './lib/relay-run.mjs';
import { median } from './lib/stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const body = readFileSync(path.join(here, 'github-push.json'), 'utf8');
const variants = JSON.parse(process.env.VARIANTS ?? '[{"name":"this checkout","root":"."}]');
const rounds = Number(process.env.ROUNDS ?? 3);
// BACKLOG (default 5000): the least backlog; ingest tops it up when the saturation phase stored fewer.
const backlog = Number(process.env.BACKLOG ?? 5000);
const durationS = Number(process.env.DURATION_S ?? 5);
const results = process.env.RESULTS ?? 'relay-ab.json';
const log = (line) => console.log(`[relay-ab] ${line}`);
const KEYS = [
  'ingestPerSecond',
  'deliveredPerSecond',
  'drainWorkerCpuMs',
  'drainPostgresCpuMs',
  'ingestPostgresCpuMs',
  // At half the sustainable rate (relay-run.mjs): the e2e tail and what each event cost there.
  'sustainableE2eP99',
  'sustainableRelayCpuMs',
  'sustainablePostgresCpuMs',
  // The phase at half the ingest rate, workers running (more than the pipeline sustains), and the api's peak RSS.
  'ingestP99',
  'e2eP99',
  'openLoopFailures',
  'rssApiMb',
  'rssWorkerMb',
];
const baseEnv = JSON.parse(process.env.BENCH_RELAY_ENV ?? '{}');
const baseFlags = { api: process.env.BENCH_API_FLAGS ?? '', worker: process.env.BENCH_WORKER_FLAGS ?? '' };
const runs = Object.fromEntries(variants.map((v) => [v.name, []]));

for (let round = 1; round <= rounds; round++) {
  const order = round % 2 === 1 ? variants : [...variants].reverse();
  for (const variant of order) {
    const load = os.loadavg()[0].toFixed(1);
    process.env.BENCH_RELAY_ENV = JSON.stringify({ ...baseEnv, ...variant.env });
    // A variant's apiFlags / workerFlags: V8 flags added to its processes, after any the caller set for every run
    // (relay-run.mjs and processes.mjs read them at each run).
    process.env.BENCH_API_FLAGS = [baseFlags.api, ...(variant.apiFlags ?? [])].join(' ');
    process.env.BENCH_WORKER_FLAGS = [baseFlags.worker, ...(variant.workerFlags ?? [])].join(' ');
    const result = await relayRun({
      root: path.resolve(variant.root),
      here,
      run: round,
      label: variant.name
        .replace(/[^a-z0-9]/gi, '')
        .toLowerCase()
        .slice(0, 12),
      body,
      workers: 2,
      durationS,
      backlog,
      connections: 64,
      log,
      sql: variant.sql ?? [],
    });
    const measured = Object.fromEntries(KEYS.map((k) => [k, result[k]]));
    const row = { round, load: Number(load), ...measured, lost: result.lost, duplicates: result.duplicates };
    runs[variant.name].push(row);
    log(`${variant.name} round ${round}: ${JSON.stringify(row)}`);
  }
}

const medians = Object.fromEntries(
  variants.map((v) => [v.name, Object.fromEntries(KEYS.map((k) => [k, median(runs[v.name].map((r) => r[k]))]))]),
);
log(`medians: ${JSON.stringify(medians)}`);
writeFileSync(
  path.join(here, 'results', results),
  `${JSON.stringify({ date: new Date().toISOString(), rounds, durationS, backlog, variants, runs, medians }, null, 2)}\n`,
);
