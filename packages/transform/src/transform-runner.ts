// Runs transforms in a pool of sandbox threads (sandbox-slot.ts): at most `concurrency` threads per process, each
// holding up to DEPTH calls (the one it runs, the others queued behind it); further calls wait in order. Each limit
// is enforced from outside the interpreter: a call that outlives its time has its thread terminate()d (and
// replaced), and a sandbox's WebAssembly memory cannot grow past `memoryMb`.
// Why QuickJS in threads rather than isolated-vm: docs/transformations.md, "The sandbox".
import path from 'node:path';
import { compiledQuickJS } from './quickjs-module';
import { createSandboxSlot, type Outcome, type SandboxSlot, type SandboxSlotOptions } from './sandbox-slot';
import type {
  TransformCompileResult,
  TransformContext,
  TransformFailure,
  TransformInput,
  TransformResult,
  TransformRunner,
  TransformRunnerOptions,
} from './transform-types';
import { TransformUnavailableError } from './transform-unavailable-error';
import { validateOutput } from './validate-output';

const MIB = 1024 * 1024;
// Calls a sandbox thread holds at once: the one it runs and those queued behind it in its port. Queued calls let the
// thread go on without waiting for the host's busy event loop, and their answers come back together, so the
// deliveries after them gather in larger batches: a median of 1.17 -> 0.92-1.05 ms of worker CPU per transformed
// delivery (docs/performance.md, "Fifth round"). A call queued behind a runaway waits for it to be stopped (at most
// the time limit and its grace) before it runs on a fresh thread.
const DEPTH = 4;

// The thread entry is loaded by path. From the TypeScript sources (jest, tsx) it sits next to this file; from the
// worker app's ESM bundle it is found through the package (the app must depend on @relay/transform).
function defaultThreadFile(): string {
  if (typeof __dirname === 'string') return path.join(__dirname, 'sandbox-thread.cjs');
  return require.resolve('@relay/transform/src/sandbox-thread.cjs');
}

const failureOf = (cause: TransformFailure['cause'], message: string, line?: number): TransformFailure =>
  line === undefined ? { message, cause } : { message, line, cause };

type Settled = Exclude<Outcome, { unavailable: string }>;

export function createTransformRunner(
  options: TransformRunnerOptions & { threadFile?: string; depth?: number } = {},
): TransformRunner {
  const timeoutMs = options.timeoutMs ?? 1000;
  const memoryMb = options.memoryMb ?? 64;
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const depth = Math.max(1, options.depth ?? DEPTH);
  const maxCodeBytes = options.maxCodeBytes ?? 256 * 1024;
  const maxOutputBytes = options.maxOutputBytes ?? MIB;
  const maxLogBytes = options.maxLogBytes ?? 4096;
  if (memoryMb < 8) throw new RangeError('memoryMb: at least 8');
  const threadFile = options.threadFile ?? defaultThreadFile();
  const baseSlotOptions = {
    threadFile,
    // The thread's own JavaScript holds the input and output text of its calls, next to the WebAssembly memory.
    resourceLimits: { maxOldGenerationSizeMb: 16 + Math.ceil((4 * maxOutputBytes) / MIB), stackSizeMb: 4 },
    timeoutMs,
    startTimeoutMs: options.startTimeoutMs ?? 10_000,
    logChars: maxLogBytes,
    onFree: () => postWaiting(),
  };
  // The QuickJS module is compiled for the first slot, not with the runner: the api and every worker make a runner at
  // start, and a process whose rules have no transform then never compiles it. Stand-in threads of tests (threadFile
  // given) load no QuickJS.
  let slotOptions: SandboxSlotOptions | undefined;
  const optionsForSlot = (): SandboxSlotOptions =>
    (slotOptions ??= {
      ...baseSlotOptions,
      workerData: {
        memoryMb,
        maxLogBytes,
        maxOutputBytes,
        wasmModule: options.threadFile ? undefined : compiledQuickJS(threadFile),
      },
    });

  const slots: SandboxSlot[] = [];
  // Calls waiting for room in a slot, in the order they came.
  const waiting: Array<{ message: Record<string, unknown>; resolve: (outcome: Promise<Outcome>) => void }> = [];
  let closed = false;

  // The least loaded slot with room; a new thread (up to `concurrency`) before queueing behind a busy one.
  function pick(): SandboxSlot | undefined {
    let best: SandboxSlot | undefined;
    for (const slot of slots) if (slot.load() < depth && (!best || slot.load() < best.load())) best = slot;
    if ((!best || best.load() > 0) && slots.length < concurrency) {
      best = createSandboxSlot(optionsForSlot());
      slots.push(best);
    }
    return best;
  }

  function postWaiting(): void {
    while (!closed && waiting.length > 0) {
      const slot = pick();
      if (!slot) return;
      const next = waiting.shift()!;
      next.resolve(slot.submit(next.message));
    }
  }

  // One call, on the first slot with room. What is the relay's fault rather than the transform's (a thread that did
  // not start, or died of something else than the call's own memory, a runner closed under the call) throws
  // TransformUnavailableError: no verdict on the code.
  async function dispatch(message: Record<string, unknown>): Promise<Settled> {
    if (closed) throw new TransformUnavailableError('the transform runner is closed');
    const slot = waiting.length === 0 ? pick() : undefined;
    const outcome = await (slot
      ? slot.submit(message)
      : new Promise<Outcome>((resolve) => waiting.push({ message, resolve })));
    if ('unavailable' in outcome) throw new TransformUnavailableError(outcome.unavailable);
    return outcome;
  }

  // The verdicts the host gives: the call's time ran out, or its output outgrew the thread's heap.
  const verdictOf = (outcome: Exclude<Settled, { answer: unknown }>): TransformFailure =>
    'timeout' in outcome
      ? failureOf('timeout', `the transform ran past its ${timeoutMs} ms time limit`)
      : failureOf('memory', outcome.memory);

  const tooLarge = (code: string) =>
    Buffer.byteLength(code) > maxCodeBytes
      ? failureOf('too_large', `the transform code is over ${maxCodeBytes} bytes`)
      : undefined;

  async function run(code: string, request: TransformInput, context: TransformContext): Promise<TransformResult> {
    if (closed) throw new TransformUnavailableError('the transform runner is closed');
    const refused = tooLarge(code);
    if (refused) return { ok: false, error: refused, logs: '' };
    const rest = JSON.stringify({ headers: request.headers, path: request.path, query: request.query });
    // Stored bytes cross as their text, parsed in the sandbox only; a parsed body is serialised into the request.
    const body = 'bodyJson' in request ? request.bodyJson : undefined;
    const json = 'bodyJson' in request ? undefined : JSON.stringify(request.body);
    const input = json === undefined ? rest : `{"body":${json},${rest.slice(1)}`;
    const outcome = await dispatch({ code, input, body, context: JSON.stringify(context) });
    if (!('answer' in outcome)) return { ok: false, error: verdictOf(outcome), logs: outcome.logs };
    const { answer } = outcome;
    const logs = answer.logs ?? '';
    if (!answer.ok) return { ok: false, error: failureOf(answer.cause, answer.message, answer.line), logs };
    const checked = validateOutput(answer, maxOutputBytes);
    return checked.ok
      ? { ok: true, request: checked.request, bodyJson: checked.bodyJson, logs }
      : { ok: false, error: checked.error, logs };
  }

  async function compile(code: string): Promise<TransformCompileResult> {
    if (closed) throw new TransformUnavailableError('the transform runner is closed');
    const refused = tooLarge(code);
    if (refused) return { ok: false, error: refused };
    const outcome = await dispatch({ code, compileOnly: true });
    if (!('answer' in outcome)) return { ok: false, error: verdictOf(outcome) };
    const { answer } = outcome;
    return answer.ok ? { ok: true } : { ok: false, error: failureOf(answer.cause, answer.message, answer.line) };
  }

  async function close(): Promise<void> {
    closed = true;
    for (const { resolve } of waiting.splice(0))
      resolve(Promise.resolve({ unavailable: 'the transform runner is closed' }));
    await Promise.all(slots.splice(0).map((slot) => slot.close()));
  }

  return { run, compile, close };
}
