// The leak check's own test (../leakCheck.test.ts) runs this config: the project's setup and
// teardown around one file that leaves a program running.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../../..', import.meta.url)),
    include: ['test/e2e/leakCheck/*.fixture.ts'],
    globalSetup: ['test/helpers/globalSetup.ts'],
    setupFiles: ['test/helpers/leakSetup.ts'],
    teardownTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 1,
    reporters: ['default'],
  },
});
