// Calls queued behind the one a sandbox thread runs (sandbox-slot.ts): each has its own time limit from the moment
// the thread reaches it, and those behind a call that had its thread stopped run on a fresh thread.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTransformRunner } from './transform-runner';

const context = { event_id: 'evt_1', source: 'src', rule_id: 'rul_1' };
const request = { body: { n: 1 }, headers: {}, path: '/', query: {} };
const echo = "addHandler('transform', (r) => { r.body = { n: r.body.n + 1 }; return r; });";

// A stand-in thread that blocks for good on the code 'hang' (nothing QuickJS could interrupt: only terminate()
// stops it) and answers any other call, numbering its threads so a test can tell which one answered.
const hangingCallThread = path.join(os.tmpdir(), `relay-hanging-call-thread-${process.pid}.cjs`);
writeFileSync(
  hangingCallThread,
  `const { parentPort, workerData, threadId } = require('node:worker_threads');
parentPort.on('message', ({ id, code }) => {
  if (code === 'hang') for (;;);
  workerData.answers.postMessage({ id, ok: true, meta: { headers: {}, path: '/', query: {} }, bodyJson: String(threadId), logs: '', doneAt: Date.now() });
});
parentPort.postMessage({ ready: true });
`,
);

describe('calls queued on one sandbox thread', () => {
  it('each has its whole time limit from when the thread reaches it, not from when it was queued', async () => {
    const runner = createTransformRunner({ concurrency: 1, depth: 4, timeoutMs: 1_000 });
    try {
      // 400 ms of work each: the fourth ends ~1.6 s after it was queued, past a limit counted from then (1.1 s).
      const slow =
        "addHandler('transform', (r) => { const end = Date.now() + 400; while (Date.now() < end); return r; });";
      const results = await Promise.all([1, 2, 3, 4].map(() => runner.run(slow, request, context)));
      expect(results).toEqual(Array(4).fill(expect.objectContaining({ ok: true })));
    } finally {
      await runner.close();
    }
  });

  it('behind a runaway QuickJS stops: the runaway fails as a timeout, the others run on a fresh thread', async () => {
    const runner = createTransformRunner({ concurrency: 1, depth: 4, timeoutMs: 300 });
    try {
      const calls = [
        runner.run("addHandler('transform', () => { while (true) {} });", request, context),
        ...[1, 2, 3].map(() => runner.run(echo, request, context)),
      ];
      const [runaway, ...others] = await Promise.all(calls);
      expect(runaway).toMatchObject({ ok: false, error: { cause: 'timeout' } });
      expect(others).toEqual(Array(3).fill(expect.objectContaining({ ok: true, request: expect.anything() })));
    } finally {
      await runner.close();
    }
  });

  it('behind a call that only terminate() stops: that call times out, the others are answered by a new thread', async () => {
    const runner = createTransformRunner({ threadFile: hangingCallThread, concurrency: 1, depth: 4, timeoutMs: 300 });
    try {
      const first = await runner.run('x', request, context);
      expect(first).toMatchObject({ ok: true });
      const firstThread = first.ok ? first.bodyJson : '';
      const [hung, ...others] = await Promise.all(
        ['hang', 'x', 'x', 'x'].map((code) => runner.run(code, request, context)),
      );
      expect(hung).toMatchObject({ ok: false, error: { cause: 'timeout' } });
      expect(others).toEqual(Array(3).fill(expect.objectContaining({ ok: true })));
      // Answered by the thread started after the hung one was terminated, never by the hung one.
      for (const other of others) expect(other.ok && other.bodyJson).not.toBe(firstThread);
    } finally {
      await runner.close();
    }
  });

  it('many more calls than the pool holds: each waits for room, and every call gets its own answer', async () => {
    const runner = createTransformRunner({ concurrency: 2, depth: 2, timeoutMs: 5_000 });
    try {
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, n) => runner.run(echo, { ...request, body: { n } }, context)),
      );
      expect(results.map((r) => r.ok && r.request.body)).toEqual(Array.from({ length: 40 }, (_, n) => ({ n: n + 1 })));
    } finally {
      await runner.close();
    }
  });
});
