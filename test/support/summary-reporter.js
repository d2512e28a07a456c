// Ends every run with one plain line, after everything else jest prints:
// "tests: N passed, N failed, N skipped". A suite that could not even load counts as failed, so
// a broken file can never read as green.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + (results.numRuntimeErrorTestSuites || 0);
    const line = `tests: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped\n`;
    process.once('exit', () => process.stdout.write(`\n${line}`));
  }
}
module.exports = SummaryReporter;
