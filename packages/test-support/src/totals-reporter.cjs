// Ends every run with one plain line that CI reads: "N passed, N failed".
// A test file that could not run at all counts as a failure.
class TotalsReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(`\n${results.numPassedTests} passed, ${failed} failed\n`);
  }
}
module.exports = TotalsReporter;
