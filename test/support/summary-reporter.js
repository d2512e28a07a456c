// Ends every run with one plain line: "tests: N passed, N failed, N skipped".
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    // A suite that failed to load counts as a failure, so a broken file can never read as green.
    const failed = results.numFailedTests + (results.numRuntimeErrorTestSuites || 0);
    process.stdout.write(`\ntests: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
module.exports = SummaryReporter;
