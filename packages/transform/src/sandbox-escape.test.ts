// Nothing of the host is reachable from a transform (issue 30 item 2): each probe reports what it could reach as the
// body it returns, and the host checks it saw nothing and was not changed.
import { createTransformRunner } from './transform-runner';
import type { TransformRequest } from './transform-types';

const context = { event_id: 'evt_1', source: 'src', rule_id: 'rul_1' };
const request = (): TransformRequest => ({ body: { a: 1 }, headers: { 'x-a': 'b' }, path: '/', query: {} });
const probe = (expression: string) =>
  `addHandler('transform', (request) => {
    let found;
    try { found = ${expression}; } catch (error) { found = 'threw ' + error.name; }
    request.body = { found: typeof found === 'string' ? found : typeof found };
    return request;
  });`;

const runner = createTransformRunner({ timeoutMs: 500 });
afterAll(() => runner.close());

async function found(expression: string): Promise<unknown> {
  const result = await runner.run(probe(expression), request(), context);
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return (result.request.body as { found: unknown }).found;
}

describe('the sandbox reaches nothing of the host', () => {
  it.each([
    ['process', 'process'],
    ['require', 'require'],
    ['module', 'module'],
    ['global (Node)', 'global'],
    ['setTimeout', 'setTimeout'],
    ['setInterval', 'setInterval'],
    ['queueMicrotask', 'queueMicrotask'],
    ['fetch', 'fetch'],
    ['WebAssembly', 'WebAssembly'],
    ['Buffer', 'Buffer'],
    ['a static import', 'eval(\'import fs from "node:fs"; fs\')'],
    ['globalThis.constructor.constructor', "globalThis.constructor.constructor('return typeof process')()"],
    [
      'this.constructor.constructor',
      "(function () { return this.constructor.constructor('return typeof process')(); })()",
    ],
    ['Function via a prototype', "Object.getPrototypeOf(() => 0).constructor('return typeof require')()"],
    ['eval', "eval('typeof process')"],
    ['indirect eval', "(0, eval)('typeof require')"],
    ['a handler argument', "request.constructor.constructor('return typeof process')()"],
    [
      'an error stack',
      "(() => { try { null.x } catch (e) { return e.constructor.constructor('return typeof process')(); } })()",
    ],
  ])('%s', async (_name, expression) => {
    const value = await found(expression);
    expect(['undefined', 'threw ReferenceError', 'threw SyntaxError', 'threw TypeError']).toContain(value);
  });

  it('has only ECMAScript built-ins and the two of the transform API on its global object', async () => {
    const names = (await found('Object.getOwnPropertyNames(globalThis).sort().join(",")')) as string;
    const host = [
      'process',
      'require',
      'module',
      'exports',
      'Buffer',
      'setTimeout',
      'setImmediate',
      'fetch',
      'os',
      'std',
    ];
    for (const name of host) expect(names.split(',')).not.toContain(name);
    expect(names.split(',')).toEqual(expect.arrayContaining(['addHandler', 'console', 'JSON', 'Object']));
  });

  it('has no typed arrays (a context is cheaper without them; payloads are JSON)', async () => {
    const names = ['ArrayBuffer', 'SharedArrayBuffer', 'Uint8Array', 'Float64Array', 'DataView', 'Atomics'];
    expect(await found(names.map((name) => `typeof ${name}`).join(" + ',' + "))).toBe(
      names.map(() => 'undefined').join(','),
    );
    expect(await found('new Uint8Array(1024 ** 3)')).toBe('threw ReferenceError');
  });

  it("reads the returned request's parts past a toJSON or setters the transform put on Object.prototype", async () => {
    const tampering = `Object.prototype.toJSON = function () { return Object.keys(this).includes('path') ? 'meta' : this; };
      Object.defineProperty(Object.prototype, 'headers', { set() { throw new Error('setter ran'); } });
      addHandler('transform', (request) => ({ body: { ok: 1 }, headers: { 'x-a': 'b' }, path: '/p', query: {} }));`;
    const result = await runner.run(tampering, request(), context);
    expect(result).toMatchObject({ ok: true, request: { headers: { 'x-a': 'b' }, path: '/p', query: {} } });
    if (result.ok) expect(result.bodyJson).toBe('{"ok":1}');
  });

  it('runs a handler that replaces itself to its end, and the next call afresh', async () => {
    const replacing = `addHandler('transform', (request) => {
      addHandler('transform', (r) => r);
      const filler = Array.from({ length: 2000 }, (_, i) => ({ i, s: 'x'.repeat(i % 50) }));
      request.body = { done: filler.length };
      return request;
    });`;
    for (let i = 0; i < 3; i++)
      expect(await runner.run(replacing, request(), context)).toMatchObject({
        ok: true,
        request: { body: { done: 2000 } },
      });
    expect(await found('typeof addHandler')).toBe('function');
  });

  it('keeps prototype pollution inside the sandbox and out of later calls', async () => {
    const polluting = `addHandler('transform', (request) => {
      Object.prototype.polluted = 'yes';
      request.__proto__.alsoPolluted = 'yes';
      request.body.__proto__ = { injected: true };
      request.body = JSON.parse('{"__proto__": {"admin": true}, "a": 1}');
      return request;
    });`;
    const result = await runner.run(polluting, request(), context);
    expect(result.ok).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).alsoPolluted).toBeUndefined();
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    if (result.ok) expect(Object.getPrototypeOf(result.request.body)).toBe(Object.prototype);
    // A fresh context per call: the next transform (maybe another team's) sees a clean Object.prototype.
    expect(await found("({}).polluted === undefined ? 'clean' : 'polluted'")).toBe('clean');
  });

  it('keeps no state from one call to the next', async () => {
    const first = `globalThis.counter = (globalThis.counter || 0) + 1; var seen = 1;
      addHandler('transform', (r) => { r.body = { counter: globalThis.counter }; return r; });`;
    for (let i = 0; i < 3; i++) {
      const result = await runner.run(first, request(), context);
      expect(result).toMatchObject({ ok: true, request: { body: { counter: 1 } } });
    }
    expect(await found("typeof seen + ',' + typeof counter")).toBe('undefined,undefined');
  });

  it('lets no Promise work outlive its call or reach the next one', async () => {
    const lingering = `let n = 0;
      Promise.resolve().then(function again() { n++; globalThis.leak = n; return Promise.resolve().then(again); });
      (async () => { for (;;) { await null; globalThis.asyncLeak = true; } })();
      addHandler('transform', (r) => r);`;
    const result = await runner.run(lingering, request(), context);
    expect(result.ok).toBe(true);
    expect(await found("typeof leak + ',' + typeof asyncLeak")).toBe('undefined,undefined');
    const awaited = await runner.run(
      "addHandler('transform', async (r) => { for (;;) await null; });",
      request(),
      context,
    );
    expect(awaited).toMatchObject({ ok: false, error: { cause: 'invalid_output' } });
    // A dynamic import is a Promise too (and there is no module loader to settle it): the same refusal.
    const imported = await runner.run(
      "addHandler('transform', async (r) => { r.body = await import('node:fs'); return r; });",
      request(),
      context,
    );
    expect(imported).toMatchObject({
      ok: false,
      error: { cause: 'invalid_output', message: expect.stringMatching(/Promise/) },
    });
    expect((await runner.run("addHandler('transform', (r) => r);", request(), context)).ok).toBe(true);
  });

  it('does not let the returned request carry functions or getters to the host', async () => {
    const sneaky = `addHandler('transform', (request) => {
      request.body = { get secret() { return 'computed'; }, fn: () => 1, toJSON: undefined };
      request.headers = { 'x-ok': 'yes' };
      return request;
    });`;
    const result = await runner.run(sneaky, request(), context);
    expect(result).toMatchObject({ ok: true, request: { body: { secret: 'computed' }, headers: { 'x-ok': 'yes' } } });
    if (result.ok)
      expect(Object.values(result.request.body as object).every((v) => typeof v !== 'function')).toBe(true);
  });
});
