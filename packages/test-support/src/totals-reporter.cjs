// Ends every run with one plain line that CI reads: "N passed, N failed".
// A test file that could not run at all counts as a failure. Counts of runners that ran before this one
// (vitest's and jest's JSON reports, scripts/test.mjs) are added from the files EXTRA_TOTALS_FILES lists;
// TOTALS_LINE=off leaves the line to a runner that comes after (scripts/test.mjs's compose suite).
const fs = require('node:fs');
const path = require('node:path');

function extraTotals(list) {
  let passed = 0;
  let failed = 0;
  for (const file of (list ?? '').split(path.delimiter).filter(Boolean)) {
    try {
      const report = JSON.parse(fs.readFileSync(file, 'utf8'));
      passed += report.numPassedTests ?? 0;
      // A suite that failed to load has no failed test of its own: count it, as for jest.
      failed += (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
      if (!report.numFailedTests && !report.numRuntimeErrorTestSuites && report.success === false) failed += 1;
    } catch {
      failed += 1; // the runner crashed before writing its report
    }
  }
  return { passed, failed };
}

class TotalsReporter {
  onRunComplete(_contexts, results) {
    if (process.env.TOTALS_LINE === 'off') return;
    const extra = extraTotals(process.env.EXTRA_TOTALS_FILES);
    const passed = results.numPassedTests + extra.passed;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites + extra.failed;
    process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
  }
}
module.exports = TotalsReporter;
