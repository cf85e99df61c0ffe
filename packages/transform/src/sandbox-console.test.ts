// The sandbox's console is built on its first use (sandbox-thread.cjs, PRELUDE): however it is reached, it captures
// the first 4 KB of output, with the built-ins taken before the transform ran, and a call that never logs has none.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTransformRunner } from './transform-runner';
import type { TransformRequest } from './transform-types';

const context = { event_id: 'evt_1', source: 'src', rule_id: 'rul_1' };
const request: TransformRequest = { body: { n: 1 }, headers: {}, path: '/', query: {} };
const handler = (body: string) => `addHandler('transform', (request) => { ${body} return request; });`;

describe('the lazy console', () => {
  const runner = createTransformRunner({ concurrency: 1 });
  afterAll(() => runner.close());

  const logsOf = async (code: string) => {
    const result = await runner.run(code, request, context);
    expect(result).toMatchObject({ ok: true });
    return result.logs;
  };

  it('captures the first 4 KB by default', async () => {
    const logs = await logsOf(handler('for (let i = 0; i < 1000; i++) console.log("line " + i);'));
    expect(logs).toHaveLength(4096);
    expect(logs.startsWith('line 0\nline 1\n')).toBe(true);
  });

  it('captures every level, at the top level of the code and in the handler', async () => {
    const code = `console.log('top', 1);\n${handler("console.info('i'); console.warn({ a: [1] }); console.error('e'); console.debug('d');")}`;
    expect(await logsOf(code)).toBe('top 1\ninfo: i\nwarn: {"a":[1]}\nerror: e\ndebug: d\n');
  });

  it('captures a console reached by a computed name or through globalThis', async () => {
    expect(await logsOf(handler("globalThis['con' + 'sole'].log('computed'); this.console.log('this');"))).toBe(
      'computed\nthis\n',
    );
    expect(
      await logsOf(handler("const c = Object.getOwnPropertyDescriptor(globalThis, 'console'); c.get().log('g');")),
    ).toBe('g\n');
  });

  it('serialises with the JSON taken before the transform ran', async () => {
    expect(await logsOf(handler("JSON.stringify = () => 'replaced'; console.log({ a: 1 });"))).toBe('{"a":1}\n');
  });

  it('works with a frozen global object, and lets the transform replace or remove console', async () => {
    expect(await logsOf(handler("Object.freeze(globalThis); console.log('frozen'); console.log('again');"))).toBe(
      'frozen\nagain\n',
    );
    expect(await logsOf(handler("console = { log() {} }; console.log('dropped');"))).toBe('');
    expect(await logsOf(handler("delete globalThis.console; if (typeof console !== 'undefined') throw 1;"))).toBe('');
  });

  it('starts empty in every call: a call that never logs has no logs, the next call none of the last', async () => {
    expect(await logsOf(handler("console.log('first');"))).toBe('first\n');
    expect(await logsOf(handler(''))).toBe('');
    expect(await logsOf(handler("console.log('third');"))).toBe('third\n');
  });

  it('keeps the logs written before a throw', async () => {
    const result = await runner.run(handler("console.log('before'); throw new Error('boom');"), request, context);
    expect(result).toMatchObject({ ok: false, logs: 'before\n', error: { cause: 'error', message: 'boom' } });
  });
});

// The sandbox thread with its clock stopped: QuickJS's own deadline never comes, so a runaway ends only when the host
// terminates its thread, as it does when that deadline comes late on a loaded machine.
const frozenClockThread = path.join(os.tmpdir(), `relay-frozen-clock-thread-${process.pid}.cjs`);
writeFileSync(
  frozenClockThread,
  `Date.now = () => 0;\nrequire(${JSON.stringify(path.join(__dirname, 'sandbox-thread.cjs'))});\n`,
);

describe('the logs of a call whose thread the host terminates', () => {
  const runner = createTransformRunner({ threadFile: frozenClockThread, concurrency: 1, timeoutMs: 200 });
  afterAll(() => runner.close());

  it('are the ones it wrote before it was stopped, up to the same limit', async () => {
    const spinning = await runner.run(
      handler("console.log('spinning', 1, 'é ✓ 😀'); while (true) {}"),
      request,
      context,
    );
    expect(spinning).toEqual({
      ok: false,
      error: { cause: 'timeout', message: 'the transform ran past its 200 ms time limit' },
      logs: 'spinning 1 é ✓ 😀\n',
    });
    const flooding = await runner.run(
      handler("for (let i = 0; i < 1000; i++) console.log('line ' + i); while (true) {}"),
      request,
      context,
    );
    expect(flooding.logs).toHaveLength(4096);
    expect(flooding.logs.startsWith('line 0\nline 1\n')).toBe(true);
  });

  it('never carry over to the next call', async () => {
    await runner.run(handler("console.log('before'); while (true) {}"), request, context);
    const quiet = await runner.run(handler('while (true) {}'), request, context);
    expect(quiet).toMatchObject({ ok: false, error: { cause: 'timeout' }, logs: '' });
  });
});
