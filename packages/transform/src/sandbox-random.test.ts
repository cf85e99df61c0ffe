// Math.random in a transform: QuickJS seeds it from the clock when a context is made (to the millisecond in its
// WebAssembly build), and every call gets a fresh context, so calls made in the same millisecond, on two sandbox
// threads or one after the other, drew the same numbers (a destination's and its rule's transforms sent the same
// "random" body). The sandbox's Math.random takes the host's randomness.
import { createTransformRunner } from './transform-runner';
import type { TransformRequest } from './transform-types';

const context = { event_id: 'evt_1', source: 'src', rule_id: 'rul_1' };
const request: TransformRequest = { body: { n: 1 }, headers: {}, path: '/', query: {} };
const RANDOM = `addHandler('transform', (request) => {
  const own = Object.getOwnPropertyDescriptor(Math, 'random');
  request.body = { r: [Math.random(), Math.random()], ok: Math.random() >= 0 && Math.random() < 1 && own.writable && !own.enumerable };
  return request;
});`;

describe('Math.random in the sandbox', () => {
  const runner = createTransformRunner({ concurrency: 2 });
  afterAll(() => runner.close());

  it('never repeats across calls, sequential or on two threads at once', async () => {
    const results = [];
    for (let i = 0; i < 40; i++) results.push(await runner.run(RANDOM, request, context));
    for (let i = 0; i < 20; i++)
      results.push(
        ...(await Promise.all([runner.run(RANDOM, request, context), runner.run(RANDOM, request, context)])),
      );
    const draws = results.map((result) => {
      expect(result).toMatchObject({ ok: true });
      const body = (result as { request: { body: { r: number[]; ok: boolean } } }).request.body;
      expect(body.ok).toBe(true);
      return body.r.join(',');
    });
    expect(new Set(draws).size).toBe(draws.length);
  });
});
