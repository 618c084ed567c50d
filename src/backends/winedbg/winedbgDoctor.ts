// The winedbg backend's doctor lines, from wineFacts(): Wine and winedbg, the launcher's compiler
// (or the launcher already built), 32-bit support, and the prefix: where, how big, ours or the
// caller's. The doctor opens no prefix: it reports the one a session opened, else the first slot
// of the cache as it lies on disk.

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DoctorCheck, DoctorOptions } from '../debuggerBackend.js';
import { prefixRuns32Bit } from './programCheck.js';
import { wineFacts } from './wineDoctor.js';
import { diskUsage } from './winePrefix.js';
import type { WineServices } from './wineServices.js';

function megabytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

export async function winedbgDoctor(_options: DoctorOptions, services: WineServices): Promise<DoctorCheck[]> {
  const facts = await wineFacts(services.openedPrefix);
  const checks: DoctorCheck[] = [];
  if ('missing' in facts.wine) {
    checks.push({
      name: 'winedbg',
      ok: false,
      detail: `Windows programs need Wine: ${facts.wine.missing.join(', ')} not found`,
      fix: 'apt-get install -y --no-install-recommends wine wine64 gcc-mingw-w64-x86-64-win32',
    });
    return checks;
  }
  checks.push({
    name: 'winedbg',
    ok: true,
    detail: `${facts.wine.version}: Windows programs through winedbg --gdb and gdb (no reverse execution, no inferior calls)`,
  });
  const cache = services.cacheDir;
  const built = existsSync(cache) && readdirSync(cache).some((f) => /^dbgmcp-launch-[0-9a-f]+\.exe$/.test(f));
  checks.push(
    facts.mingw || built
      ? {
          name: 'winedbg launcher',
          ok: true,
          detail: built
            ? `built in ${cache}: a program's output reaches dbg_io, its input comes from dbg_io`
            : `${facts.mingw} builds it at the first session (once, about 1 s)`,
        }
      : {
          name: 'winedbg launcher',
          ok: false,
          detail:
            "the launcher that keeps a Windows program's output on its terminal is built with mingw, which is missing: sessions are refused",
          fix: 'apt-get install -y --no-install-recommends gcc-mingw-w64-x86-64-win32',
        },
  );
  const prefix = facts.prefix ?? {
    path: join(cache, 'wine-prefix'),
    owned: true,
    exists: existsSync(join(cache, 'wine-prefix', '.dbg-mcp-ready')),
    sizeBytes: 0,
  };
  if (facts.prefix === undefined && prefix.exists) prefix.sizeBytes = diskUsage(prefix.path);
  checks.push({
    name: 'wine prefix',
    ok: true,
    detail: prefix.exists
      ? `${prefix.path} (${prefix.owned ? 'ours' : "the caller's"}, ${megabytes(prefix.sizeBytes)})`
      : `${prefix.path}: made at the first winedbg session (10-60 s, about 700 MB, once per machine)`,
  });
  const thirtyTwo = facts.thirtyTwoBit ?? (prefix.exists ? prefixRuns32Bit(prefix.path) : undefined);
  checks.push(
    thirtyTwo === true
      ? { name: 'wine32', ok: true, detail: '32-bit .exe files run' }
      : {
          name: 'wine32',
          ok: false,
          detail:
            thirtyTwo === false
              ? 'this Wine has no 32-bit support: 32-bit .exe files are refused (64-bit ones run)'
              : 'not known until the prefix exists; without wine32, 32-bit .exe files are refused',
          fix: 'dpkg --add-architecture i386 && apt-get update && apt-get install wine32:i386',
        },
  );
  return checks;
}
