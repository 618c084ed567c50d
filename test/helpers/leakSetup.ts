// Each test file checks its own leftovers (issue 30): after the file's last hook, every process
// this worker started during the file, and (when no other file ran beside it, so the process can
// only be this file's) every process of this checkout that fell out of the tree meanwhile, must
// be gone (exiting ones get scripts/leakCheck.mjs's grace). The failure names the file. The
// global teardown (globalSetup.ts) checks the whole run again at its end and kills what is left.
//
// Also counts the assertions each test made, for the summary reporter ("N assertions"), so a
// reviewer sees no check was lost when tests move.
import { relative } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, inject } from 'vitest';
import {
  describeLeaks,
  EXIT_GRACE_MS,
  leaksAfterGrace,
  logFileEvent,
  nowTicks,
  othersRan,
  readSpans,
  runScope,
} from '../../scripts/leakCheck.mjs';
import { repoRoot } from './paths.js';

declare module '@vitest/runner' {
  interface TaskMeta {
    /** expect() calls the test made (expect.getState().assertionCalls). */
    assertions?: number;
  }
}

let since = 0;
let file = '';

beforeAll(() => {
  since = nowTicks();
  file = relative(repoRoot, expect.getState().testPath ?? 'unknown file');
  logFileEvent(inject('leakLog'), 'start', file);
});

afterEach((ctx) => {
  ctx.task.meta.assertions = expect.getState().assertionCalls;
});

afterAll(async () => {
  const log = inject('leakLog');
  logFileEvent(log, 'end', file);
  const orphans = !othersRan(readSpans(log), file, since);
  const left = await leaksAfterGrace({ ...runScope(repoRoot, process.pid, since), orphans });
  if (left.length === 0) return;
  const lines = describeLeaks(left, readSpans(log));
  throw new Error(
    `${file} left ${left.length} process(es) running after its last test:\n${lines.map((l) => `  ${l}`).join('\n')}`,
  );
}, EXIT_GRACE_MS + 30_000);
