import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- jest loads the reporter as CommonJS too
const TotalsReporter = require('./totals-reporter.cjs') as (new () => {
  onRunComplete(contexts: unknown, results: object): void;
}) & { slowestTests(results: object, root?: string): string[] };

const jestResults = { numPassedTests: 5, numFailedTests: 1, numRuntimeErrorTestSuites: 0 };

const fileResult = (file: string, durations: number[]) => ({
  testFilePath: path.join(process.cwd(), file),
  testResults: durations.map((duration, i) => ({ fullName: `test ${i}`, duration })),
});

function lineOf(extraFiles: string | undefined, totalsLine?: string, results: object = jestResults): string {
  const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const before = { EXTRA_TOTALS_FILES: process.env.EXTRA_TOTALS_FILES, TOTALS_LINE: process.env.TOTALS_LINE };
  const set = (name: keyof typeof before, value: string | undefined) => {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  set('EXTRA_TOTALS_FILES', extraFiles);
  set('TOTALS_LINE', totalsLine);
  try {
    new TotalsReporter().onRunComplete(undefined, results);
    return write.mock.calls
      .map((call) => String(call[0]))
      .join('')
      .trim();
  } finally {
    write.mockRestore();
    set('EXTRA_TOTALS_FILES', before.EXTRA_TOTALS_FILES);
    set('TOTALS_LINE', before.TOTALS_LINE);
  }
}

describe('the totals line', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'totals-'));
  const report = (name: string, body: object) => {
    const file = path.join(dir, name);
    writeFileSync(file, JSON.stringify(body));
    return file;
  };

  it("is jest's counts alone without other runners", () => {
    expect(lineOf(undefined)).toBe('5 passed, 1 failed');
  });

  it("adds another runner's JSON report (vitest's)", () => {
    const vitest = report('ok.json', { numPassedTests: 40, numFailedTests: 2, success: false });
    expect(lineOf(vitest)).toBe('45 passed, 3 failed');
  });

  it('counts a runner whose suite failed to load, or that wrote no report, as a failure', () => {
    const broken = report('broken.json', { numPassedTests: 3, numFailedTests: 0, success: false });
    expect(lineOf([broken, path.join(dir, 'missing.json')].join(path.delimiter))).toBe('8 passed, 3 failed');
  });

  // scripts/test.mjs: the main jest run writes its report (`jest --json`) and prints no line; the compose suite's
  // run, last, adds it and prints the one line.
  it("adds an earlier jest run's report, a suite that could not run counted once", () => {
    const earlier = report('jest.json', {
      numPassedTests: 100,
      numFailedTests: 0,
      numRuntimeErrorTestSuites: 1,
      success: false,
    });
    expect(lineOf(earlier)).toBe('105 passed, 2 failed');
  });

  it('prints nothing with TOTALS_LINE=off, leaving the line to a later run', () => {
    expect(lineOf(undefined, 'off')).toBe('');
  });

  it('is preceded by the tests that took 10 s or more, slowest first, even when another run prints the line', () => {
    const results = {
      ...jestResults,
      testResults: [fileResult('tests/e2e/a.test.ts', [9_999, 41_217]), fileResult('tests/b.test.ts', [12_000])],
    };
    const expected = [
      'tests that took 10 s or more, slowest first:',
      '  41.2 s  tests/e2e/a.test.ts › test 1',
      '  12.0 s  tests/b.test.ts › test 0',
    ].join('\n');
    expect(lineOf(undefined, undefined, results)).toBe(`${expected}\n\n5 passed, 1 failed`);
    expect(lineOf(undefined, 'off', results)).toBe(expected);
  });

  it('names at most the 15 slowest', () => {
    const durations = Array.from({ length: 20 }, (_, i) => 10_000 + i * 1_000);
    const slowest = TotalsReporter.slowestTests({ testResults: [fileResult('c.test.ts', durations)] });
    expect(slowest).toHaveLength(15);
    expect(slowest[0]).toBe('  29.0 s  c.test.ts › test 19');
    expect(slowest[14]).toBe('  15.0 s  c.test.ts › test 5');
  });
});
