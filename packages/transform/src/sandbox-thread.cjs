// One sandbox slot: a worker thread holding one QuickJS runtime (WebAssembly), a fresh QuickJS context per call.
// Plain CommonJS, not TypeScript, because it is a worker_threads entry loaded by path in every setting (jest,
// tsx, the esbuild bundle of the worker app), none of which would transpile it there.
//
// The code sees only ECMAScript built-ins (but the typed arrays, INTRINSICS), and an `addHandler` and a `console` that
// are host functions of this thread (sandboxOf): they take QuickJS values and answer QuickJS values, nothing of the
// host crosses; input and output cross as JSON text. The limits that hold are outside QuickJS: the WebAssembly memory
// has a hard maximum (memory.grow fails past it), and the host terminate()s this thread when a call outlives its
// time. QuickJS's own interrupt deadline and memory limit are soft (quickjs-emscripten#255, #271) and only make the
// common runaway end sooner and cleaner, with its logs.
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { DefaultIntrinsics, newQuickJSWASMModuleFromVariant, newVariant } = require('quickjs-emscripten-core');
const releaseSync = require('@jitl/quickjs-wasmfile-release-sync').default;
const { randomFillSync } = require('node:crypto');

const WASM_PAGE = 65536;
// Calls come in on parentPort; answers go out on a port of their own (`answers`), which the host can read
// synchronously when a call's time is up: an answer given in time is never taken for a timeout (transform-runner.ts).
const { memoryMb, maxLogBytes, maxOutputBytes, answers, logShare, wasmModule } = workerData;
// The log window shared with the host (sandbox-slot.ts): the running call's id and console output, written as it
// goes, so the host still has them when it terminates this thread under a runaway.
const shared = logShare && { head: new Int32Array(logShare, 0, 2), chars: new Uint16Array(logShare, 8) };

function openLogs(id) {
  if (!shared) return;
  Atomics.store(shared.head, 1, 0); // before the id: the host never reads the call before's length as this one's
  Atomics.store(shared.head, 0, id | 0);
}

// The characters of `logs` from `from` on (what a console call added), then the new length.
function shareLogs(from, logs) {
  if (!shared) return;
  const end = Math.min(logs.length, shared.chars.length);
  for (let i = from; i < end; i++) shared.chars[i] = logs.charCodeAt(i);
  Atomics.store(shared.head, 1, end);
}

// The sandbox's `console`, built on the transform's first use of it (most transforms never log): the getter of the
// global `console` (a host function, see sandboxOf) compiles this factory and calls it with the host's log sink, and
// the built-ins taken before the transform ran. Output is kept on the host, the first `maxLogBytes`
// characters of it, so reading a failed call's logs needs no call into QuickJS.
const CONSOLE = `(put, full, stringify, S) => {
const show = (v) => { if (typeof v === 'string') return v; if (v instanceof Error) return S(v.stack || v);
try { const t = stringify(v); return t === undefined ? S(v) : t; } catch { return S(v); } };
const write = (level) => (...args) => { if (full()) return; let line = level;
for (let i = 0; i < args.length; i++) line += (i ? ' ' : '') + show(args[i]); put(line + '\\n'); };
return { log: write(''), info: write('info: '), warn: write('warn: '), error: write('error: '),
debug: write('debug: ') };
}`;

// The output may be a little larger than the body's limit (its headers, path and query), and no larger: a body past it
// is refused before its text is copied out of QuickJS.
const MAX_OUT = Number(maxOutputBytes) + 65536;

const INVALID = [
  "the code registered no handler: call addHandler('transform', (request, context) => request)",
  'the handler returned a Promise: transforms are synchronous, return the request',
  'the handler must return the request object',
  'the returned request is not JSON-serialisable: ',
  'the returned request has no body',
];

// A context's built-ins: ECMAScript's but the typed arrays (ArrayBuffer, the typed arrays, DataView, Atomics,
// SharedArrayBuffer). Webhook payloads arrive and leave as JSON, and making them was ~30 % of a fresh context's cost
// (~45 µs of ~150 µs a call, docs/transformations.md "Cost"). `Eval` stays: QuickJS evaluates the transform's code
// through it (and the code's own eval() is QuickJS's, as any built-in).
const INTRINSICS = { ...DefaultIntrinsics, TypedArrays: false };

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
  const vm = runtime.newContext({ intrinsics: INTRINSICS });
  let answer;
  if (compileOnly) {
    try {
      answer = { id, logs: '', ...compile(vm, code, deadline) };
    } catch (error) {
      answer = { id, ok: false, cause: 'error', message: String(error?.message ?? error), recycle: true };
    }
    vm.dispose();
    answer.doneAt = Date.now();
    answers.postMessage(answer);
    return;
  }
  const sandbox = { logs: '', handler: undefined, builtins: undefined, held: [] };
  openLogs(id);
  try {
    sandboxOf(vm, sandbox);
    const step = vm.evalCode(code, 'transform.js', { type: 'global' });
    if (!step.error) step.value.dispose();
    const result = step.error ? step : sandbox.handler ? runHandler(vm, sandbox, { input, context, body }) : undefined;
    if (!result) {
      answer = { id, ok: true, invalid: INVALID[0] };
    } else if (result.error) {
      const error = errorOf(vm, result.error, deadline);
      const cause = causeOf(error);
      const message = cause === 'timeout' ? `the transform ran past its ${timeoutMs} ms time limit` : error.message;
      const named = cause === 'error' && error.name !== 'Error' ? `${error.name}: ${message}` : message;
      answer = { id, ok: false, cause, message: named };
      const line = lineOf(error);
      if (line !== undefined) answer.line = line;
    } else if (typeof result.invalid === 'number') {
      answer = { id, ok: true, invalid: INVALID[result.invalid] + (result.detail ?? '') };
    } else {
      answer = { id, ok: true, ...result };
    }
    answer.logs = sandbox.logs;
  } catch (error) {
    // A failure of QuickJS itself (a WebAssembly trap when its memory cannot grow, a broken runtime): this thread
    // is not trusted with another call.
    const message = String(error?.message ?? error);
    answer = { id, ok: false, cause: /memory|abort|unreachable/i.test(message) ? 'memory' : 'error', message };
    answer.recycle = true;
  }
  try {
    sandbox.handler?.dispose();
    for (const handle of sandbox.held) handle.dispose();
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
  // When this thread went on to its next call: the host times that call from here (sandbox-slot.ts).
  answer.doneAt = Date.now();
  answers.postMessage(answer);
}

// Prepares a fresh context for the transform: the built-ins the relay calls, taken before the transform exists (it
// may replace the globals: what comes back is always JSON text), and the relay's two globals as host functions of
// this call, whose state (the handler, the logs) is `sandbox`, this call's alone. Nothing is compiled for them: a
// prelude in JavaScript, compiled in every context, was the largest share of a call's CPU after the context itself
// (~100 ns a character; docs/transformations.md, "Cost"). Host functions take QuickJS values (handles valid for the
// host call only: the handler is kept as a duplicate of its own, disposed with the call) and answer QuickJS values
// or throw a QuickJS error; nothing of the host crosses.
function sandboxOf(vm, sandbox) {
  const take = (object, name) => {
    const handle = vm.getProp(object, name);
    sandbox.held.push(handle);
    return handle;
  };
  const [json, array, reflect] = ['JSON', 'Array', 'Reflect'].map((name) => take(vm.global, name));
  sandbox.builtins = {
    parse: take(json, 'parse'),
    stringify: take(json, 'stringify'),
    isArray: take(array, 'isArray'),
    get: take(reflect, 'get'),
    S: take(vm.global, 'String'),
  };
  const { stringify, S } = sandbox.builtins;
  const typeError = (message) => ({ error: vm.newError({ name: 'TypeError', message }) });
  const addHandler = vm.newFunction('addHandler', (kind, fn) => {
    if (kind === undefined || vm.typeof(kind) !== 'string' || vm.getString(kind) !== 'transform') {
      const text = kind === undefined ? { value: vm.newString('undefined') } : vm.callFunction(S, vm.undefined, kind);
      if (text.error) return text;
      const shown = vm.getString(text.value);
      text.value.dispose();
      return typeError(`addHandler: only 'transform' handlers exist here, not ${shown}`);
    }
    if (fn === undefined || vm.typeof(fn) !== 'function')
      return typeError("addHandler('transform', fn): fn must be a function");
    // The handler being run (if this is called from inside it) holds a reference of its own (runHandler).
    sandbox.handler?.dispose();
    sandbox.handler = fn.dup();
    return undefined;
  });
  // Not enumerable, writable and configurable, as a built-in global: a transform may replace either.
  vm.defineProp(vm.global, 'addHandler', { value: addHandler, configurable: true });
  addHandler.dispose();
  const random = vm.newFunction('random', () => vm.newNumber(randomDouble()));
  vm.setProp(take(vm.global, 'Math'), 'random', random);
  random.dispose();
  const setConsole = (value) => vm.defineProp(vm.global, 'console', { value, configurable: true });
  // `console` is built on its first use (most transforms never log), however it is reached.
  vm.defineProp(vm.global, 'console', {
    configurable: true,
    get: () => {
      const factory = vm.evalCode(CONSOLE, 'relay-console.js');
      if (factory.error) return factory;
      const put = vm.newFunction('put', (text) => {
        if (text !== undefined && vm.typeof(text) === 'string') {
          const from = sandbox.logs.length;
          sandbox.logs = (sandbox.logs + vm.getString(text)).slice(0, maxLogBytes);
          shareLogs(from, sandbox.logs);
        }
      });
      const full = vm.newFunction('full', () => (sandbox.logs.length >= maxLogBytes ? vm.true : vm.false));
      const made = vm.callFunction(factory.value, vm.undefined, put, full, stringify, S);
      factory.value.dispose();
      put.dispose();
      full.dispose();
      if (made.error) return made;
      setConsole(made.value);
      return made.value;
    },
    set: (value) => {
      if (value !== undefined) setConsole(value);
    },
  });
}

// Math.random's numbers, from the host: QuickJS seeds its own from the clock when a context is made (to the
// millisecond in this build), and every call has a fresh context, so calls in the same millisecond, one after the
// other or on two threads, drew the same numbers. 53 random bits each, from a pool refilled 256 numbers at a time.
const pool = new Uint32Array(512);
let drawn = pool.length;
function randomDouble() {
  if (drawn === pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  const high = pool[drawn++] >>> 5;
  const low = pool[drawn++] >>> 6;
  return (high * 67108864 + low) / 9007199254740992;
}

// A QuickJS exception met while running the handler (its handle).
class Thrown {
  constructor(handle) {
    this.handle = handle;
  }
}

// Runs the handler on the request, through the built-ins taken before the transform ran (never a global it could
// have replaced; properties of what it returned are read with Reflect.get, so its getters run in QuickJS as in
// plain JavaScript). The request is the JSON `input` (headers, path, query; and the body, unless the host has it as
// stored bytes: `bodyText`, parsed here, JSON, else the text itself, null when empty, as a stored webhook reads).
// Answers { error } (a handle: the handler threw, or ran out of time or memory), or the output (see outputOf).
function runHandler(vm, sandbox, { input, context, body: bodyText }) {
  const { parse, stringify, isArray, get } = sandbox.builtins;
  const handles = [];
  const own = (handle) => {
    handles.push(handle);
    return handle;
  };
  const call = (fn, ...args) => {
    const result = vm.callFunction(fn, vm.undefined, ...args);
    if (result.error) throw new Thrown(result.error);
    return own(result.value);
  };
  const text = (value) => own(vm.newString(value));
  try {
    // The body's place is kept first, as in a request parsed whole: it is an own property, set without setters.
    const request = call(parse, text(bodyText === undefined ? input : `{"body":null,${input.slice(1)}`));
    if (bodyText !== undefined && bodyText !== '') {
      const parsed = vm.callFunction(parse, vm.undefined, text(bodyText));
      if (parsed.error) parsed.error.dispose();
      vm.setProp(request, 'body', parsed.error ? text(bodyText) : own(parsed.value));
    }
    // QuickJS does not count the function it is calling as referenced: a reference of the call's own, so that a
    // handler replacing itself (addHandler from inside it) is not freed while it runs.
    const handler = own(sandbox.handler.dup());
    const r = call(handler, request, call(parse, text(context)));
    const object = vm.typeof(r) === 'object' && !vm.sameValue(r, vm.null);
    if (object && vm.typeof(call(get, r, text('then'))) === 'function') return { invalid: 1 };
    if (!object || vm.sameValue(call(isArray, r), vm.true)) return { invalid: 2 };
    let body, meta;
    try {
      body = call(stringify, call(get, r, text('body')));
      // No prototype: neither a setter nor a toJSON the transform gave Object.prototype applies to it.
      const parts = own(vm.newObject(vm.null));
      for (const name of ['headers', 'path', 'query']) vm.setProp(parts, name, call(get, r, text(name)));
      meta = call(stringify, parts);
    } catch (error) {
      if (!(error instanceof Thrown)) throw error;
      // What the transform's own values threw (a toJSON, a BigInt, a cycle); its time or memory running out is not.
      const dumped = vm.dump(error.handle);
      if (dumped?.name === 'InternalError') throw error;
      error.handle.dispose();
      return { invalid: 3, detail: typeof dumped?.message === 'string' ? dumped.message : String(dumped) };
    }
    if (vm.typeof(body) !== 'string') return { invalid: 4 };
    const lengths = [body, meta].map((handle) => vm.getNumber(own(vm.getProp(handle, 'length'))));
    if (lengths[0] + lengths[1] > MAX_OUT) return { tooLarge: true };
    return outputOf(vm.getString(meta), vm.getString(body));
  } catch (error) {
    if (error instanceof Thrown) return { error: error.handle };
    throw error;
  } finally {
    for (const handle of handles) handle.dispose();
  }
}

// The output's parts, the body left as the JSON text it will be sent as (it is never parsed nor serialised again).
function outputOf(metaJson, bodyJson) {
  let meta;
  try {
    meta = JSON.parse(metaJson);
  } catch {
    meta = undefined;
  }
  if (meta === null || meta === undefined || typeof meta !== 'object')
    return { invalid: 'the request is not an object' };
  return { meta, bodyJson };
}

async function start() {
  const maximum = Math.ceil((memoryMb * 1024 * 1024) / WASM_PAGE);
  const wasmMemory = new WebAssembly.Memory({ initial: Math.min(256, maximum), maximum });
  // The host's compiled module when it gives one (quickjs-module.ts, via transform-runner.ts): the thread then compiles
  // nothing, and the module's code outlives the thread.
  const variant = newVariant(releaseSync, wasmModule ? { wasmMemory, wasmModule } : { wasmMemory });
  QuickJS = await newQuickJSWASMModuleFromVariant(variant);
  newRuntime();
  parentPort.on('message', call);
  parentPort.postMessage({ ready: true });
}

start().catch((error) => {
  parentPort.postMessage({ ready: false, message: String(error?.message ?? error) });
});
