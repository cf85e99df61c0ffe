// The quickjs-emscripten candidate of bench/transform-sandbox.mjs: one QuickJS runtime per worker thread, a fresh
// context per call. Its WebAssembly memory gets a hard maximum (memory.grow fails past it), and the host terminate()s
// the thread on timeout: both limits sit outside the interpreter, since QuickJS's own limits are soft (#271, #255).
import { parentPort, workerData } from 'node:worker_threads';
import { newQuickJSWASMModule, newVariant, RELEASE_SYNC } from 'quickjs-emscripten';

const pages = Math.ceil((workerData.memoryMb * 1024 * 1024) / 65536);
const variant = newVariant(RELEASE_SYNC, { wasmMemory: new WebAssembly.Memory({ initial: 256, maximum: pages }) });
const QuickJS = await newQuickJSWASMModule(variant);
const runtime = QuickJS.newRuntime();
runtime.setMemoryLimit(workerData.memoryMb * 1024 * 1024 - 8 * 1024 * 1024);
runtime.setMaxStackSize(512 * 1024);

const PRELUDE = `let __h; const __logs = [];
globalThis.addHandler = (kind, fn) => { if (kind === 'transform') __h = fn; };
globalThis.console = { log: (...a) => { __logs.push(a.map(String).join(' ')); } };`;

parentPort.on('message', ({ id, code, input }) => {
  const vm = runtime.newContext();
  try {
    vm.unwrapResult(vm.evalCode(PRELUDE, 'prelude.js')).dispose();
    vm.unwrapResult(vm.evalCode(code, 'transform.js')).dispose();
    const text = vm.newString(input);
    vm.setProp(vm.global, '__in', text);
    text.dispose();
    const out = vm.unwrapResult(vm.evalCode('JSON.stringify({ request: __h(JSON.parse(__in), {}), logs: __logs })'));
    parentPort.postMessage({ id, ok: true, output: vm.getString(out) });
    out.dispose();
  } catch (error) {
    parentPort.postMessage({ id, ok: false, message: String(error?.message ?? error) });
  } finally {
    vm.dispose();
  }
});
parentPort.postMessage({ ready: true });
