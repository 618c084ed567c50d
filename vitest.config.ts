import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/globalSetup.ts'],
    // Deadlines that only catch hangs: a loaded 2-core machine (load 18 measured) runs a test that
    // takes 3 s idle in 30; timing itself is the bench's.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Real debuggers: spread files over processes, but not more than the machine has cores for.
    pool: 'forks',
    maxWorkers: 4,
    reporters: ['default', './test/helpers/summaryReporter.ts'],
  },
});
