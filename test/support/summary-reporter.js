// Ends every run with the slowest suites (where a run's minutes go) and one plain line, after
// everything else jest prints: "tests: N passed, N failed, N skipped". A suite that could not even
// load counts as failed, so a broken file can never read as green.
const SLOWEST = 12;

class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + (results.numRuntimeErrorTestSuites || 0);
    const timed = results.testResults
      .filter((r) => r.perfStats && r.perfStats.end > r.perfStats.start)
      .map((r) => ({ path: r.testFilePath.replace(`${this.rootDir}/`, ''), s: (r.perfStats.end - r.perfStats.start) / 1000 }))
      .sort((a, b) => b.s - a.s)
      .slice(0, SLOWEST);
    const slowest = timed.length
      ? `slowest suites:\n${timed.map((t) => `  ${t.s.toFixed(1).padStart(7)} s  ${t.path}`).join('\n')}\n`
      : '';
    const line = `tests: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped\n`;
    process.once('exit', () => process.stdout.write(`\n${slowest}${line}`));
  }
}
module.exports = SummaryReporter;
