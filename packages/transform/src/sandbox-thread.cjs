// One sandbox slot: a worker thread holding one QuickJS runtime (WebAssembly), a fresh QuickJS context per call.
// Plain CommonJS, not TypeScript, because it is a worker_threads entry loaded by path in every setting (jest,
// tsx, the esbuild bundle of the worker app), none of which would transpile it there.
//
// The sandbox gets no host function at all: the code sees only ECMAScript built-ins, an `addHandler` and a
// `console` defined in the sandbox itself; input and output cross as JSON text. The limits that hold are outside
// QuickJS: the WebAssembly memory has a hard maximum (memory.grow fails past it), and the host terminate()s this
// thread when a call outlives its time. QuickJS's own interrupt deadline and memory limit are soft
// (quickjs-emscripten#255, #271) and only make the common runaway end sooner and cleaner, with its logs.
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { newQuickJSWASMModuleFromVariant, newVariant } = require('quickjs-emscripten-core');
const releaseSync = require('@jitl/quickjs-wasmfile-release-sync').default;

const WASM_PAGE = 65536;
const { memoryMb, maxLogBytes, maxOutputBytes } = workerData;

// Runs in each fresh context before the transform. Console output is kept inside the sandbox, capped, and read
// back after the call; `WebAssembly` is not a QuickJS built-in, and nothing else of the host exists here.
const PRELUDE = `(() => {
  'use strict';
  const MAX_LOG = ${Number(maxLogBytes)};
  // Characters, not bytes (the host counts the bytes): room for the headers, path and query around the body.
  const MAX_OUT = ${Number(maxOutputBytes)} + 65536;
  let handler;
  let logs = '';
  let full = false;
  const show = (value) => {
    if (typeof value === 'string') return value;
    if (value instanceof Error) return String(value.stack || value);
    try { const text = JSON.stringify(value); return text === undefined ? String(value) : text; }
    catch { return String(value); }
  };
  const write = (level) => (...args) => {
    if (full) return;
    const line = (level === 'log' ? '' : level + ': ') + args.map(show).join(' ') + '\\n';
    logs += line;
    if (logs.length > MAX_LOG) { logs = logs.slice(0, MAX_LOG); full = true; }
  };
  const console = {};
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) console[level] = write(level);
  const addHandler = (kind, fn) => {
    if (kind !== 'transform') throw new TypeError("addHandler: only 'transform' handlers exist here, not " + String(kind));
    if (typeof fn !== 'function') throw new TypeError("addHandler('transform', fn): fn must be a function");
    handler = fn;
  };
  const relay = {
    run(input, context) {
      if (!handler) return JSON.stringify({ invalid: "the code registered no handler: call addHandler('transform', (request, context) => request)" });
      const result = handler(JSON.parse(input), JSON.parse(context));
      if (result !== null && typeof result === 'object' && typeof result.then === 'function')
        return JSON.stringify({ invalid: 'the handler returned a Promise: transforms are synchronous, return the request' });
      if (result === null || typeof result !== 'object' || Array.isArray(result))
        return JSON.stringify({ invalid: 'the handler must return the request object' });
      let text;
      try { text = JSON.stringify({ request: { body: result.body, headers: result.headers, path: result.path, query: result.query } }); }
      catch (error) { return JSON.stringify({ invalid: 'the returned request is not JSON-serialisable: ' + error.message }); }
      if (text.length > MAX_OUT) return JSON.stringify({ tooLarge: text.length });
      return text;
    },
    logs: () => logs,
  };
  Object.defineProperty(globalThis, 'console', { value: console, writable: true, configurable: true });
  Object.defineProperty(globalThis, 'addHandler', { value: addHandler, writable: true, configurable: true });
  Object.defineProperty(globalThis, '__relay', { value: Object.freeze(relay) });
})();`;

let QuickJS;
let runtime;

function newRuntime() {
  runtime = QuickJS.newRuntime();
  // Soft limits, a little under the hard ones, so that most runaways end as a clean QuickJS error.
  runtime.setMemoryLimit(Math.max(4, memoryMb - 8) * 1024 * 1024);
  runtime.setMaxStackSize(512 * 1024);
}

function errorOf(vm, handle, deadline) {
  const dumped = vm.dump(handle);
  handle.dispose();
  // QuickJS throws null when it cannot even allocate its error: out of memory (by the time we look, reference
  // counting has freed what the runaway held, so its memory use cannot tell), or interrupted while allocating. A
  // transform's own `throw null` cannot be told apart from that, and is reported as the memory runaway it most
  // likely is.
  if (dumped === null && Date.now() > deadline) return { name: 'InternalError', message: 'interrupted', stack: '' };
  if (dumped === null) return { name: 'InternalError', message: 'out of memory (or the code threw null)', stack: '' };
  if (dumped && typeof dumped === 'object') {
    const name = typeof dumped.name === 'string' ? dumped.name : 'Error';
    const message = typeof dumped.message === 'string' ? dumped.message : String(dumped);
    return { name, message, stack: typeof dumped.stack === 'string' ? dumped.stack : '' };
  }
  return { name: 'Error', message: String(dumped), stack: '' };
}

// The line of the transform's own code (the file name the code was evaluated under) where the error was thrown.
function lineOf(error) {
  const match = /transform\.js:(\d+)/.exec(error.stack) ?? /transform\.js:(\d+)/.exec(error.message);
  return match ? Number(match[1]) : undefined;
}

function causeOf(error) {
  if (error.name === 'InternalError' && /interrupted/.test(error.message)) return 'timeout';
  if (/out of memory|string too long/i.test(error.message)) return 'memory';
  if (error.name === 'InternalError' && /stack overflow/.test(error.message)) return 'memory';
  if (error.name === 'RangeError' && /stack/i.test(error.message)) return 'memory';
  return 'error';
}

// A dry compile (the API's check at save): the code is parsed and compiled in a fresh context, never run.
function compile(vm, code, deadline) {
  const compiled = vm.evalCode(code, 'transform.js', { compileOnly: true });
  if (!compiled.error) {
    compiled.value.dispose();
    return { ok: true, output: '{}' };
  }
  const error = errorOf(vm, compiled.error, deadline);
  const answer = { ok: false, cause: causeOf(error), message: `${error.name}: ${error.message}` };
  const line = lineOf(error);
  if (line !== undefined) answer.line = line;
  return answer;
}

function call({ id, code, input, context, timeoutMs, compileOnly }) {
  const deadline = Date.now() + timeoutMs;
  runtime.setInterruptHandler(() => Date.now() > deadline);
  const vm = runtime.newContext();
  let answer;
  if (compileOnly) {
    try {
      answer = { id, logs: '', ...compile(vm, code, deadline) };
    } catch (error) {
      answer = { id, ok: false, cause: 'error', message: String(error?.message ?? error), recycle: true };
    }
    vm.dispose();
    parentPort.postMessage(answer);
    return;
  }
  try {
    const prelude = vm.evalCode(PRELUDE, 'relay-prelude.js');
    if (prelude.error) throw new Error(`prelude: ${errorOf(vm, prelude.error, deadline).message}`);
    prelude.value.dispose();
    for (const [name, text] of [
      ['__relayInput', input],
      ['__relayContext', context],
    ]) {
      const handle = vm.newString(text);
      vm.setProp(vm.global, name, handle);
      handle.dispose();
    }
    let step = vm.evalCode(code, 'transform.js');
    if (!step.error) {
      step.value.dispose();
      step = vm.evalCode('__relay.run(__relayInput, __relayContext)', 'relay-run.js');
    }
    if (step.error) {
      const error = errorOf(vm, step.error, deadline);
      const cause = causeOf(error);
      const message = cause === 'timeout' ? `the transform ran past its ${timeoutMs} ms time limit` : error.message;
      const named = cause === 'error' && error.name !== 'Error' ? `${error.name}: ${message}` : message;
      answer = { id, ok: false, cause, message: named };
      const line = lineOf(error);
      if (line !== undefined) answer.line = line;
    } else {
      const output = vm.getString(step.value);
      step.value.dispose();
      answer = { id, ok: true, output };
    }
    answer.logs = readLogs(vm);
  } catch (error) {
    // A failure of QuickJS itself (a WebAssembly trap when its memory cannot grow, a broken runtime): this thread
    // is not trusted with another call.
    const message = String(error?.message ?? error);
    answer = { id, ok: false, cause: /memory|abort|unreachable/i.test(message) ? 'memory' : 'error', message };
    answer.recycle = true;
  }
  try {
    vm.dispose();
  } catch {
    answer.recycle = true;
  }
  // A Promise job left queued would run in a later call (the queue belongs to the runtime, not the context):
  // start that next call on a new runtime instead. A runaway (time or memory) may leave QuickJS at its memory
  // limit, and the WebAssembly memory grown (it never shrinks): the host replaces this thread.
  if (!answer.ok && (answer.cause === 'memory' || answer.cause === 'timeout')) answer.recycle = true;
  if (!answer.recycle && runtime.hasPendingJob()) {
    runtime.dispose();
    newRuntime();
  }
  parentPort.postMessage(answer);
}

function readLogs(vm) {
  const deadline = Date.now() + 50;
  runtime.setInterruptHandler(() => Date.now() > deadline);
  const result = vm.evalCode('__relay.logs()', 'relay-logs.js');
  if (result.error) {
    result.error.dispose();
    return '';
  }
  const logs = vm.getString(result.value);
  result.value.dispose();
  return logs;
}

async function start() {
  const maximum = Math.ceil((memoryMb * 1024 * 1024) / WASM_PAGE);
  const wasmMemory = new WebAssembly.Memory({ initial: Math.min(256, maximum), maximum });
  QuickJS = await newQuickJSWASMModuleFromVariant(newVariant(releaseSync, { wasmMemory }));
  newRuntime();
  parentPort.on('message', call);
  parentPort.postMessage({ ready: true });
}

start().catch((error) => {
  parentPort.postMessage({ ready: false, message: String(error?.message ?? error) });
});
