// The fixture build rebuilds an output exactly when what decides its bytes changed: its source, a
// header it includes, its flags, the directory it compiles from; not when only a date moved. And
// two builds at once leave a whole binary with a stamp that describes it. On a temporary
// directory with a two-line C program, built by the real gcc.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildFixtures, CFLAGS, type FixtureEntry, fixtureEntries } from '../../../scripts/buildFixtures.mjs';
import { fixturesDir } from '../../helpers/paths.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dbg-mcp-fixtures-'));
  writeFileSync(join(dir, 'answer.h'), '#define ANSWER 42\n');
  writeFileSync(join(dir, 'prog.c'), '#include "answer.h"\nint main(void) { return ANSWER; }\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const entry = (flags = ['-O0']): FixtureEntry => ({ output: 'prog', compiler: 'gcc', sources: ['prog.c'], flags });
const build = (e: FixtureEntry = entry(), sourceDir = dir) => buildFixtures({ sourceDir, entries: [e] });
const exitCode = (file: string): number => {
  try {
    execFileSync(file);
    return 0;
  } catch (e) {
    return (e as { status: number }).status;
  }
};
/** The output's inode and date: a rename over it gives a new inode, a skipped build neither. */
const identity = (file: string): string => {
  const s = statSync(file);
  return `${s.ino}:${s.mtimeMs}`;
};

describe('fixture build keys', () => {
  it('builds once, then finds the output current', async () => {
    expect(await build()).toEqual({ built: ['prog'], current: [], skipped: [] });
    const out = join(dir, 'build', 'prog');
    expect(exitCode(out)).toBe(42);
    const before = identity(out);
    expect(await build()).toEqual({ built: [], current: ['prog'], skipped: [] });
    expect(identity(out)).toBe(before);
  });

  it('a newer date on the source with the same content rebuilds nothing', async () => {
    await build();
    const future = new Date(Date.now() + 3600_000);
    utimesSync(join(dir, 'prog.c'), future, future);
    utimesSync(join(dir, 'answer.h'), future, future);
    expect((await build()).current).toEqual(['prog']);
  });

  it('an output newer than its source but built otherwise is rebuilt (what `npm run bench` left behind)', async () => {
    const withDebugInfo = entry(['-g', '-O0']);
    await build(withDebugInfo);
    const out = join(dir, 'build', 'prog');
    // Another build of the same name, from an absolute path (so other debug info), dated after
    // the source. (Without -g the bytes would be the same, and then it is rightly kept.)
    execFileSync('gcc', ['-g', '-O0', '-o', out, join(dir, 'prog.c')]);
    expect((await build(withDebugInfo)).built).toEqual(['prog']);
  });

  it('changed flags rebuild', async () => {
    await build(entry(['-O0']));
    expect((await build(entry(['-O1']))).built).toEqual(['prog']);
    expect((await build(entry(['-O1']))).current).toEqual(['prog']);
  });

  it('a changed source rebuilds, and so does a changed header it includes', async () => {
    await build();
    writeFileSync(join(dir, 'prog.c'), '#include "answer.h"\nint main(void) { return ANSWER + 1; }\n');
    expect((await build()).built).toEqual(['prog']);
    expect(exitCode(join(dir, 'build', 'prog'))).toBe(43);
    writeFileSync(join(dir, 'answer.h'), '#define ANSWER 7\n');
    expect((await build()).built).toEqual(['prog']);
    expect(exitCode(join(dir, 'build', 'prog'))).toBe(8);
  });

  it('the same tree compiled from another directory rebuilds (the debug info names the directory)', async () => {
    await build(entry(['-g', '-O0']));
    const moved = `${dir}-moved`;
    renameSync(dir, moved);
    try {
      expect((await build(entry(['-g', '-O0']), moved)).built).toEqual(['prog']);
    } finally {
      renameSync(moved, dir);
    }
  });

  it('a stamp that does not describe its output (a half-finished race, a hand edit) rebuilds', async () => {
    await build();
    writeFileSync(join(dir, 'build', 'prog'), 'not the program');
    expect((await build()).built).toEqual(['prog']);
    expect(exitCode(join(dir, 'build', 'prog'))).toBe(42);
  });

  it('two builds at once both succeed and leave a whole program with its stamp', async () => {
    const [a, b] = await Promise.all([build(), build()]);
    expect([...a.built, ...b.built]).toEqual(['prog', 'prog']);
    expect(exitCode(join(dir, 'build', 'prog'))).toBe(42);
    expect((await build()).current).toEqual(['prog']);
    // No temporary file is left behind.
    expect(
      execFileSync('ls', ['-A', join(dir, 'build')], { encoding: 'utf8' })
        .split('\n')
        .sort(),
    ).toEqual(['', 'prog', 'prog.stamp']);
  });

  it('an optional program whose compiler is missing is skipped with the reason; a required one fails', async () => {
    const missing = { ...entry(), compiler: 'no-such-compiler-dbg-mcp' };
    expect(await build({ ...missing, optional: true })).toEqual({
      built: [],
      current: [],
      skipped: [{ output: 'prog', reason: 'no-such-compiler-dbg-mcp is not installed' }],
    });
    await expect(build(missing)).rejects.toThrow(/no-such-compiler-dbg-mcp is not installed/);
  });

  it('a source that does not compile fails with the compiler output and leaves no output', async () => {
    writeFileSync(join(dir, 'prog.c'), 'int main(void) { return }\n');
    await expect(build()).rejects.toThrow(/prog\.c:1:.*error/);
    expect(() => statSync(join(dir, 'build', 'prog'))).toThrow();
  });

  it('an entry may build into a subdirectory, from a directory of its own, with its own name in the debug info', async () => {
    mkdirSync(join(dir, '..', `${basename(dir)}-cpp`));
    const cppDir = join(dir, '..', `${basename(dir)}-cpp`);
    try {
      writeFileSync(join(cppDir, 'hi.cpp'), 'int main() { return 3; }\n');
      const cpp: FixtureEntry = {
        output: 'cpp/hi',
        compiler: 'g++',
        cwd: `../${basename(cppDir)}`,
        sources: ['hi.cpp'],
        flags: ['-g', '-O0'],
      };
      expect((await build(cpp)).built).toEqual(['cpp/hi']);
      const out = join(dir, 'build', 'cpp', 'hi');
      expect(exitCode(out)).toBe(3);
      expect(execFileSync('readelf', ['--debug-dump=info', out], { encoding: 'utf8' })).toMatch(
        /DW_AT_name\s*:.*\bhi\.cpp\b/,
      );
      expect((await build(cpp)).current).toEqual(['cpp/hi']);
    } finally {
      rmSync(cppDir, { recursive: true, force: true });
    }
  });

  it('an entry named as a source replaces the build the rules would give it', () => {
    const plain = fixtureEntries(dir, []);
    expect(plain).toEqual([expect.objectContaining({ output: 'prog', compiler: 'gcc', sources: ['prog.c'] })]);
    const sanitized = { ...entry([...CFLAGS, '-fsanitize=address']) };
    expect(fixtureEntries(dir, [sanitized])).toEqual([sanitized]);
  });

  it('every source of the fixtures directory has an entry, compiled from there by its own name', () => {
    const entries = fixtureEntries();
    const crash = entries.find((e) => e.output === 'crash');
    expect(crash).toMatchObject({ compiler: 'gcc', sources: ['crash.c'] });
    expect(crash?.flags).toEqual(['-g', '-O0', '-fno-omit-frame-pointer', '-Wall']);
    expect(entries.map((e) => e.output)).toEqual(expect.arrayContaining(['hello_nodebug', 'crash-aarch64']));
    // The stamp of this run's build (globalSetup) names the source as written, compiled there.
    const stamp = JSON.parse(readFileSync(join(fixturesDir, 'build', 'crash.stamp'), 'utf8'));
    expect(stamp.inputs).toMatchObject({ sources: [['crash.c', expect.any(String)]], cwd: fixturesDir });
    expect(stamp.inputs.argv).toContain('crash.c');
  });
});
