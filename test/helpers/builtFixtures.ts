// Fixtures built into subdirectories of fixtures/c/build/ by the shared build
// (scripts/buildFixtures.mjs, run once by globalSetup.ts): sanitized builds of C fixtures and the
// C++ programs of fixtures/cpp.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findOnPath } from '../../src/util/which.js';
import { fixturesDir } from './paths.js';

/** Output (under fixtures/c/build/) and the compiler that builds it. */
const COMPILERS = {
  'sanitized/asan_errors': 'gcc',
  'sanitized/ubsan_errors': 'gcc',
  'sanitized/lsan_leak': 'gcc',
  'cpp/containers': 'g++',
  'cpp/throw': 'g++',
} as const;
export type ExtraFixture = keyof typeof COMPILERS;

/** The compiler a fixture needs, or undefined when this machine has it (for it.skipIf). */
export function missingCompiler(name: ExtraFixture): string | undefined {
  const compiler = COMPILERS[name];
  return findOnPath([compiler]) === undefined ? compiler : undefined;
}

/** The built fixture's path; an error naming the build when the shared build did not make it. */
export async function builtFixture(name: ExtraFixture): Promise<string> {
  const out = join(fixturesDir, 'build', name);
  if (!existsSync(out)) throw new Error(`${out} was not built: run node scripts/buildFixtures.mjs and read its output`);
  return out;
}
