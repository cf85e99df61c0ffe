// node bench/transform-variant-ab.mjs [--a-env 'NAME=VALUE ...'] [--b-env ...] [--a-build DIR] [--b-build DIR]
//   [--pairs N] [--backlog N]
// The transformed phase of `pnpm bench --transform` (phase(), one worker, the github-push-to-chat transform), side A
// against side B, interleaved (A, B, B, A, ...). A side is the worker's environment (a setting such as
// TRANSFORM_CONCURRENCY) and/or a build: DIR holds a worker bundle (main.mjs, as apps/delivery-worker/dist has it)
// and the sandbox thread file (sandbox-thread.cjs), copied into place before each of the side's phases (the worker
// loads the thread file by path from packages/transform/src); the working tree's files are put back at the end.
// Make a DIR with `--save DIR`: the current build (scripts/build.mjs worker) and thread file copied there.
// Each phase's CPU per delivery by thread is kept, so a change that moves CPU between threads shows where.
// Results: bench/results/transform-variant-ab.json.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { phase } from './transform-delivery.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const bundle = path.join(root, 'apps/delivery-worker/dist/main.mjs');
const thread = path.join(root, 'packages/transform/src/sandbox-thread.cjs');
const build = () =>
  execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs'), 'worker'], { stdio: 'ignore' });

if (option('--save')) {
  const dir = path.resolve(option('--save'));
  mkdirSync(dir, { recursive: true });
  build();
  copyFileSync(bundle, path.join(dir, 'main.mjs'));
  copyFileSync(thread, path.join(dir, 'sandbox-thread.cjs'));
  console.log(`saved the worker build and sandbox thread to ${dir}`);
  process.exit(0);
}

const envOf = (text) =>
  Object.fromEntries(
    text
      .split(/\s+/)
      .filter(Boolean)
      .map((kv) => kv.split('=')),
  );
const sides = {
  A: { env: envOf(option('--a-env', '')), build: option('--a-build') },
  B: { env: envOf(option('--b-env', '')), build: option('--b-build') },
};
const pairs = Number(option('--pairs', 3));
const backlog = Number(option('--backlog', 4000));
const doc = readFileSync(path.join(root, 'docs/transformations.md'), 'utf8');
const code = /```js\n(\/\/ example: github-push-to-chat\n[\s\S]*?)```/.exec(doc)?.[1];
const log = (line) => console.error(`[variant-ab] ${line}`);

build();
const working = { bundle: readFileSync(bundle), thread: readFileSync(thread) };
const runs = { A: [], B: [] };
const saved = { ...process.env };
try {
  for (let pair = 0; pair < pairs; pair++) {
    for (const side of pair % 2 ? ['B', 'A'] : ['A', 'B']) {
      const { env, build: dir } = sides[side];
      writeFileSync(bundle, dir ? readFileSync(path.join(dir, 'main.mjs')) : working.bundle);
      writeFileSync(thread, dir ? readFileSync(path.join(dir, 'sandbox-thread.cjs')) : working.thread);
      // The worker inherits this process's environment (startNode): the side's variables, and none of the other's.
      for (const name of [...Object.keys(sides.A.env), ...Object.keys(sides.B.env)]) delete process.env[name];
      Object.assign(process.env, env);
      const m = await phase({ root, name: `ab${pair}${side}`, transform: code, backlog, log, smoke: false });
      runs[side].push({
        cpuMs: m.workerCpuMsPerDelivery,
        byThread: m.workerCpuMsPerDeliveryByThread,
        sleeps: m.workerSleepsPerDeliveryByThread,
        perSecond: m.deliveredPerSecond,
        load: m.loadAverage,
      });
    }
  }
} finally {
  writeFileSync(bundle, working.bundle);
  writeFileSync(thread, working.thread);
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ratios = runs.B.map((b, i) => Math.round((b.cpuMs / runs.A[i].cpuMs) * 1000) / 1000);
const result = {
  date: new Date().toISOString(),
  what: `transformed phase (${backlog} pushes, 1 worker): worker CPU per delivery, side A against side B`,
  node: process.version,
  sides,
  medianCpuMs: { A: median(runs.A.map((r) => r.cpuMs)), B: median(runs.B.map((r) => r.cpuMs)) },
  perPairRatio: ratios,
  medianRatio: median(ratios),
  runs,
};
writeFileSync(path.join(here, 'results/transform-variant-ab.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
