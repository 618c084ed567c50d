// Prints the plain summary line CI looks for: "N passed, N failed" (and skips on their own line).
// Before it, what the run proved where a test could see one of two outcomes (annotations of type
// `outcome`, helpers/outcomes.ts `saw`) and why each skipped test skipped (its ctx.skip note), so
// neither passes silently. Then the tests that failed, each with the first line of its error, and
// those that passed only on their second try (vitest.config.ts `retry`), so a flaky test is named
// in every run's output instead of being hidden by the retry or sinking the whole run.
// Last, the assertions the tests made (helpers/leakSetup.ts counts them), so a change to the
// harness shows whether a check was lost.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    let assertions = 0;
    const outcomes: string[] = [];
    const skips: string[] = [];
    const failures: string[] = [];
    const flaky: string[] = [];
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const result = test.result();
        assertions += test.meta().assertions ?? 0;
        const name = `${mod.relativeModuleId} > ${test.fullName}`;
        if (result.state === 'passed') {
          passed++;
          if (test.diagnostic()?.flaky)
            flaky.push(`  ${name}: failed first (${firstLine(result.errors?.[0]?.message)}), passed on a retry`);
        } else if (result.state === 'failed') {
          failed++;
          failures.push(`  ${name}: ${firstLine(result.errors[0]?.message)}`);
        } else {
          skipped++;
          if (result.state === 'skipped' && result.note) skips.push(`  ${name}: ${result.note}`);
        }
        for (const a of test.annotations()) if (a.type === 'outcome') outcomes.push(`  ${name}: ${a.message}`);
      }
      // A file that failed to load has no tests but is a failure.
      if (mod.state() === 'failed' && [...mod.children.allTests()].length === 0) {
        failed++;
        failures.push(`  ${mod.relativeModuleId}: the file failed to load (${firstLine(mod.errors()[0]?.message)})`);
      }
    }
    const lines: string[] = [];
    if (outcomes.length > 0) lines.push('\noutcomes seen:', ...outcomes);
    if (skips.length > 0) lines.push('\nskipped, with the reason:', ...skips);
    if (flaky.length > 0) lines.push('\nflaky (failed once, passed on a retry):', ...flaky);
    if (failures.length > 0) lines.push('\nfailed:', ...failures);
    process.stdout.write(
      `${lines.join('\n')}\n${passed} passed, ${failed} failed\n${skipped} skipped\n${assertions} assertions\n`,
    );
  }
}

/** The first line of an error message, bounded, for a one-line summary entry. */
function firstLine(message: string | undefined): string {
  const line = (message ?? 'no error message').split('\n')[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
