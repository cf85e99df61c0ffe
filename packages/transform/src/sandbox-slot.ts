// One sandbox slot: a thread (sandbox-thread.cjs) and the calls posted to it, answered in the order posted. Calls
// wait in the thread's own port behind the one it runs (the pool bounds how many), so the thread goes from call to
// call without waiting for the host's event loop to hand it the next (docs/transformations.md, "Cost"). Each call's
// time limit starts when the thread reaches it: when the call before it was answered, or when it was posted.
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { SandboxOutput } from './validate-output';

// QuickJS's own deadline (the call's time) usually ends a runaway first, cleanly and with its logs; the thread is
// terminated when that has not happened this much later.
const HARD_STOP_GRACE_MS = 100;
// The thread's own JavaScript heap ran out (its resourceLimits): the call's output text was too large for it.
const THREAD_OUT_OF_MEMORY = 'ERR_WORKER_OUT_OF_MEMORY';

/** What the thread answers; `doneAt` (Date.now() as it posted) tells when it went on to the next call. */
export type Answer = { id: number; doneAt?: number; logs?: string; recycle?: boolean } & (
  ({ ok: true } & SandboxOutput) | { ok: false; cause: 'timeout' | 'memory' | 'error'; message: string; line?: number }
);

/** How a call ended: its answer, its time limit, its output outgrowing the thread's heap, or the sandbox failing on
 * its own (no verdict on the code). A verdict of the host carries the logs the call wrote before it was stopped. */
export type Outcome =
  { answer: Answer } | { timeout: true; logs: string } | { memory: string; logs: string } | { unavailable: string };

interface Call {
  id: number;
  message: Record<string, unknown>;
  /** When it was posted to the current thread; undefined while it waits for a thread to be ready. */
  postedAt: number | undefined;
  /** Run again once already after its thread stopped under it with no word: a second time is the sandbox's fault. */
  retried: boolean;
  settle: (outcome: Outcome) => void;
}

export interface SandboxSlotOptions {
  threadFile: string;
  workerData: Record<string, unknown>;
  resourceLimits: { maxOldGenerationSizeMb: number; stackSizeMb: number };
  timeoutMs: number;
  startTimeoutMs: number;
  /** The most console output a call keeps (characters): the size of the thread's shared log window. */
  logChars: number;
  /** A call of this slot ended: the pool may post another. */
  onFree: () => void;
}

export interface SandboxSlot {
  /** Calls posted and not yet answered (or waiting for the thread to start). */
  load(): number;
  submit(message: Record<string, unknown>): Promise<Outcome>;
  close(): Promise<void>;
}

let nextId = 0;

// A thread's log window, shared with the host: [the call's id, the characters written] and the characters (UTF-16).
// The thread writes each call's console output there as it goes (sandbox-thread.cjs), so a call whose thread is
// terminated (its time or heap ran out) keeps the logs it wrote before: often the only clue to what it was doing.
interface LogWindow {
  head: Int32Array;
  chars: Uint16Array;
}

const logWindow = (share: SharedArrayBuffer): LogWindow => ({
  head: new Int32Array(share, 0, 2),
  chars: new Uint16Array(share, 8),
});

const utf16 = new TextDecoder('utf-16le');

// The logs of call `id` in the window; none when the thread had not reached it.
function logsIn(window: LogWindow | undefined, id: number): string {
  if (!window || Atomics.load(window.head, 0) !== (id | 0)) return '';
  const length = Math.min(Atomics.load(window.head, 1), window.chars.length);
  // slice(): a copy out of the shared memory, which TextDecoder does not read.
  return utf16.decode(window.chars.slice(0, length));
}

export function createSandboxSlot(options: SandboxSlotOptions): SandboxSlot {
  const { timeoutMs, startTimeoutMs } = options;
  const calls: Call[] = [];
  let worker: Worker | undefined;
  let answers: MessagePort | undefined;
  let logs: LogWindow | undefined;
  let ready = false;
  // Events of a thread the slot has moved on from (terminated, replaced, failed to start) are ignored.
  let generation = 0;
  let lastDoneAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  function spawn(): void {
    const gen = ++generation;
    ready = false;
    const channel = new MessageChannel();
    // A window of its own: a terminated thread may still be writing to the one before.
    const logShare = new SharedArrayBuffer(8 + 2 * options.logChars);
    logs = logWindow(logShare);
    const thread = new Worker(options.threadFile, {
      workerData: { ...options.workerData, answers: channel.port2, logShare },
      transferList: [channel.port2],
      resourceLimits: options.resourceLimits,
      stdout: true,
      stderr: true,
    });
    // Nothing the sandbox prints reaches the process's output (console goes to the call's logs; only QuickJS's own
    // abort messages would land here).
    thread.stdout.resume();
    thread.stderr.resume();
    thread.unref();
    answers?.close();
    answers = channel.port1;
    answers.on('message', (answer: Answer) => {
      if (gen === generation) take(answer);
    });
    // The watchdog's timer keeps the process alive while a call runs; an idle port must not.
    answers.unref();
    worker = thread;
    let failed: Error | undefined;
    // A thread that hangs while starting would hold its calls forever: past the bound it is given up.
    const bound = setTimeout(() => startFailed(gen, `it did not start within ${startTimeoutMs} ms`), startTimeoutMs);
    bound.unref();
    thread.once('message', (m: { ready: boolean; message?: string }) => {
      clearTimeout(bound);
      if (m.ready) started(gen);
      else startFailed(gen, m.message ?? 'no reason given');
    });
    // Kept for 'exit': only this error says the call's own output outgrew the thread's heap.
    thread.on('error', (error: Error) => {
      failed = error;
      if (!ready) startFailed(gen, error.message);
    });
    thread.once('exit', (code: number) => {
      clearTimeout(bound);
      if (!ready) startFailed(gen, `the sandbox thread stopped (exit code ${code})`);
      else if (gen === generation && !closed) stopped(failed, code);
    });
  }

  function started(gen: number): void {
    if (gen !== generation || closed) return;
    ready = true;
    for (const call of calls) post(call);
    arm();
  }

  // Every call waiting on a thread that never started fails as the sandbox's own fault; the slot's next call starts
  // another thread (not this one: a thread file that cannot load would otherwise be respawned in a loop).
  function startFailed(gen: number, reason: string): void {
    if (gen !== generation || closed) return;
    generation++;
    void worker?.terminate();
    worker = undefined;
    for (const call of calls.splice(0)) call.settle({ unavailable: `the sandbox did not start: ${reason}` });
    options.onFree();
  }

  function post(call: Call): void {
    call.postedAt = Date.now();
    worker!.postMessage({ ...call.message, id: call.id, timeoutMs });
  }

  function take(answer: Answer): void {
    const at = calls.findIndex((call) => call.id === answer.id);
    if (at === -1) return;
    const [call] = calls.splice(at, 1);
    lastDoneAt = answer.doneAt ?? Date.now();
    call!.settle({ answer });
    // A thread that asked to be replaced (after a runaway, or with a Promise job left queued) runs none of the calls
    // queued behind: they go to a fresh thread, and whatever it answered for them meanwhile is dropped.
    if (answer.recycle) replace();
    else arm();
    options.onFree();
  }

  // Answers already waiting on the port, read synchronously: the host's timers and the thread's exit may be seen
  // before them by a busy event loop, and an answer given in time is never taken for a timeout or a stop.
  function drain(): void {
    const port = answers;
    if (!port) return;
    for (let got = receiveMessageOnPort(port); got && port === answers; got = receiveMessageOnPort(port))
      take(got.message as Answer);
  }

  // The head call's deadline: it started when the call before it was answered, or when it was posted.
  const deadlineOf = (head: Call) => Math.max(head.postedAt!, lastDoneAt) + timeoutMs + HARD_STOP_GRACE_MS;

  function arm(): void {
    clearTimeout(timer);
    timer = undefined;
    const head = calls[0];
    if (!ready || head?.postedAt === undefined) return;
    timer = setTimeout(watch, Math.max(0, deadlineOf(head) - Date.now()));
  }

  function watch(): void {
    timer = undefined;
    drain();
    const head = calls[0];
    if (!ready || head?.postedAt === undefined) return;
    if (Date.now() < deadlineOf(head)) return arm();
    calls.shift();
    head.settle({ timeout: true, logs: logsIn(logs, head.id) });
    replace();
    options.onFree();
  }

  // The thread is terminated and a fresh one started; the calls still to answer are posted to it once it is ready
  // (they had not started: the thread runs its calls one after another, and the one it was on has its verdict).
  function replace(): void {
    clearTimeout(timer);
    timer = undefined;
    const old = worker;
    for (const call of calls) call.postedAt = undefined;
    spawn();
    void old?.terminate();
  }

  // The thread stopped on its own. Answers it sent first are taken; the call it was on fails as the sandbox's fault
  // (or as the call's memory, when its output outgrew the thread's heap); the calls behind run on a fresh thread.
  // A stop with no error is no runaway of the sandbox (which never exits quietly): the thread was on its way out
  // when the call reached it, the call did not run, and it runs once more on the fresh thread.
  function stopped(error: Error | undefined, code: number): void {
    const gen = generation;
    drain();
    if (gen !== generation) return; // an answer asked for a fresh thread, which is starting
    const head = calls[0];
    let settled = false;
    if (head?.postedAt !== undefined) {
      const reason = `the sandbox stopped: ${error?.message ?? `the sandbox thread stopped (exit code ${code})`}`;
      const outcome: Outcome | undefined =
        (error as { code?: unknown } | undefined)?.code === THREAD_OUT_OF_MEMORY
          ? { memory: reason, logs: logsIn(logs, head.id) }
          : error || head.retried
            ? { unavailable: reason }
            : undefined;
      if (outcome) {
        calls.shift();
        head.settle(outcome);
        settled = true;
      } else head.retried = true;
    }
    // Also when idle: the slot's next call would otherwise be posted to a dead thread.
    replace();
    if (settled) options.onFree();
  }

  function submit(message: Record<string, unknown>): Promise<Outcome> {
    if (closed) return Promise.resolve({ unavailable: 'the transform runner is closed' });
    return new Promise((settle) => {
      const call: Call = { id: ++nextId, message, postedAt: undefined, retried: false, settle };
      calls.push(call);
      if (!worker) spawn();
      else if (ready) {
        post(call);
        if (calls.length === 1) arm();
      }
    });
  }

  async function close(): Promise<void> {
    closed = true;
    clearTimeout(timer);
    for (const call of calls.splice(0)) call.settle({ unavailable: 'the transform runner was closed' });
    answers?.close();
    await worker?.terminate();
  }

  return { load: () => calls.length, submit, close };
}
