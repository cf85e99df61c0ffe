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

// The tests that took longest, slowest first: a test that nears its time bound on a busy CI machine fails there while
// passing alone (jest's bound is 120 s unless the test sets its own), so every run names the ones to watch.
const SLOW_MS = 10_000;
const SLOWEST_SHOWN = 15;
function slowestTests(results, root = process.cwd()) {
  const slow = [];
  for (const file of results.testResults ?? [])
    for (const test of file.testResults ?? [])
      if ((test.duration ?? 0) >= SLOW_MS)
        slow.push({ ms: test.duration, name: `${path.relative(root, file.testFilePath)} › ${test.fullName}` });
  slow.sort((a, b) => b.ms - a.ms);
  return slow.slice(0, SLOWEST_SHOWN).map(({ ms, name }) => `${(ms / 1000).toFixed(1).padStart(6)} s  ${name}`);
}

class TotalsReporter {
  onRunComplete(_contexts, results) {
    const slowest = slowestTests(results);
    if (slowest.length > 0)
      process.stdout.write(`\ntests that took ${SLOW_MS / 1000} s or more, slowest first:\n${slowest.join('\n')}\n`);
    if (process.env.TOTALS_LINE === 'off') return;
    const extra = extraTotals(process.env.EXTRA_TOTALS_FILES);
    const passed = results.numPassedTests + extra.passed;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites + extra.failed;
    process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
  }
}
module.exports = TotalsReporter;
module.exports.slowestTests = slowestTests;
