// The QuickJS WebAssembly module, compiled once per process and held for its life; every sandbox thread instantiates
// this one rather than compiling its own. Compiled code then never dies with the threads that used it: a terminate()d
// runaway's replacement, or a runner closed and opened again, adds and frees no code, only instances and memories.
// Why it matters beyond the ~8 ms a compile takes: V8 keeps a process-wide registry of code pages, and a CI run died
// of a check in it while a sandbox thread's code was being freed (docs/transformations.md, "The sandbox").
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// Node's global WebAssembly, which the project's type libraries (ES2023, @types/node) declare only as types.
const { Module } = (globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => WebAssembly.Module } })
  .WebAssembly;

let compiled: WebAssembly.Module | undefined;

// `from` is a file next to which the QuickJS variant resolves (the sandbox thread's entry). Compiling is validation
// only (V8 compiles functions lazily, on first call), so it is done synchronously.
export function compiledQuickJS(from: string): WebAssembly.Module {
  compiled ??= new Module(readFileSync(createRequire(from).resolve('@jitl/quickjs-wasmfile-release-sync/wasm')));
  return compiled;
}

/** Whether this process has compiled it yet (a runner compiles it for its first sandbox thread, not before). */
export const isQuickJSCompiled = (): boolean => compiled !== undefined;
