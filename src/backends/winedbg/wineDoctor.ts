// What the doctor says about Windows programs on this machine: Wine and winedbg, the launcher's
// compiler, 32-bit support, and where the prefix is and how big. Facts only; the doctor's wording
// and layout are the doctor's.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { findOnPath } from '../../util/which.js';
import { prefixRuns32Bit } from './programCheck.js';
import { MINGW_CC } from './wineLauncher.js';
import { findWineTools, type PrefixInfo, type WinePrefix } from './winePrefix.js';

const run = promisify(execFile);

export interface WineFacts {
  /** `wine --version`, or why there is none. */
  wine: { version: string } | { missing: string[] };
  /** Builds the launcher that keeps a program's output (once per cache); without it, output is lost. */
  mingw: string | undefined;
  /** Whether the prefix runs 32-bit programs (undefined before the prefix exists). */
  thirtyTwoBit: boolean | undefined;
  prefix: PrefixInfo | undefined;
}

export async function wineFacts(prefix?: WinePrefix): Promise<WineFacts> {
  const tools = findWineTools();
  let wine: WineFacts['wine'];
  if ('missing' in tools) wine = tools;
  else {
    try {
      const { stdout } = await run(tools.wine, ['--version'], {
        timeout: 10_000,
        env: { PATH: process.env['PATH'] ?? '' },
      });
      wine = { version: stdout.trim() };
    } catch (e) {
      wine = { missing: [`wine (${(e as Error).message})`] };
    }
  }
  const info = prefix?.info();
  return {
    wine,
    mingw: findOnPath([MINGW_CC]),
    thirtyTwoBit: info?.exists ? prefixRuns32Bit(info.path) : undefined,
    prefix: info,
  };
}
