// One sandbox slot: a worker thread holding one QuickJS runtime (WebAssembly), a fresh QuickJS context per call.
// Plain CommonJS, not TypeScript, because it is a worker_threads entry loaded by path in every setting (jest,
// tsx, the esbuild bundle of the worker app), none of which would transpile it there.
//
// The code sees only ECMAScript built-ins, an `addHandler` and a `console` defined in the sandbox itself; the one host
// function (the console's loader, see PRELUDE) is out of its reach and takes nothing; input and output cross as JSON
// text. The limits that hold are outside QuickJS: the WebAssembly memory has a hard maximum (memory.grow fails past
// it), and the host terminate()s this thread when a call outlives its time. QuickJS's own interrupt deadline and memory
// limit are soft (quickjs-emscripten#255, #271) and only make the common runaway end sooner and cleaner, with its logs.
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { newQuickJSWASMModuleFromVariant, newVariant } = require('quickjs-emscripten-core');
const releaseSync = require('@jitl/quickjs-wasmfile-release-sync').default;

const WASM_PAGE = 65536;
// Calls come in on parentPort; answers go out on a port of their own (`answers`), which the host can read
// synchronously when a call's time is up: an answer given in time is never taken for a timeout (transform-runner.ts).
const { memoryMb, maxLogBytes, maxOutputBytes, answers } = workerData;

// Runs in each fresh context before the transform: a function of the console's loader that installs `addHandler` and
// `console` and answers the relay's own (frozen) functions, which the transform cannot reach: no global names them.
// Kept short, because QuickJS compiles it for every call (~70–90 ns a character and a few µs a function: its compile
// was the largest share of a call's CPU after the context itself). It holds on to the JSON, String and Array.isArray
// built-ins before the transform can replace them, so that what comes back is always JSON text. `WebAssembly` is not
// a QuickJS built-in, and nothing else of the host exists here.
//
// `console` is lazy: most transforms never log, and its code (the CONSOLE factory) is compiled only on the transform's
// first use of `console`, whose getter asks the host for it through `load`, the only host function in the sandbox
// (reachable from the prelude's closure alone, it takes nothing and compiles that fixed text). Console output is kept
// inside the sandbox, the first `maxLogBytes` characters, and read back after the call.
//
// run() takes the request's JSON, and the body's text apart when the host has it as stored bytes (parsed here: JSON,
// else the text itself, nothing when empty, as a stored webhook reads). It answers 'o' + the JSON of { headers, path,
// query, logs } + '\n' + the body's JSON (JSON text never holds a raw newline, so the host splits there and never
// parses or serialises the body again), or 'i' + the number of why the output is invalid (INVALID, kept out of the
// prelude: its text would be compiled in every call) and the detail, or 't' when it is too large.
const CONSOLE = `(put, full, stringify, S) => {
const show = (v) => { if (typeof v === 'string') return v; if (v instanceof Error) return S(v.stack || v);
try { const t = stringify(v); return t === undefined ? S(v) : t; } catch { return S(v); } };
const write = (level) => (...args) => { if (full()) return; let line = level;
for (let i = 0; i < args.length; i++) line += (i ? ' ' : '') + show(args[i]); put(line + '\\n'); };
return { log: write(''), info: write('info: '), warn: write('warn: '), error: write('error: '),
debug: write('debug: ') };
}`;
const PRELUDE = `((load) => {
'use strict';
const { parse, stringify } = JSON, S = String, isArray = Array.isArray, define = Reflect.defineProperty, G = globalThis;
const MAX_LOG = ${Number(maxLogBytes)}, MAX_OUT = ${Number(maxOutputBytes)} + 65536;
let handler, logs = '';
const put = (name, value) => define(G, name, { value, writable: true, configurable: true });
define(G, 'console', { get() {
  const c = load()((t) => { logs = (logs + t).slice(0, MAX_LOG); }, () => logs.length >= MAX_LOG, stringify, S);
  put('console', c);
  return c;
}, set(c) { put('console', c); }, configurable: true });
put('addHandler', (kind, fn) => {
  if (kind !== 'transform') throw new TypeError("addHandler: only 'transform' handlers exist here, not " + S(kind));
  if (typeof fn !== 'function') throw new TypeError("addHandler('transform', fn): fn must be a function");
  handler = fn;
});
return Object.freeze({
  run(input, context, bodyText) {
    if (!handler) return 'i0';
    let request = parse(input);
    if (bodyText !== undefined) {
      let body = null;
      if (bodyText !== '') try { body = parse(bodyText); } catch { body = bodyText; }
      request = { body, headers: request.headers, path: request.path, query: request.query };
    }
    const r = handler(request, parse(context));
    if (r !== null && typeof r === 'object' && typeof r.then === 'function')
      return 'i1';
    if (r === null || typeof r !== 'object' || isArray(r)) return 'i2';
    let body, meta;
    try {
      body = stringify(r.body);
      meta = stringify({ headers: r.headers, path: r.path, query: r.query, logs });
    } catch (error) { return 'i3' + error.message; }
    if (body === undefined) return 'i4';
    if (body.length + meta.length > MAX_OUT) return 't';
    return 'o' + meta + '\\n' + body;
  },
  logs: () => logs,
});
})`.replace(/^ +/gm, ''); // indentation is for the reader: QuickJS would tokenize it in every call

const INVALID = [
  "the code registered no handler: call addHandler('transform', (request, context) => request)",
  'the handler returned a Promise: transforms are synchronous, return the request',
  'the handler must return the request object',
  'the returned request is not JSON-serialisable: ',
  'the returned request has no body',
];

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

function call({ id, code, input, body, context, timeoutMs, compileOnly }) {
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
    answers.postMessage(answer);
    return;
  }
  let relay;
  try {
    relay = relayOf(vm, deadline);
    const step = vm.evalCode(code, 'transform.js');
    const args = body === undefined ? [input, context] : [input, context, body];
    const result = step.error ? step : callRelay(vm, relay, 'run', ...args);
    if (!step.error) step.value.dispose();
    if (result.error) {
      const error = errorOf(vm, result.error, deadline);
      const cause = causeOf(error);
      const message = cause === 'timeout' ? `the transform ran past its ${timeoutMs} ms time limit` : error.message;
      const named = cause === 'error' && error.name !== 'Error' ? `${error.name}: ${message}` : message;
      answer = { id, ok: false, cause, message: named, logs: readLogs(vm, relay) };
      const line = lineOf(error);
      if (line !== undefined) answer.line = line;
    } else {
      answer = { id, ...outputOf(vm.getString(result.value)) };
      result.value.dispose();
      if (answer.logs === undefined) answer.logs = readLogs(vm, relay);
    }
  } catch (error) {
    // A failure of QuickJS itself (a WebAssembly trap when its memory cannot grow, a broken runtime): this thread
    // is not trusted with another call.
    const message = String(error?.message ?? error);
    answer = { id, ok: false, cause: /memory|abort|unreachable/i.test(message) ? 'memory' : 'error', message };
    answer.recycle = true;
  }
  try {
    relay?.dispose();
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
  answers.postMessage(answer);
}

// The prelude's functions in a fresh context, given the host's console loader (see PRELUDE).
function relayOf(vm, deadline) {
  const made = vm.evalCode(PRELUDE, 'relay-prelude.js');
  if (made.error) throw new Error(`prelude: ${errorOf(vm, made.error, deadline).message}`);
  const load = vm.newFunction('load', () => vm.evalCode(CONSOLE, 'relay-console.js'));
  const relay = vm.callFunction(made.value, vm.undefined, load);
  load.dispose();
  made.value.dispose();
  if (relay.error) throw new Error(`prelude: ${errorOf(vm, relay.error, deadline).message}`);
  return relay.value;
}

// Calls one of the relay's functions (never a global the transform could have replaced) with string arguments.
function callRelay(vm, relay, name, ...args) {
  const fn = vm.getProp(relay, name);
  const handles = args.map((text) => vm.newString(text));
  try {
    return vm.callFunction(fn, vm.undefined, ...handles);
  } finally {
    for (const handle of handles) handle.dispose();
    fn.dispose();
  }
}

// The run() answer (see PRELUDE): the output's parts, the body left as the JSON text it will be sent as.
function outputOf(text) {
  if (text[0] === 'i') return { ok: true, invalid: INVALID[text[1]] + text.slice(2) };
  if (text[0] === 't') return { ok: true, tooLarge: true };
  const newline = text.indexOf('\n');
  // The prelude's own JSON: only a transform that gave Object.prototype a toJSON could make it something else.
  let parsed;
  try {
    parsed = JSON.parse(text.slice(1, newline));
  } catch {
    parsed = undefined;
  }
  if (parsed === null || parsed === undefined || typeof parsed !== 'object')
    return { ok: true, invalid: 'the request is not an object' };
  const { logs, ...meta } = parsed;
  return { ok: true, meta, bodyJson: text.slice(newline + 1), logs: typeof logs === 'string' ? logs : undefined };
}

function readLogs(vm, relay) {
  const deadline = Date.now() + 50;
  runtime.setInterruptHandler(() => Date.now() > deadline);
  const result = callRelay(vm, relay, 'logs');
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
