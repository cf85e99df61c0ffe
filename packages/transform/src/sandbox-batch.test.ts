// Calls made in one turn of the host's event loop reach a sandbox thread that takes batches in one message
// (sandbox-slot.ts): one wake-up of the thread for several calls. A thread that does not say so gets one message a
// call, as before. Each call still gets its own answer.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTransformRunner } from './transform-runner';

const context = { event_id: 'evt_1', source: 'src', rule_id: 'rul_1' };
const request = { body: { n: 1 }, headers: {}, path: '/', query: {} };

// A stand-in thread that answers each call with how many calls the message that brought it held.
const countingThread = (batches: boolean) => {
  const file = path.join(os.tmpdir(), `relay-counting-thread-${batches}-${process.pid}.cjs`);
  writeFileSync(
    file,
    `const { parentPort, workerData } = require('node:worker_threads');
const answer = ({ id }, size) => workerData.answers.postMessage({
  id, ok: true, meta: { headers: {}, path: '/', query: {} }, bodyJson: String(size), logs: '', doneAt: Date.now() });
parentPort.on('message', (m) => (Array.isArray(m) ? m.forEach((one) => answer(one, m.length)) : answer(m, 1)));
parentPort.postMessage({ ready: true, batches: ${batches} });
`,
  );
  return file;
};

const sizesOf = async (threadFile: string) => {
  const runner = createTransformRunner({ threadFile, concurrency: 1, depth: 4 });
  try {
    // The thread is started (and ready) first: calls made while it starts are posted once it is.
    await runner.run('x', request, context);
    const results = await Promise.all([1, 2, 3, 4].map(() => runner.run('x', request, context)));
    return results.map((r) => (r.ok ? r.bodyJson : r.error.message));
  } finally {
    await runner.close();
  }
};

describe('calls posted to a sandbox thread', () => {
  it('made in one turn reach a thread that takes batches in one message, each answered', async () => {
    expect(await sizesOf(countingThread(true))).toEqual(['4', '4', '4', '4']);
  });

  it('reach a thread that does not take batches one message each', async () => {
    expect(await sizesOf(countingThread(false))).toEqual(['1', '1', '1', '1']);
  });

  it('in batches, on the real sandbox thread, each get the answer of their own request', async () => {
    const runner = createTransformRunner({ concurrency: 1, depth: 4 });
    const echo = "addHandler('transform', (r) => { r.body = { n: r.body.n * 10 }; return r; });";
    try {
      const results = await Promise.all(
        [1, 2, 3, 4].map((n) => runner.run(echo, { ...request, body: { n } }, context)),
      );
      expect(results.map((r) => r.ok && r.request.body)).toEqual([{ n: 10 }, { n: 20 }, { n: 30 }, { n: 40 }]);
    } finally {
      await runner.close();
    }
  });
});
