import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- jest loads the reporter as CommonJS too
const TotalsReporter = require('./totals-reporter.cjs') as new () => {
  onRunComplete(contexts: unknown, results: Record<string, number>): void;
};

const jestResults = { numPassedTests: 5, numFailedTests: 1, numRuntimeErrorTestSuites: 0 };

function lineOf(extraFiles: string | undefined, totalsLine?: string): string {
  const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const before = { EXTRA_TOTALS_FILES: process.env.EXTRA_TOTALS_FILES, TOTALS_LINE: process.env.TOTALS_LINE };
  const set = (name: keyof typeof before, value: string | undefined) => {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  set('EXTRA_TOTALS_FILES', extraFiles);
  set('TOTALS_LINE', totalsLine);
  try {
    new TotalsReporter().onRunComplete(undefined, jestResults);
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
});
