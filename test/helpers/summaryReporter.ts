// Prints the plain summary line CI looks for: "N passed, N failed" (and skips on their own line).
// Before it, what the run proved where a test could see one of two outcomes (annotations of type
// `outcome`, helpers/outcomes.ts `saw`) and why each skipped test skipped (its ctx.skip note), so
// neither passes silently.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const outcomes: string[] = [];
    const skips: string[] = [];
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const result = test.result();
        const name = `${mod.relativeModuleId} > ${test.fullName}`;
        if (result.state === 'passed') passed++;
        else if (result.state === 'failed') failed++;
        else {
          skipped++;
          if (result.state === 'skipped' && result.note) skips.push(`  ${name}: ${result.note}`);
        }
        for (const a of test.annotations()) if (a.type === 'outcome') outcomes.push(`  ${name}: ${a.message}`);
      }
      // A file that failed to load has no tests but is a failure.
      if (mod.state() === 'failed' && [...mod.children.allTests()].length === 0) failed++;
    }
    const lines: string[] = [];
    if (outcomes.length > 0) lines.push('\noutcomes seen:', ...outcomes);
    if (skips.length > 0) lines.push('\nskipped, with the reason:', ...skips);
    process.stdout.write(`${lines.join('\n')}\n${passed} passed, ${failed} failed\n${skipped} skipped\n`);
  }
}
