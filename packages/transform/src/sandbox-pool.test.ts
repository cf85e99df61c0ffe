// The runner's pool against threads that misbehave (a stand-in thread file), and a transform that replaces the
// JSON built-ins: every call settles with an answer of its own, never a rejection or another call's timeout.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTransformRunner } from './transform-runner';
import { TransformUnavailableError } from './transform-unavailable-error';

const context = { event_id: 'evt_1', source: 'src', rule_id: 'rul_1' };
const request = { body: { n: 1 }, headers: {}, path: '/', query: {} };

// A sandbox thread that answers one call, then dies while idle (as a thread may, e.g. killed by its own resource
// limits); each new thread answers its call's number.
const dyingThread = path.join(os.tmpdir(), `relay-dying-thread-${process.pid}.cjs`);
writeFileSync(
  dyingThread,
  `const { parentPort, workerData } = require('node:worker_threads');
parentPort.on('message', ({ id }) => {
  workerData.answers.postMessage({ id, ok: true, meta: { headers: {}, path: '/', query: {} }, bodyJson: String(id), logs: '' });
  setImmediate(() => process.exit(0));
});
parentPort.postMessage({ ready: true });
`,
);

// Stand-in threads for the sandbox failing on its own: one that throws while loading, one that never says it is
// ready, one that exits in the middle of a call (as a crash would). None of it is the transform's doing.
const standIn = (name: string, text: string) => {
  const file = path.join(os.tmpdir(), `relay-${name}-thread-${process.pid}.cjs`);
  writeFileSync(file, text);
  return file;
};
const brokenThread = standIn('broken', "throw new Error('cannot load the sandbox');\n");
const hangingThread = standIn('hanging', 'setInterval(() => {}, 1000);\n');
const crashingThread = standIn(
  'crashing',
  `const { parentPort } = require('node:worker_threads');
parentPort.on('message', () => process.exit(3));
parentPort.postMessage({ ready: true });
`,
);

// A thread on its way out when the next call reaches it: it answers its first call, then stops on the next message
// without taking it (as a thread whose exit the host had not yet seen when it reused the slot). Each new thread of
// the slot counts its own calls, so the replacement answers.
const leavingThread = standIn(
  'leaving',
  `const { parentPort, workerData } = require('node:worker_threads');
let calls = 0;
parentPort.on('message', ({ id }) => {
  if (++calls > 1) process.exit(0);
  workerData.answers.postMessage({ id, ok: true, meta: { headers: {}, path: '/', query: {} }, bodyJson: String(id), logs: '' });
});
parentPort.postMessage({ ready: true });
`,
);

describe('a sandbox that fails on its own', () => {
  it.each([
    ['fails to start', brokenThread],
    ['exits in the middle of a call', crashingThread],
  ])('that %s: the call reports the sandbox unavailable, never a failure of the code', async (_, threadFile) => {
    const runner = createTransformRunner({ threadFile, concurrency: 1, timeoutMs: 60_000 });
    try {
      for (const call of [() => runner.run('x', request, context), () => runner.compile('x')]) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(TransformUnavailableError);
      }
    } finally {
      await runner.close();
    }
  });

  it('that stops quietly as a call reaches it: the call runs on a fresh thread, since it never ran', async () => {
    const runner = createTransformRunner({ threadFile: leavingThread, concurrency: 1, timeoutMs: 60_000 });
    try {
      expect(await runner.run('x', request, context)).toMatchObject({ ok: true });
      // Before, this call failed as "the sandbox stopped" (its delivery retried for the relay's own race).
      expect(await runner.run('x', request, context)).toMatchObject({ ok: true });
      expect(await runner.run('x', request, context)).toMatchObject({ ok: true });
    } finally {
      await runner.close();
    }
  });

  it('that hangs at its start: the wait is bounded, and the slot starts another thread next time', async () => {
    const runner = createTransformRunner({ threadFile: hangingThread, concurrency: 1, startTimeoutMs: 200 });
    try {
      // Twice: the slot is not lost to the first hanging thread (else the second call would wait for ever).
      for (let call = 0; call < 2; call++)
        await expect(runner.run('x', request, context)).rejects.toThrow(/did not start within 200 ms/);
    } finally {
      await runner.close();
    }
  });
});

// A thread that, given the code 'stop', answers and stops in the same turn: its exit may reach the host before the
// answer on the port. Other calls it only answers (a thread that stops after every answer would race its own exit
// on the next call too, which no real sandbox thread does).
const answerThenExitThread = standIn(
  'answer-then-exit',
  `const { parentPort, workerData } = require('node:worker_threads');
parentPort.on('message', ({ id, code }) => {
  workerData.answers.postMessage({ id, ok: true, meta: { headers: {}, path: '/', query: {} }, bodyJson: String(id), logs: '' });
  if (code === 'stop') process.exit(0);
});
parentPort.postMessage({ ready: true });
`,
);

describe('transform runner pool', () => {
  // A busy host sees both when it comes back to its event loop, and takes the thread's exit first.
  it('takes the answer of a thread that stopped right after giving it, though the host sees the stop first', async () => {
    const runner = createTransformRunner({ threadFile: answerThenExitThread, concurrency: 1, timeoutMs: 5_000 });
    try {
      expect(await runner.run('x', request, context)).toMatchObject({ ok: true }); // the thread is up
      const call = runner.run('stop', request, context);
      // Every step up to the call's message is a microtask: once an immediate has run, the thread has the call.
      await new Promise((resolve) => setImmediate(resolve));
      const busyUntil = Date.now() + 300;
      while (Date.now() < busyUntil); // the thread answers and stops meanwhile
      expect(await call).toMatchObject({ ok: true });
      // The stopped thread was replaced: the next call runs, rather than being posted to the dead thread and failing
      // as a timeout once the time limit is out.
      expect(await runner.run('x', request, context)).toMatchObject({ ok: true });
    } finally {
      await runner.close();
    }
  });

  it('replaces a thread that died between calls, so the next call runs rather than timing out', async () => {
    const runner = createTransformRunner({ threadFile: dyingThread, concurrency: 1, timeoutMs: 2000 });
    try {
      const first = await runner.run('x', request, context);
      expect(first).toMatchObject({ ok: true });
      // Let the thread's exit be seen while the slot is idle.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const second = await runner.run('x', request, context);
      expect(second).toMatchObject({ ok: true });
    } finally {
      await runner.close();
    }
  });

  // A loaded worker: its event loop comes to the call's hard-stop timer only after the limit, when the sandbox has long
  // answered. Before, the timer won and the call failed as a timeout (its delivery failed, final, never sent).
  it("takes an answer given in time even when the host's event loop is busy past the time limit", async () => {
    const runner = createTransformRunner({ concurrency: 1, timeoutMs: 1_000 });
    try {
      const code = "addHandler('transform', (r) => { r.body = { seen: r.body.n }; return r; });";
      expect(await runner.run(code, request, context)).toMatchObject({ ok: true }); // the thread is up
      const call = runner.run(code, request, context);
      // Every step up to the call's message is a microtask: once an immediate has run, the sandbox has the call.
      await new Promise((resolve) => setImmediate(resolve));
      const busyUntil = Date.now() + 3_000;
      while (Date.now() < busyUntil); // the host's own work (other deliveries, a collection), not the sandbox's
      expect(await call).toMatchObject({ ok: true, request: { body: { seen: 1 } } });
    } finally {
      await runner.close();
    }
  });

  describe('a transform that replaces JSON or Object.prototype', () => {
    const runner = createTransformRunner({ concurrency: 1 });
    afterAll(() => runner.close());

    it.each([
      ["JSON.stringify = () => 'nope';", { ok: true, request: { body: { n: 1 } } }],
      ['JSON.stringify = () => undefined;', { ok: true, request: { body: { n: 1 } } }],
      ['JSON.parse = () => ({});', { ok: true, request: { body: { n: 1 } } }],
      ['Object.prototype.toJSON = function () { return 1; };', { ok: false, error: { cause: 'invalid_output' } }],
    ])('%s gets its answer, never a rejection', async (tamper, expected) => {
      const result = await runner.run(`${tamper}\naddHandler('transform', (r) => r);`, request, context);
      expect(result).toMatchObject(expected);
    });
  });

  it('takes the body as JSON text, and gives back the body it will send as JSON text', async () => {
    const runner = createTransformRunner({ concurrency: 1 });
    try {
      const result = await runner.run(
        "addHandler('transform', (r) => { r.body = { got: r.body.a, s: 'é\\n' }; return r; });",
        { bodyJson: '{"a":[1,2]}', headers: {}, path: '/', query: {} },
        context,
      );
      expect(result).toEqual({
        ok: true,
        request: { body: { got: [1, 2], s: 'é\n' }, headers: {}, path: '/', query: {} },
        bodyJson: '{"got":[1,2],"s":"é\\n"}',
        logs: '',
      });
      // A stored body that is not JSON (stored before ingest took only JSON) is its text; an empty one is null.
      const echo = "addHandler('transform', (r) => { r.body = { got: r.body }; return r; });";
      for (const [bodyJson, got] of [
        ['a=1&b=2', 'a=1&b=2'],
        ['', null],
        ['"s"', 's'],
      ] as const)
        expect(await runner.run(echo, { bodyJson, headers: {}, path: '/', query: {} }, context)).toMatchObject({
          ok: true,
          bodyJson: JSON.stringify({ got }),
        });
    } finally {
      await runner.close();
    }
  });
});
