// Fixtures the shared build (globalSetup.ts) does not make yet: sanitized builds of the C
// fixtures and the C++ one. Built on first use, from the fixture's own directory with its bare
// name (as the shared fixtures are), into fixtures/c/build/<dir>/. The fixture builder the tests
// and the bench will share takes these entries over.
import { execFile } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { findOnPath } from '../../src/util/which.js';
import { fixturesDir, repoRoot } from './paths.js';

const run = promisify(execFile);
const FLAGS = ['-g', '-O0', '-fno-omit-frame-pointer', '-Wall'];

/** Output (under fixtures/c/build/), source (under fixtures/), compiler, extra flags. */
export const EXTRA_FIXTURES = {
  'sanitized/asan_errors': ['c/asan_errors.c', 'gcc', ['-fsanitize=address']],
  'sanitized/ubsan_errors': ['c/ubsan_errors.c', 'gcc', ['-fsanitize=undefined']],
  'sanitized/lsan_leak': ['c/lsan_leak.c', 'gcc', ['-fsanitize=leak']],
  'cpp/containers': ['cpp/containers.cpp', 'g++', []],
} as const;
export type ExtraFixture = keyof typeof EXTRA_FIXTURES;

const pending = new Map<ExtraFixture, Promise<string>>();

function stale(source: string, out: string): boolean {
  try {
    return statSync(source).mtimeMs > statSync(out).mtimeMs;
  } catch {
    return true;
  }
}

/** The compiler a fixture needs, or undefined when this machine has it (for it.skipIf). */
export function missingCompiler(name: ExtraFixture): string | undefined {
  const compiler = EXTRA_FIXTURES[name][1];
  return findOnPath([compiler]) === undefined ? compiler : undefined;
}

/** The built fixture's path, building it first when its source is newer. */
export function builtFixture(name: ExtraFixture): Promise<string> {
  let p = pending.get(name);
  if (!p) {
    p = (async () => {
      const [source, compiler, extra] = EXTRA_FIXTURES[name];
      const src = join(repoRoot, 'fixtures', source);
      const out = join(fixturesDir, 'build', name);
      if (stale(src, out)) {
        mkdirSync(dirname(out), { recursive: true });
        const file = source.split('/').pop() as string;
        await run(compiler, [...FLAGS, ...extra, '-o', out, file], { cwd: dirname(src) });
      }
      return out;
    })();
    pending.set(name, p);
  }
  return p;
}
