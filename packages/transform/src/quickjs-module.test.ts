// The process's one compiled QuickJS module (quickjs-module.ts): the same module every time, and the one a sandbox
// thread instantiates when it is given one.
import path from 'node:path';
import { MessageChannel, Worker } from 'node:worker_threads';
import { compiledQuickJS } from './quickjs-module';

// Node's global WebAssembly, which the project's type libraries declare only as types.
const { Module } = (
  globalThis as unknown as {
    WebAssembly: {
      Module: {
        new (bytes: Uint8Array): WebAssembly.Module;
        imports(module: WebAssembly.Module): Array<{ kind: string }>;
      };
    };
  }
).WebAssembly;

const threadFile = path.join(__dirname, 'sandbox-thread.cjs');
// The smallest valid WebAssembly module: no imports, no exports, nothing QuickJS's glue could run.
const emptyModule = new Module(Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));

// Starts the real sandbox thread with the given module and resolves with what it first says.
async function startWith(wasmModule: WebAssembly.Module): Promise<{ ready: boolean; message?: string }> {
  const channel = new MessageChannel();
  const thread = new Worker(threadFile, {
    workerData: { memoryMb: 16, maxLogBytes: 4096, maxOutputBytes: 65536, answers: channel.port2, wasmModule },
    transferList: [channel.port2],
  });
  try {
    return await new Promise((resolve, reject) => {
      thread.once('message', resolve);
      thread.once('error', reject);
    });
  } finally {
    await thread.terminate();
    channel.port1.close();
  }
}

describe('the compiled QuickJS module', () => {
  it('is compiled once: every call answers the same module, which is QuickJS (its memory is imported)', () => {
    const first = compiledQuickJS(threadFile);
    expect(compiledQuickJS(threadFile)).toBe(first);
    expect(Module.imports(first).some((entry) => entry.kind === 'memory')).toBe(true);
  });

  it('is the one a sandbox thread instantiates: given it the thread starts, given another it cannot', async () => {
    await expect(startWith(compiledQuickJS(threadFile))).resolves.toEqual({ ready: true });
    const other = await startWith(emptyModule);
    expect(other.ready).toBe(false);
  });
});
