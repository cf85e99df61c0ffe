// The dry compile the API runs when a transform is saved: the code is parsed and compiled in a sandbox, never run.
import { createTransformRunner } from './transform-runner';

const runner = createTransformRunner({ timeoutMs: 500, maxCodeBytes: 1024 });
afterAll(() => runner.close());

describe('compile', () => {
  it('accepts code that compiles, without running it', async () => {
    // Run, this would time out; compiled only, it answers at once.
    await expect(runner.compile("addHandler('transform', (r) => r);\nwhile (true) {}")).resolves.toEqual({ ok: true });
  });

  it('refuses a syntax error with its message and line', async () => {
    const result = await runner.compile("addHandler('transform', (r) => {\n  r.body = ;\n  return r;\n});");
    expect(result).toEqual({
      ok: false,
      error: { cause: 'error', line: 2, message: expect.stringMatching(/^SyntaxError: /) as unknown },
    });
  });

  it('refuses what a script may not hold (a top-level return)', async () => {
    const result = await runner.compile('return 1;');
    expect(result.ok).toBe(false);
  });

  it('refuses code over the size limit before any sandbox sees it', async () => {
    const result = await runner.compile(`// ${'x'.repeat(2000)}`);
    expect(result).toEqual({ ok: false, error: { cause: 'too_large', message: expect.any(String) as unknown } });
  });

  it('leaves the sandbox usable for runs', async () => {
    const result = await runner.run(
      "addHandler('transform', (r) => { r.body = { n: r.body.n + 1 }; return r; });",
      { body: { n: 1 }, headers: {}, path: '', query: {} },
      { event_id: 'e', source: 's', rule_id: 'r' },
    );
    expect(result).toMatchObject({ ok: true, request: { body: { n: 2 } } });
  });
});
