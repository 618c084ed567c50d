// Builds the fixture programs once per test run (gcc only: no make needed on a fresh machine).
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fixturesDir } from './paths.js';

const run = promisify(execFile);

function newer(a: string, b: string): boolean {
  try {
    return statSync(a).mtimeMs > statSync(b).mtimeMs;
  } catch {
    return true;
  }
}

export default async function setup(): Promise<void> {
  const out = join(fixturesDir, 'build');
  mkdirSync(out, { recursive: true });
  const sources = readdirSync(fixturesDir).filter((f) => f.endsWith('.c'));
  const stale = sources.filter((src) => newer(join(fixturesDir, src), join(out, src.slice(0, -2))));
  // Same flags as fixtures/c/Makefile, and compiled from the fixtures directory with the
  // source's own name, as make does: the debug info then names the file `crash.c`, not an
  // absolute path that depends on where the checkout is.
  const inFixtures = { cwd: fixturesDir };
  const jobs = stale.map((src) =>
    run(
      'gcc',
      ['-g', '-O0', '-fno-omit-frame-pointer', '-Wall', '-o', join(out, src.slice(0, -2)), src, '-lpthread'],
      inFixtures,
    ),
  );
  // One program without debug info, for the warnings about it.
  const nodebug = join(out, 'hello_nodebug');
  if (newer(join(fixturesDir, 'hello.c'), nodebug)) {
    jobs.push(run('gcc', ['-O0', '-s', '-o', nodebug, 'hello.c'], inFixtures));
  }
  // AArch64 builds of crash.c for QEMU user mode (static, and dynamic for the sysroot). Without
  // the cross compiler they are not built, and the tests that need them say what to install.
  const cross = ['aarch64-linux-gnu-gcc', ['-g', '-O0', '-fno-omit-frame-pointer']] as const;
  const crossJobs: Promise<unknown>[] = [];
  for (const [name, extra] of [
    ['crash-aarch64', ['-static']],
    ['crash-aarch64-dyn', []],
  ] as const) {
    const target = join(out, name);
    if (newer(join(fixturesDir, 'crash.c'), target)) {
      crossJobs.push(
        run(cross[0], [...cross[1], ...extra, '-o', target, 'crash.c'], inFixtures).catch((e: Error) => {
          if (!/ENOENT/.test(e.message)) throw e;
        }),
      );
    }
  }
  await Promise.all([...jobs, ...crossJobs]);
}
