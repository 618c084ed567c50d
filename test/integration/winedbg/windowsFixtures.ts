// The Windows fixture programs (fixtures/windows/*.c), built with mingw by the shared fixture build
// (scripts/buildFixtures.mjs, one entry each) into fixtures/c/build/windows/ when vitest starts;
// without mingw they are not built and the tests that need them skip, naming what to install.
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fixturesDir, repoRoot } from '../../helpers/paths.js';

export const windowsFixturesDir = join(repoRoot, 'fixtures', 'windows');
export const windowsBuildDir = join(fixturesDir, 'build', 'windows');

const MINGW = 'x86_64-w64-mingw32-gcc';

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

/** The 32-bit fixture, or undefined when no i386pe linker script exists on this machine. */
export function thirtyTwoBitFixture(): string | undefined {
  const path = windowsFixture('tiny32');
  return existsSync(path) ? path : undefined;
}
