// The Windows fixture programs (fixtures/windows/*.c), built with mingw for the winedbg tests.
// Until the shared fixture build knows them, each test file calls buildWindowsFixtures() in its
// beforeAll. A program is rebuilt when its source or the flags change (a hash kept beside it),
// not by timestamp, and written under a temporary name then renamed, so test files building at
// the same time never run a half-written .exe.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../../helpers/paths.js';

const run = promisify(execFile);

export const windowsFixturesDir = join(repoRoot, 'fixtures', 'windows');
export const windowsBuildDir = join(windowsFixturesDir, 'build');

/** gcc 12 emits DWARF 5 by default; winedbg's own symbol reader needs DWARF 4 (GDB reads both). */
export const MINGW_FLAGS = ['-g', '-gdwarf-4', '-O0', '-Wall'];
const MINGW = 'x86_64-w64-mingw32-gcc';
const MINGW_LD = 'x86_64-w64-mingw32-ld';

/** tiny32.c is linked by hand: mingw's x86_64 compiler has no 32-bit runtime or default script. */
const THIRTY_TWO_BIT = 'tiny32';
/** Where Debian's binutils keep the i386pe linker script mingw's ld lacks. */
const I386PE_SCRIPTS = [
  '/usr/lib/x86_64-linux-gnu/ldscripts/i386pe.x',
  '/usr/x86_64-w64-mingw32/lib/ldscripts/i386pe.x',
];

export function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Why the Windows tests cannot run here, or undefined when Wine, winedbg, gdb and mingw are all present. */
export function windowsToolsMissing(): string | undefined {
  const missing = ['wine', 'winedbg', 'wineserver', 'gdb', MINGW].filter((t) => onPath(t) === undefined);
  if (missing.length === 0) return undefined;
  return `${missing.join(', ')} not installed: apt-get install -y --no-install-recommends wine wine64 gcc-mingw-w64-x86-64-win32 gdb`;
}

export function windowsFixture(name: string): string {
  return join(windowsBuildDir, `${name}.exe`);
}

/** Line number of the fixture line tagged `/* @marker *\/`. */
export function windowsLineOf(file: string, marker: string): number {
  const lines = readFileSync(join(windowsFixturesDir, file), 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes(`/* @${marker} */`));
  if (i < 0) throw new Error(`${file} has no line marked @${marker}`);
  return i + 1;
}

function stampOf(source: string, flags: readonly string[]): string {
  return createHash('sha256')
    .update(readFileSync(join(windowsFixturesDir, source)))
    .update(`\0${flags.join(' ')}`)
    .digest('hex');
}

async function buildOne(source: string): Promise<void> {
  const name = source.slice(0, -2);
  const out = join(windowsBuildDir, `${name}.exe`);
  const stampFile = join(windowsBuildDir, `.${name}.stamp`);
  const is32 = name === THIRTY_TWO_BIT;
  const script = is32 ? I386PE_SCRIPTS.find((p) => existsSync(p)) : undefined;
  if (is32 && script === undefined) return; // the test that needs it says so
  const flags = is32 ? ['-m32', '-O1', `-T${script}`] : MINGW_FLAGS;
  const stamp = stampOf(source, flags);
  if (existsSync(out) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return;
  const tmp = `${out}.${process.pid}.tmp`;
  // Relative source names, as make would use: the debug info names `locals.c`, not a path.
  const inDir = { cwd: windowsFixturesDir };
  if (is32) {
    const obj = `${tmp}.o`;
    await run(MINGW, ['-m32', '-O1', '-c', '-o', obj, source], inDir);
    await run(
      MINGW_LD,
      ['-m', 'i386pe', '-T', script as string, '-e', '_mainCRTStartup@0', '--subsystem', 'console', '-o', tmp, obj],
      inDir,
    );
    await run('rm', ['-f', obj]);
  } else {
    await run(MINGW, [...MINGW_FLAGS, '-o', tmp, source], inDir);
  }
  renameSync(tmp, out);
  writeFileSync(stampFile, stamp);
}

/** Builds every fixtures/windows program that is missing or stale. Needs mingw. */
export async function buildWindowsFixtures(): Promise<void> {
  mkdirSync(windowsBuildDir, { recursive: true });
  const sources = readdirSync(windowsFixturesDir).filter((f) => f.endsWith('.c'));
  await Promise.all(sources.map((s) => buildOne(s)));
}

/** The 32-bit fixture, or undefined when no i386pe linker script exists on this machine. */
export function thirtyTwoBitFixture(): string | undefined {
  const path = windowsFixture(THIRTY_TWO_BIT);
  return existsSync(path) ? path : undefined;
}
