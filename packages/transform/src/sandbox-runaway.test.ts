// Runaways end only their own call, with the limit that stopped them as the cause; the process and every other call
// carry on (issue 30 item 2).
import { createTransformRunner } from './transform-runner';
import { TransformUnavailableError } from './transform-unavailable-error';
import type { TransformRequest } from './transform-types';

const context = { event_id: 'evt_1', source: 'src', rule_id: 'rul_1' };
const request = (n: number): TransformRequest => ({ body: { n }, headers: {}, path: '/', query: {} });
const GOOD =
  "addHandler('transform', (r) => { r.body = { doubled: r.body.n * 2 }; r.headers['x-n'] = String(r.body.doubled); return r; })";
const handler = (body: string) => `addHandler('transform', (request) => { ${body} });`;

const RUNAWAYS = {
  'an infinite loop': { code: handler('while (true) {}'), cause: 'timeout' },
  // One step of 1 GB: a string of QuickJS's largest length, in one character a byte (there are no typed arrays).
  'a 1 GB allocation': {
    code: handler("const s = 'x'.repeat(2 ** 30 - 1); request.body = { n: s.length }; return request;"),
    cause: 'memory',
  },
  // On a slow (loaded) machine the fill may reach the time limit before the memory one.
  'a 1 GB array': { code: handler('new Array(2 ** 27).fill(0); return request;'), cause: 'memory|timeout' },
  // Whichever limit it reaches first, by the machine's speed.
  'an allocation loop': {
    code: handler('const a = []; while (true) a.push({ x: Math.random() });'),
    cause: 'timeout|memory',
  },
  'a string that doubles': { code: handler('let s = "x"; for (;;) s += s;'), cause: 'memory' },
  'deep recursion': { code: 'function f(n) { return f(n + 1) + 1; }\n' + handler('return f(0);'), cause: 'memory' },
  'a throw': { code: '\n' + handler('throw new Error("boom");'), cause: 'error' },
} as const;

describe('runaway transforms', () => {
  const runner = createTransformRunner({ timeoutMs: 500, memoryMb: 32, concurrency: 2 });
  afterAll(() => runner.close());

  it.each(Object.entries(RUNAWAYS))('%s fails that call with its cause', async (_name, { code, cause }) => {
    const result = await runner.run(code, request(1), context);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(cause.split('|')).toContain(result.error.cause);
    const after = await runner.run(GOOD, request(4), context);
    expect(after).toMatchObject({ ok: true, request: { body: { doubled: 8 } } });
  });

  it('reports the line and message of a throw, with the logs written before it', async () => {
    const code =
      "console.log('starting');\naddHandler('transform', (request) => {\n  console.warn('about to fail', { id: 1 });\n  throw new TypeError('no ' + request.body.n);\n});";
    const result = await runner.run(code, request(7), context);
    expect(result).toEqual({
      ok: false,
      error: { cause: 'error', message: 'TypeError: no 7', line: 4 },
      logs: 'starting\nwarn: about to fail {"id":1}\n',
    });
  });

  it('reports a syntax error and a missing handler as errors', async () => {
    const syntax = await runner.run('addHandler(\n  "transform", (r) => { return r; ;', request(1), context);
    expect(syntax).toMatchObject({
      ok: false,
      error: { cause: 'error', message: expect.stringMatching(/SyntaxError/) },
    });
    // QuickJS throws null when it cannot allocate its out-of-memory error: a `throw null` reads the same.
    const thrownNull = await runner.run(handler('throw null;'), request(1), context);
    expect(thrownNull).toMatchObject({
      ok: false,
      error: { cause: 'memory', message: expect.stringMatching(/threw null/) },
    });
    const none = await runner.run('const x = 1;', request(1), context);
    expect(none).toMatchObject({
      ok: false,
      error: { cause: 'invalid_output', message: expect.stringMatching(/addHandler/) },
    });
  });

  it('completes 500 good calls interleaved with runaways, each correctly', async () => {
    const runaways = Object.values(RUNAWAYS);
    const calls: Array<Promise<void>> = [];
    for (let i = 0; i < 500; i++) {
      calls.push(
        runner.run(GOOD, request(i), context).then((result) => {
          expect(result).toEqual({
            ok: true,
            request: { body: { doubled: i * 2 }, headers: { 'x-n': String(i * 2) }, path: '/', query: {} },
            bodyJson: JSON.stringify({ doubled: i * 2 }),
            logs: '',
          });
        }),
      );
      if (i % 50 === 25) {
        const { code, cause } = runaways[((i / 50) % runaways.length) | 0]!;
        calls.push(
          runner.run(code, request(i), context).then((result) => {
            expect(result.ok).toBe(false);
            if (!result.ok)
              expect([cause, result.error]).toEqual([expect.stringContaining(result.error.cause), result.error]);
          }),
        );
      }
    }
    await Promise.all(calls);
  });
});

describe('limits of the runner', () => {
  it('refuses code over maxCodeBytes and output over maxOutputBytes', async () => {
    const runner = createTransformRunner({ maxCodeBytes: 1024, maxOutputBytes: 1000 });
    try {
      const big = await runner.run(`// ${'x'.repeat(1100)}\n${GOOD}`, request(1), context);
      expect(big).toMatchObject({ ok: false, error: { cause: 'too_large' } });
      const wide = await runner.run(handler('request.body = "y".repeat(2000); return request;'), request(1), context);
      expect(wide).toMatchObject({ ok: false, error: { cause: 'too_large' } });
      const huge = await runner.run(handler('request.body = "y".repeat(200000); return request;'), request(1), context);
      expect(huge).toMatchObject({ ok: false, error: { cause: 'too_large' } });
      const fits = await runner.run(handler('request.body = "y".repeat(900); return request;'), request(1), context);
      expect(fits.ok).toBe(true);
    } finally {
      await runner.close();
    }
  });

  it('keeps the first maxLogBytes of console output', async () => {
    const runner = createTransformRunner({ maxLogBytes: 100 });
    try {
      const result = await runner.run(
        handler('for (let i = 0; i < 1000; i++) console.log("line " + i); return request;'),
        request(1),
        context,
      );
      expect(result.ok).toBe(true);
      expect(result.logs).toHaveLength(100);
      expect(result.logs.startsWith('line 0\nline 1\n')).toBe(true);
    } finally {
      await runner.close();
    }
  });

  it('checks the returned request: string headers, a JSON body, no Promise', async () => {
    const runner = createTransformRunner();
    try {
      const cases = {
        'request.headers.n = 5; return request;': /header n must be a string/,
        'request.headers["bad name"] = "x"; return request;': /header name/,
        'request.headers.x = "a\\nb"; return request;': /control character/,
        'const o = {}; o.o = o; request.body = o; return request;': /not JSON-serialisable/,
        'request.body = undefined; return request;': /no body/,
        'return 42;': /must return the request/,
        'request.query.q = [1]; return request;': /query q/,
        'request.path = 5; return request;': /path must be a string/,
      };
      for (const [body, message] of Object.entries(cases)) {
        const result = await runner.run(handler(body), request(1), context);
        expect(result).toMatchObject({
          ok: false,
          error: { cause: 'invalid_output', message: expect.stringMatching(message) },
        });
      }
      const promise = await runner.run("addHandler('transform', async (r) => r);", request(1), context);
      expect(promise).toMatchObject({
        ok: false,
        error: { cause: 'invalid_output', message: expect.stringMatching(/Promise/) },
      });
    } finally {
      await runner.close();
    }
  });

  it('runs at most `concurrency` sandboxes at once; the others wait their turn', async () => {
    const runner = createTransformRunner({ concurrency: 2, timeoutMs: 5000 });
    // Each call records when it ran, by the sandbox's clock (the host's real time), busy for 150 ms.
    const busy = handler(
      'const start = Date.now(); while (Date.now() - start < 150) {} request.body = { start, end: Date.now() }; return request;',
    );
    try {
      const results = await Promise.all(Array.from({ length: 6 }, () => runner.run(busy, request(1), context)));
      const spans = results.map((r) =>
        r.ok ? (r.request.body as { start: number; end: number }) : { start: 0, end: 0 },
      );
      for (const { start } of spans) {
        const running = spans.filter((s) => s.start <= start && start < s.end).length;
        expect(running).toBeLessThanOrEqual(2);
      }
    } finally {
      await runner.close();
    }
  });

  // Closing says nothing about the code: the calls end as the sandbox being unavailable, not as the transform's error.
  it('settles every waiting call once closed, as the sandbox unavailable', async () => {
    const runner = createTransformRunner({ concurrency: 1 });
    const settled = (call: Promise<unknown>) =>
      call.then(
        () => 'answered',
        (error: unknown) => error,
      );
    const first = settled(runner.run(handler('while (true) {}'), request(1), context));
    const second = settled(runner.run(GOOD, request(1), context));
    await runner.close();
    expect(await first).toBeInstanceOf(TransformUnavailableError);
    expect(await second).toBeInstanceOf(TransformUnavailableError);
  });
});
