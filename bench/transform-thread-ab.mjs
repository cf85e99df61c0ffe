// node bench/transform-thread-ab.mjs OLD.cjs NEW.cjs [--rounds N] [--out FILE]
// An interleaved A/B of sandbox-thread.cjs variants, each thread's call() driven directly in this one thread (no worker
// threads, no messages between them): the CPU of the sandbox's own work per call, which the runner A/B
// (bench/transform-micro.ts) sees under the noise of two threads handing calls over. Each file is loaded with a
// stand-in for node:worker_threads (its parentPort and answers port are plain functions here), so a variant must sit
// where its own requires resolve: under packages/transform (e.g. `git show REV:packages/transform/src/sandbox-thread.cjs
// > packages/transform/src/old-thread.cjs`). Runs the GitHub push → chat message example with the body as stored text.
import { EventEmitter } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const files = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
const ROUNDS = Number(option('--rounds', 10));
const CALLS = 500;

const doc = readFileSync(path.join(here, '../docs/transformations.md'), 'utf8');
const code = /```js\n(\/\/ example: github-push-to-chat\n[\s\S]*?)```/.exec(doc)?.[1];
if (!code) throw new Error('docs/transformations.md: the github-push-to-chat example is missing');
const body = readFileSync(path.join(here, 'github-push.json'), 'utf8');
const input = JSON.stringify({ headers: { 'content-type': 'application/json' }, path: '/', query: {} });
const context = JSON.stringify({ event_id: 'evt_1', source: 'github', rule_id: 'rul_1' });

// Each variant gets its own stand-in while it loads (it reads workerData and parentPort once, at the top).
let standIn;
const load = Module._load;
Module._load = function (request, ...rest) {
  return request === 'node:worker_threads' ? standIn : load.call(this, request, ...rest);
};

async function variant(file) {
  const parentPort = new EventEmitter();
  let answer;
  const started = new Promise((resolve) => {
    parentPort.postMessage = resolve;
  });
  const answers = { postMessage: (message) => (answer = message) };
  standIn = { parentPort, workerData: { memoryMb: 64, maxLogBytes: 4096, maxOutputBytes: 1 << 20, answers } };
  require(path.resolve(file));
  const ready = await started;
  if (!ready.ready) throw new Error(`${file}: ${ready.message}`);
  return () => {
    parentPort.emit('message', { id: 1, code, input, body, context, timeoutMs: 1000 });
    if (!answer.ok || answer.invalid) throw new Error(`${file}: ${JSON.stringify(answer)}`);
  };
}

const calls = [];
for (const file of files) calls.push(await variant(file));
for (const call of calls) for (let i = 0; i < 200; i++) call(); // warm-up
const rounds = files.map(() => []);
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 ? [...calls.keys()].reverse() : [...calls.keys()];
  for (const k of order) {
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) calls[k]();
    const cpu = process.cpuUsage(cpu0);
    rounds[k].push(Math.round((cpu.user + cpu.system) / CALLS));
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const result = {
  node: process.version,
  loadAverage: (await import('node:os')).loadavg()[0],
  calls_per_round: CALLS,
  files,
  cpu_us_median: rounds.map(median),
  cpu_us_rounds: rounds,
};
console.log(JSON.stringify(result));
const out = option('--out');
if (out) writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
