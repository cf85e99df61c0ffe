// node bench/transform-thread-swap-ab.mjs BASE_REV [--pairs N] [--backlog N] [--no-build]
// The transformed phase of `pnpm bench --transform` (phase(), one worker, the github-push-to-chat transform), with the
// sandbox thread of BASE_REV against the working tree's, interleaved (base, new, new, base, ...). The worker loads
// packages/transform/src/sandbox-thread.cjs by path when its first sandbox starts, so one build serves both: the file
// is swapped before each phase and restored at the end. For a change confined to that file only (a build A/B otherwise:
// see docs/performance.md). Results: bench/results/transform-thread-swap-ab.json.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { phase } from './transform-delivery.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const base = args[0];
if (!base || base.startsWith('--')) throw new Error('usage: transform-thread-swap-ab.mjs BASE_REV [--pairs N]');
const pairs = option('--pairs', 2);
const backlog = option('--backlog', 3000);
const file = path.join(root, 'packages/transform/src/sandbox-thread.cjs');
const current = readFileSync(file, 'utf8');
const baseText = execFileSync('git', ['show', `${base}:packages/transform/src/sandbox-thread.cjs`], {
  cwd: root,
  encoding: 'utf8',
});
const doc = readFileSync(path.join(root, 'docs/transformations.md'), 'utf8');
const code = /```js\n(\/\/ example: github-push-to-chat\n[\s\S]*?)```/.exec(doc)?.[1];
const log = (line) => console.error(`[thread-swap-ab] ${line}`);

if (!args.includes('--no-build'))
  execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'ignore' });
const cpu = { [base]: [], 'working tree': [] };
const loads = [];
try {
  for (let pair = 0; pair < pairs; pair++) {
    const order = pair % 2 ? ['working tree', base] : [base, 'working tree'];
    for (const side of order) {
      writeFileSync(file, side === base ? baseText : current);
      const name = `swap${pair}${side === base ? 'b' : 'n'}`;
      const measured = await phase({ root, name, transform: code, backlog, log, smoke: false });
      cpu[side].push(measured.workerCpuMsPerDelivery);
      loads.push(measured.loadAverage);
    }
  }
} finally {
  writeFileSync(file, current);
}
const ratios = cpu['working tree'].map((v, i) => Math.round((v / cpu[base][i]) * 100) / 100);
const result = {
  date: new Date().toISOString(),
  what: `transformed phase (${backlog} pushes, 1 worker), sandbox-thread.cjs of ${base} against the working tree's`,
  node: process.version,
  loadAverages: loads,
  workerCpuMsPerDelivery: cpu,
  perPairRatio: ratios,
  hostCpus: os.cpus().length,
};
writeFileSync(path.join(here, 'results/transform-thread-swap-ab.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
