// Runs transforms in a pool of sandbox threads (sandbox-thread.cjs): at most `concurrency` at once per process,
// the others wait in order. Each limit is enforced from outside the interpreter: a call that outlives its time
// has its thread terminate()d (and replaced), and a sandbox's WebAssembly memory cannot grow past `memoryMb`.
// Why QuickJS in threads rather than isolated-vm: docs/transformations.md, "The sandbox".
import path from 'node:path';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type {
  TransformCompileResult,
  TransformContext,
  TransformInput,
  TransformResult,
  TransformRunner,
  TransformRunnerOptions,
} from './transform-types';
import { TransformUnavailableError } from './transform-unavailable-error';
import { type SandboxOutput, validateOutput } from './validate-output';

// QuickJS's own deadline (the call's time) usually ends a runaway first, cleanly and with its logs; the thread is
// terminated when that has not happened this much later.
const HARD_STOP_GRACE_MS = 100;
const MIB = 1024 * 1024;
// The thread's own JavaScript heap ran out (its resourceLimits): the call's output text was too large for it.
const THREAD_OUT_OF_MEMORY = 'ERR_WORKER_OUT_OF_MEMORY';

type Answer =
  | ({ id: number; ok: true; logs: string; recycle?: boolean } & SandboxOutput)
  | {
      id: number;
      ok: false;
      cause: 'timeout' | 'memory' | 'error';
      message: string;
      line?: number;
      logs?: string;
      recycle?: boolean;
    };

interface Slot {
  worker: Worker;
  /** The thread's answers (sandbox-thread.cjs): a port of their own, so the host can read them synchronously. */
  answers: MessagePort;
  ready: Promise<string | undefined>;
  /** Settles the call in flight, when its thread dies under it: with the thread's error, when it reported one. */
  onExit?: (error: Error | undefined) => void;
  /** Hears the answers of the call in flight (one listener per port for its life, not one per call). */
  onAnswer?: (answer: Answer) => void;
}

// The thread entry is loaded by path. From the TypeScript sources (jest, tsx) it sits next to this file; from the
// worker app's ESM bundle it is found through the package (the app must depend on @relay/transform).
function defaultThreadFile(): string {
  if (typeof __dirname === 'string') return path.join(__dirname, 'sandbox-thread.cjs');
  return require.resolve('@relay/transform/src/sandbox-thread.cjs');
}

const failure = (
  cause: Extract<TransformResult, { ok: false }>['error']['cause'],
  message: string,
  logs = '',
  line?: number,
): TransformResult => ({ ok: false, error: line === undefined ? { message, cause } : { message, line, cause }, logs });

export function createTransformRunner(options: TransformRunnerOptions & { threadFile?: string } = {}): TransformRunner {
  const timeoutMs = options.timeoutMs ?? 1000;
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  const memoryMb = options.memoryMb ?? 64;
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const maxCodeBytes = options.maxCodeBytes ?? 256 * 1024;
  const maxOutputBytes = options.maxOutputBytes ?? MIB;
  const maxLogBytes = options.maxLogBytes ?? 4096;
  const threadFile = options.threadFile ?? defaultThreadFile();
  if (memoryMb < 8) throw new RangeError('memoryMb: at least 8');

  const slots: Slot[] = [];
  const idle: Slot[] = [];
  const waiting: Array<(slot: Slot | undefined) => void> = [];
  let nextId = 0;
  let closed = false;

  function spawn(slot: Partial<Slot> = {}): Slot {
    const channel = new MessageChannel();
    const worker = new Worker(threadFile, {
      workerData: { memoryMb, maxLogBytes, maxOutputBytes, answers: channel.port2 },
      transferList: [channel.port2],
      // The thread's own JavaScript holds the input and output text of one call, next to the WebAssembly memory.
      resourceLimits: { maxOldGenerationSizeMb: 16 + Math.ceil((4 * maxOutputBytes) / MIB), stackSizeMb: 4 },
      stdout: true,
      stderr: true,
    });
    // Nothing the sandbox prints reaches the process's output (console goes to the call's logs; only QuickJS's own
    // abort messages would land here).
    worker.stdout.resume();
    worker.stderr.resume();
    worker.unref();
    slot.answers?.close();
    slot.answers = channel.port1;
    slot.answers.on('message', (answer: Answer) => slot.onAnswer?.(answer));
    // The call's timer keeps the process alive while a call runs; an idle port must not.
    slot.answers.unref();
    slot.worker = worker;
    let started = false;
    let failed: Error | undefined;
    slot.ready = new Promise((resolve) => {
      // A thread that hangs while starting would hold its slot forever: past the bound it is given up (the call
      // reports the sandbox unavailable, and replace() starts another thread for the slot's next call).
      const bound = setTimeout(() => resolve(`it did not start within ${startTimeoutMs} ms`), startTimeoutMs);
      bound.unref();
      const settle = (error: string | undefined) => {
        clearTimeout(bound);
        resolve(error);
      };
      worker.once('message', (m: { ready: boolean; message?: string }) => {
        started = m.ready;
        settle(m.ready ? undefined : m.message);
      });
      worker.once('error', (error: Error) => settle(error.message));
      worker.once('exit', (code: number) => settle(`the sandbox thread stopped (exit code ${code})`));
    });
    // Kept for 'exit', which tells the call in flight: only this error says the call's own output outgrew the heap.
    worker.on('error', (error: Error) => {
      failed = error;
    });
    // Only while it is still the slot's thread: a replaced one exits after the slot has moved on to its next call.
    worker.on('exit', (code: number) => {
      if (slot.worker !== worker || closed) return;
      // A thread that dies between calls is replaced at once: the slot's next call would otherwise be posted to a
      // dead thread and end, after the whole time limit, as the transform's own timeout. (One that never started is
      // left to the next call, which reports it, rather than respawned in a loop.)
      if (slot.onExit)
        slot.onExit(
          failed ?? Object.assign(new Error(`the sandbox thread stopped (exit code ${code})`), { quiet: true }),
        );
      else if (started) spawn(slot);
    });
    return slot as Slot;
  }

  async function acquire(): Promise<Slot | undefined> {
    const free = idle.pop();
    if (free) return free;
    if (slots.length < concurrency) {
      const slot = spawn();
      slots.push(slot);
      return slot;
    }
    return new Promise((resolve) => waiting.push(resolve));
  }

  function release(slot: Slot): void {
    if (closed) return;
    const next = waiting.shift();
    if (next) next(slot);
    else idle.push(slot);
  }

  // A thread that ran out of time or memory, or died, is replaced; the next call on the slot waits for the new one.
  function replace(slot: Slot): void {
    slot.onExit = undefined;
    void slot.worker.terminate();
    if (!closed) spawn(slot);
  }

  // The hard stop is a timer of this (busy) thread: when its event loop comes to it late (a loaded machine, a long
  // burst of other work), the answer may already be waiting behind it. It is read first, so a transform that answered
  // in time is never failed as a timeout (its delivery would end failed, final, and never be sent).
  function callOn(slot: Slot, message: Record<string, unknown>): Promise<Answer | 'timeout' | Error> {
    return new Promise((resolve) => {
      const id = ++nextId;
      const { answers } = slot;
      const timer = setTimeout(() => done(waitingAnswer() ?? 'timeout'), timeoutMs + HARD_STOP_GRACE_MS);

      function waitingAnswer(): Answer | undefined {
        for (let got = receiveMessageOnPort(answers); got; got = receiveMessageOnPort(answers)) {
          const answer = got.message as Answer;
          if (answer.id === id) return answer;
        }
        return undefined;
      }
      function done(outcome: Answer | 'timeout' | Error) {
        clearTimeout(timer);
        slot.onAnswer = undefined;
        slot.onExit = undefined;
        resolve(outcome);
      }
      // The answer and the thread's exit come on different channels: a thread that answered and then stopped may
      // have its exit seen first. An answer already sent is the call's outcome, not the stop; the thread is gone all the
      // same, so the slot replaces it (recycle) rather than post its next call to a dead thread, where it would wait
      // out the whole time limit and fail as the transform's timeout.
      slot.onExit = (error) => {
        const answer = waitingAnswer();
        done(answer ? { ...answer, recycle: true } : (error ?? new Error('the sandbox thread stopped')));
      };
      slot.onAnswer = (answer) => {
        if (answer.id === id) done(answer);
      };
      slot.worker.postMessage({ ...message, id, timeoutMs });
    });
  }

  // One call on a free slot: the slot's thread is replaced when the call outlived its time, or the thread died.
  // What is the relay's fault rather than the transform's (a thread that did not start, died of something else than
  // the call's own memory, a runner closed under the call) throws TransformUnavailableError: no verdict on the code.
  async function dispatch(message: Record<string, unknown>): Promise<TransformResult | Answer> {
    const slot = await acquire();
    if (!slot) throw new TransformUnavailableError('the transform runner is closed');
    try {
      const startError = await slot.ready;
      if (closed) throw new TransformUnavailableError('the transform runner is closed');
      if (startError !== undefined) {
        replace(slot);
        throw new TransformUnavailableError(`the sandbox did not start: ${startError}`);
      }
      let outcome = await callOn(slot, message);
      if (outcome instanceof Error && (outcome as { quiet?: boolean }).quiet && !closed) {
        // A thread that stopped with no error and no answer was already on its way out when the call was posted
        // (it stopped between calls, and its exit came after the slot was reused): the sandbox never throws its way
        // out quietly, so the call did not run. A transform has no effect outside its call, so it runs once more on
        // a fresh thread rather than fail for the relay's own race.
        replace(slot);
        const restartError = await slot.ready;
        if (restartError !== undefined) {
          replace(slot);
          throw new TransformUnavailableError(`the sandbox did not start: ${restartError}`);
        }
        outcome = await callOn(slot, message);
      }
      if (outcome === 'timeout') {
        replace(slot);
        return failure('timeout', `the transform ran past its ${timeoutMs} ms time limit`);
      }
      if (outcome instanceof Error) {
        replace(slot);
        if (!closed && (outcome as { code?: unknown }).code === THREAD_OUT_OF_MEMORY)
          return failure('memory', `the sandbox stopped: ${outcome.message}`);
        throw new TransformUnavailableError(`the sandbox stopped: ${outcome.message}`);
      }
      if (outcome.recycle) replace(slot);
      return outcome;
    } finally {
      release(slot);
    }
  }

  const tooLarge = (code: string) =>
    Buffer.byteLength(code) > maxCodeBytes
      ? failure('too_large', `the transform code is over ${maxCodeBytes} bytes`)
      : undefined;

  async function run(code: string, request: TransformInput, context: TransformContext): Promise<TransformResult> {
    if (closed) throw new TransformUnavailableError('the transform runner is closed');
    const refused = tooLarge(code);
    if (refused) return refused;
    const rest = JSON.stringify({ headers: request.headers, path: request.path, query: request.query });
    // Stored bytes cross as their text, parsed in the sandbox only; a parsed body is serialised into the request.
    const body = 'bodyJson' in request ? request.bodyJson : undefined;
    const json = 'bodyJson' in request ? undefined : JSON.stringify(request.body);
    const input = json === undefined ? rest : `{"body":${json},${rest.slice(1)}`;
    const outcome = await dispatch({ code, input, body, context: JSON.stringify(context) });
    if (!('id' in outcome)) return outcome;
    const logs = outcome.logs ?? '';
    if (!outcome.ok) return failure(outcome.cause, outcome.message, logs, outcome.line);
    const checked = validateOutput(outcome, maxOutputBytes);
    return checked.ok
      ? { ok: true, request: checked.request, bodyJson: checked.bodyJson, logs }
      : { ok: false, error: checked.error, logs };
  }

  async function compile(code: string): Promise<TransformCompileResult> {
    if (closed) throw new TransformUnavailableError('the transform runner is closed');
    const outcome = tooLarge(code) ?? (await dispatch({ code, compileOnly: true }));
    if (!('id' in outcome)) return outcome.ok ? { ok: true } : { ok: false, error: outcome.error };
    if (outcome.ok) return { ok: true };
    const { cause, message, line } = outcome;
    return { ok: false, error: line === undefined ? { message, cause } : { message, line, cause } };
  }

  async function close(): Promise<void> {
    closed = true;
    for (const resolve of waiting.splice(0)) resolve(undefined);
    idle.length = 0;
    await Promise.all(
      slots.splice(0).map((slot) => {
        const onExit = slot.onExit;
        slot.onExit = undefined;
        onExit?.(new Error('the transform runner was closed'));
        slot.answers.close();
        return slot.worker.terminate();
      }),
    );
  }

  return { run, compile, close };
}
