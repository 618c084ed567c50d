import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Real debuggers: spread files over processes, but not more than the machine has cores for.
    pool: 'forks',
    maxWorkers: 4,
    reporters: ['default', './test/helpers/summaryReporter.ts'],
  },
});
