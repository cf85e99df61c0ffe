// The transform sandbox engine, chosen by measurement (issue 30; docs/transformations.md, "The sandbox"):
// isolated-vm (V8 isolates, fresh context per call) against quickjs-emscripten in a worker_threads pool.
// For each: the warm cost of a typical transform, and for each runaway how long until the call ends, its error,
// the process's peak RSS meanwhile, and whether the next call works. Same limits for both: 1 s, 64 MB.
// Run: pnpm exec node --no-node-snapshot bench/transform-sandbox.mjs [calls]  (writes bench/results/transform-sandbox.json)
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import ivm from 'isolated-vm';

const here = import.meta.dirname;
const CALLS = Number(process.argv[2] ?? 3000);
const TIMEOUT_MS = 1000;
const MEMORY_MB = 64;
const input = JSON.stringify({
  body: JSON.parse(readFileSync(path.join(here, 'github-push.json'), 'utf8')),
  headers: { 'content-type': 'application/json', 'x-github-event': 'push' },
  path: '/',
  query: {},
});
const TYPICAL = `addHandler('transform', (request, context) => {
  const b = request.body;
  request.body = { text: b.pusher.name + ' pushed ' + b.commits.length + ' commit(s) to ' + b.repository.full_name };
  request.headers['x-kind'] = 'chat';
  return request;
});`;
const RUNAWAYS = {
  'infinite loop': 'while (true) {}',
  'push bomb': 'const a = []; while (true) a.push({ x: Math.random() });',
  'array fill 2^26': 'new Array(2 ** 26).fill(0);',
  'array fill 2^24 doubles': 'new Array(2 ** 24).fill(1.5);',
  'ArrayBuffer 1 GB': 'new ArrayBuffer(1024 ** 3);',
  'string doubling': 'let s = "x"; while (true) s += s;',
  'deep recursion': 'function f(n) { return f(n + 1) + 1; } f(0);',
  'microtask loop': 'Promise.resolve().then(function f() { return Promise.resolve().then(f); });',
  throw: 'throw new Error("boom");',
};

// ---- isolated-vm: the isolate's memoryLimit, its timeout (a watchdog thread), and a fresh context per call.
function isolatedVm() {
  let isolate;
  let prelude;
  const compiled = new Map();
  const fresh = () => {
    isolate = new ivm.Isolate({ memoryLimit: MEMORY_MB });
    prelude = isolate.compileScriptSync(`let __h; const __logs = []; delete globalThis.WebAssembly;
      globalThis.addHandler = (kind, fn) => { if (kind === 'transform') __h = fn; };
      globalThis.console = { log: (...a) => { __logs.push(a.map(String).join(' ')); } };`);
    compiled.clear();
  };
  fresh();
  return {
    name: 'isolated-vm',
    async call(code) {
      if (isolate.isDisposed) fresh();
      const context = await isolate.createContext();
      try {
        let script = compiled.get(code);
        if (!script) compiled.set(code, (script = await isolate.compileScript(code, { filename: 'transform.js' })));
        await prelude.run(context);
        await context.global.set('__in', input);
        await script.run(context, { timeout: TIMEOUT_MS });
        const out = await context.eval('JSON.stringify({ request: __h(JSON.parse(__in), {}), logs: __logs })', {
          timeout: TIMEOUT_MS,
        });
        return { ok: true, output: out };
      } catch (error) {
        return { ok: false, message: error.message };
      } finally {
        if (!isolate.isDisposed) context.release();
      }
    },
    close: () => isolate.isDisposed || isolate.dispose(),
  };
}

// ---- quickjs-emscripten in a worker thread: terminate() on timeout, a capped WebAssembly memory.
function quickjsWorker() {
  let worker;
  let ready;
  let seq = 0;
  const pending = new Map();
  const spawn = () => {
    worker = new Worker(path.join(here, 'lib', 'quickjs-worker.mjs'), {
      workerData: { memoryMb: MEMORY_MB },
      resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 },
    });
    ready = new Promise((resolve) => worker.once('message', resolve));
    worker.on('message', (m) => pending.get(m.id)?.(m));
    worker.on('error', () => {});
  };
  spawn();
  return {
    name: 'quickjs-emscripten in worker_threads',
    async call(code) {
      await ready;
      const id = ++seq;
      const answer = new Promise((resolve) => pending.set(id, resolve));
      let timer;
      const timeout = new Promise((resolve) => {
        timer = setTimeout(() => resolve({ ok: false, message: 'timeout: worker terminated' }), TIMEOUT_MS);
      });
      worker.postMessage({ id, code, input });
      const result = await Promise.race([answer, timeout]);
      clearTimeout(timer);
      pending.delete(id);
      if (!result.ok && /timeout|abort|memory|RuntimeError/i.test(result.message)) {
        await worker.terminate();
        spawn();
      }
      return result;
    },
    close: () => worker.terminate(),
  };
}

async function measure(engine) {
  for (let i = 0; i < 300; i++) await engine.call(TYPICAL); // warm-up (JIT, compile cache)
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) {
    const r = await engine.call(TYPICAL);
    if (!r.ok) throw new Error(`${engine.name}: ${r.message}`);
  }
  const wallUs = Number(process.hrtime.bigint() - t0) / 1000 / CALLS;
  const cpu = process.cpuUsage(cpu0);
  const warm = { wall_us: round(wallUs), cpu_us: round((cpu.user + cpu.system) / CALLS) };
  const runaways = {};
  for (const [name, code] of Object.entries(RUNAWAYS)) {
    global.gc?.();
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const start = performance.now();
    const result = await engine.call(code);
    const endedMs = performance.now() - start;
    const next = await engine.call(TYPICAL);
    clearInterval(sampler);
    runaways[name] = {
      ended_ms: Math.round(endedMs),
      error: result.ok ? null : result.message.slice(0, 90),
      peak_rss_growth_mb: Math.round((peak - base) / 1e6),
      next_call_ok: next.ok,
      next_call_ms: Math.round(performance.now() - start - endedMs),
    };
  }
  await engine.close();
  return { warm, runaways };
}

const round = (n) => Math.round(n * 10) / 10;
const results = {};
for (const engine of [isolatedVm(), quickjsWorker()]) {
  results[engine.name] = await measure(engine);
  console.error(`[transform-sandbox] ${engine.name}: ${JSON.stringify(results[engine.name].warm)}`);
}
const report = {
  date: new Date().toISOString(),
  node: process.version,
  no_node_snapshot: process.execArgv.includes('--no-node-snapshot'),
  limits: { timeout_ms: TIMEOUT_MS, memory_mb: MEMORY_MB },
  calls: CALLS,
  results,
};
console.log(JSON.stringify(report, null, 2));
writeFileSync(path.join(here, 'results', 'transform-sandbox.json'), `${JSON.stringify(report, null, 2)}\n`);
