import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- jest loads the reporter as CommonJS too
const TotalsReporter = require('./totals-reporter.cjs') as new () => {
  onRunComplete(contexts: unknown, results: Record<string, number>): void;
};

const jestResults = { numPassedTests: 5, numFailedTests: 1, numRuntimeErrorTestSuites: 0 };

function lineOf(extraFiles: string | undefined): string {
  const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const before = process.env.EXTRA_TOTALS_FILES;
  if (extraFiles === undefined) delete process.env.EXTRA_TOTALS_FILES;
  else process.env.EXTRA_TOTALS_FILES = extraFiles;
  try {
    new TotalsReporter().onRunComplete(undefined, jestResults);
    return String(write.mock.calls[0]?.[0]).trim();
  } finally {
    write.mockRestore();
    if (before === undefined) delete process.env.EXTRA_TOTALS_FILES;
    else process.env.EXTRA_TOTALS_FILES = before;
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
});
