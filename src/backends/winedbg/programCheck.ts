// Whether this Wine can run a given .exe, decided before Wine is asked. Measured (Wine 8.0 from
// Debian, wine64 without wine32): a 32-bit (i386) .exe fails with "Application could not be
// started, or no application associated with the specified file. ShellExecuteEx failed: Internal
// error." under `wine` (exit 1) and "Couldn't start process" under winedbg (exit 255); with
// WINEDEBUG unset Wine says why: "starting … in experimental wow64 mode" then "failed to load
// \??\C:\windows\syswow64\ntdll.dll error c0000135". Neither names the fix, so the backend
// refuses first, here, with it.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DebuggerError } from '../../util/errors.js';
import { type PeHeader, readPeHeader } from './peFile.js';

const WINE32_FIX =
  'install 32-bit Wine (Debian/Ubuntu: dpkg --add-architecture i386 && apt-get update && apt-get install wine32:i386), then update the prefix (wineboot -u) or let dbg-mcp make a new one';

/** A prefix made by a Wine with 32-bit support has the 32-bit system DLLs in syswow64. */
export function prefixRuns32Bit(prefixDir: string): boolean {
  return existsSync(join(prefixDir, 'drive_c', 'windows', 'syswow64', 'ntdll.dll'));
}

/**
 * The program's headers when this prefix can run it; otherwise a DebuggerError naming why and
 * what to do: not a PE image or a DLL (invalid_argument), a 32-bit program where Wine has no
 * 32-bit support or a machine Wine on x86_64 cannot run (backend_unavailable).
 */
export function checkProgram(path: string, prefixDir: string): PeHeader {
  const header = readPeHeader(path);
  if (header.isDll) {
    throw new DebuggerError('invalid_argument', `${path} is a DLL, not a program: start the .exe that loads it`, {
      path,
    });
  }
  if (header.machine === 'x86_64') return header;
  if (header.machine === 'i386') {
    if (prefixRuns32Bit(prefixDir)) return header;
    throw new DebuggerError(
      'backend_unavailable',
      `${path} is a 32-bit (i386) program and this Wine cannot run it: ${WINE32_FIX}`,
      {
        path,
        machine: 'i386',
      },
    );
  }
  throw new DebuggerError(
    'backend_unavailable',
    `${path} is built for ${header.machine === 'unknown' ? `machine 0x${header.machineCode.toString(16)}` : header.machine}; Wine on this x86_64 host runs x86_64 (and, with wine32, i386) programs only`,
    { path, machine: header.machine },
  );
}
