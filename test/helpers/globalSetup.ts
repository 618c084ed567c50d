// Builds the fixture programs once per test run, through the one build the bench uses too
// (scripts/buildFixtures.mjs): gcc only, no make needed on a fresh machine, and an output is
// rebuilt when what decides its bytes changed (sources, flags, compiler, directory), not by date.
//
// At the end of the run, the leak check (issue 30, scripts/leakCheck.mjs): every process of this
// run still alive once the exiting ones have had their grace fails the run, named with its pid,
// command line, start time and the test files that were running when it started; then it is
// killed, so a failed run does not leave a spinner skewing whatever runs next on the machine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildFixtures } from '../../scripts/buildFixtures.mjs';
import { describeLeaks, killAll, leaksAfterGrace, readSpans, runScope, startTicks } from '../../scripts/leakCheck.mjs';
import { repoRoot } from './paths.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where each test file logs when it starts and ends (helpers/leakSetup.ts). */
    leakLog: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const since = startTicks();
  const dir = mkdtempSync(join(tmpdir(), 'dbg-mcp-run-'));
  const log = join(dir, 'files.log');
  project.provide('leakLog', log);
  const { built, skipped } = await buildFixtures();
  if (built.length > 0) process.stderr.write(`fixtures built: ${built.join(', ')}\n`);
  // The tests that need a skipped program say what to install; this says it once up front.
  for (const s of skipped) process.stderr.write(`fixture ${s.output} not built: ${s.reason}\n`);

  return async function teardown(): Promise<void> {
    // Before vitest closes its pool: its workers are not counted (scripts/leakCheck.mjs), what they started is.
    const left = await leaksAfterGrace(runScope(repoRoot, process.pid, since));
    const spans = readSpans(log);
    rmSync(dir, { recursive: true, force: true });
    if (left.length === 0) return;
    killAll(left);
    const lines = describeLeaks(left, spans);
    const message = `leak check: ${left.length} process(es) of this run still alive at its end (killed now):\n${lines.map((l) => `  ${l}`).join('\n')}`;
    process.exitCode = 1;
    throw new Error(message);
  };
}
