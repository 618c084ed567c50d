import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/globalSetup.ts'],
    // Each file checks what it left running and counts its assertions (issue 30).
    setupFiles: ['test/helpers/leakSetup.ts'],
    // The run's leak check waits up to 10 s for exiting processes before it names what is left.
    teardownTimeout: 60_000,
    // Deadlines that only catch hangs: a loaded 2-core machine (load 18 measured) runs a test that
    // takes 3 s idle in 30; timing itself is the bench's.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // One more try for a test that fails: real debuggers on a loaded 2-core machine have rare
    // timing failures no single test shows twice in a row. A test that needed it is listed by name
    // under "flaky" in the summary (test/helpers/summaryReporter.ts), so it is fixed, not hidden.
    // DBG_MCP_TEST_RETRY=0 runs without it.
    retry: Number(process.env['DBG_MCP_TEST_RETRY'] ?? 1),
    // Real debuggers: spread files over processes, but not more than the machine has cores for.
    pool: 'forks',
    maxWorkers: 4,
    reporters: ['default', './test/helpers/summaryReporter.ts'],
  },
});
