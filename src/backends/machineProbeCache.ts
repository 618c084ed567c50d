// The machine probe's verdicts, kept on disk for the rest of the boot. Whether this machine's
// hardware watchpoints fire does not change while it runs, and every server (every test of the
// suite starts its own) would otherwise spend a gdb and a program on the same question
// (300-500 ms of CPU measured on a loaded 2-core VM). The answer is reused only for the same
// boot, kernel and gdb binary; an 'unknown' verdict is never kept.

import { mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir, release } from 'node:os';
import { dirname, join } from 'node:path';
import { findOnPath } from '../util/which.js';
import type { MachineProbe } from './gdb/gdbHardwareProbe.js';

/** What the verdicts depend on: this boot, this kernel, this gdb binary. */
export interface ProbeCacheKey {
  bootId: string;
  kernel: string;
  gdb: string;
  gdbSize: number;
  gdbMtimeMs: number;
}

/** 2: the verdicts include process record's (`record`); 3: its reason's final words. */
const VERSION = 3;

/** $XDG_CACHE_HOME/dbg-mcp/machine-probe.json, or ~/.cache/… */
export function defaultProbeCacheFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'dbg-mcp', 'machine-probe.json');
}

/** The key for `gdbPath` (a name looked up on `path`), or undefined when gdb or the boot id is not found. */
export function probeCacheKey(gdbPath: string, path?: string): ProbeCacheKey | undefined {
  try {
    const found = gdbPath.includes('/') ? gdbPath : findOnPath([gdbPath], path);
    if (!found) return undefined;
    const gdb = realpathSync(found);
    const stat = statSync(gdb);
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return { bootId, kernel: release(), gdb, gdbSize: stat.size, gdbMtimeMs: stat.mtimeMs };
  } catch {
    return undefined;
  }
}

function sameKey(a: ProbeCacheKey, b: unknown): boolean {
  if (!b || typeof b !== 'object') return false;
  const o = b as Record<string, unknown>;
  return (
    o['bootId'] === a.bootId &&
    o['kernel'] === a.kernel &&
    o['gdb'] === a.gdb &&
    o['gdbSize'] === a.gdbSize &&
    o['gdbMtimeMs'] === a.gdbMtimeMs
  );
}

/** The kept verdicts for `key`, or undefined (none, another boot or gdb, unreadable). */
export function readCachedProbe(key: ProbeCacheKey, file = defaultProbeCacheFile()): MachineProbe | undefined {
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { version?: number; key?: unknown; probe?: MachineProbe };
    if (
      kept.version !== VERSION ||
      !sameKey(key, kept.key) ||
      !kept.probe?.hardware ||
      !kept.probe.calls ||
      !kept.probe.record
    ) {
      return undefined;
    }
    return kept.probe;
  } catch {
    return undefined;
  }
}

/** Keeps `probe` for `key` when it reached verdicts; a failure to write only costs the next server a probe. */
export function writeCachedProbe(key: ProbeCacheKey, probe: MachineProbe, file = defaultProbeCacheFile()): boolean {
  if (
    probe.hardware.watchpoints === 'unknown' ||
    probe.hardware.breakpoints === 'unknown' ||
    probe.record.reverse === 'unknown'
  ) {
    return false;
  }
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // Written aside and renamed: a server reading it meanwhile sees the old file or the new one.
    const aside = `${file}.${process.pid}.tmp`;
    writeFileSync(aside, `${JSON.stringify({ version: VERSION, key, probe })}\n`, { mode: 0o600 });
    renameSync(aside, file);
    return true;
  } catch {
    return false;
  }
}
