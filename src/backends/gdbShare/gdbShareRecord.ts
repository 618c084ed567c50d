// The registry file of one GDB share (`dbg-mcp share`): what the share process writes beside its
// socket, and what dbg_sessions reads back. One file per share, <dir>/gdb-<share pid>.json, owner
// only, rewritten whole (atomically) whenever the program's state changes.

import { existsSync, readdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import type { ShareAccess, ShareEntry, ShareListing } from '../debuggerBackend.js';
import { commandLine, directoryDistrust, processAlive, readTrustedJson } from '../shares/shareFiles.js';

export const SHARE_FORMAT = 'dbg-mcp-share/1';

export type GdbShareState = 'waiting' | 'stopped' | 'running' | 'exited' | 'none';

export interface GdbShareRecord {
  format: typeof SHARE_FORMAT;
  debugger: 'gdb';
  /** The share process: it holds the pty, the socket and this file. */
  sharePid: number;
  /** The terminal the person hands to gdb (`new-ui mi3 <tty>`). */
  tty: string;
  socket: string;
  access: ShareAccess;
  /** Set once the person typed the new-ui line and gdb opened the terminal. */
  gdbPid?: number;
  program?: string;
  pid?: number;
  state: GdbShareState;
  joined: boolean;
  startedAt: string;
}

export function recordPath(dir: string, sharePid: number): string {
  return join(dir, `gdb-${sharePid}.json`);
}

export function socketPath(dir: string, sharePid: number): string {
  return join(dir, `gdb-${sharePid}.sock`);
}

const STATES: readonly GdbShareState[] = ['waiting', 'stopped', 'running', 'exited', 'none'];

/** The record in a parsed file, or why it is not one. */
export function narrowRecord(value: unknown): GdbShareRecord | string {
  if (typeof value !== 'object' || value === null) return 'is not a JSON object';
  const r = value as Record<string, unknown>;
  if (r['format'] !== SHARE_FORMAT || r['debugger'] !== 'gdb') return `is not a ${SHARE_FORMAT} gdb share`;
  const num = (k: string): boolean => r[k] === undefined || (typeof r[k] === 'number' && Number.isInteger(r[k]));
  const str = (k: string): boolean => r[k] === undefined || typeof r[k] === 'string';
  if (typeof r['sharePid'] !== 'number' || !Number.isInteger(r['sharePid'])) return 'has no share pid';
  if (typeof r['socket'] !== 'string' || typeof r['tty'] !== 'string') return 'has no socket or terminal';
  if (r['access'] !== 'read' && r['access'] !== 'control') return 'says neither read nor control';
  if (!STATES.includes(r['state'] as GdbShareState)) return 'has an unknown state';
  if (!num('gdbPid') || !num('pid') || !str('program') || typeof r['joined'] !== 'boolean') return 'has bad fields';
  return value as GdbShareRecord;
}

/** Whether the share process of a record still runs (a pid reused by another program does not count). */
export function shareAlive(record: GdbShareRecord): boolean {
  if (!processAlive(record.sharePid)) return false;
  const argv = commandLine(record.sharePid);
  return argv.includes('share') && argv.includes('--hold');
}

export function shareEntry(record: GdbShareRecord, file: string): ShareEntry {
  return {
    id: `gdb-${record.sharePid}`,
    debugger: 'gdb',
    access: record.access,
    address: record.socket,
    owner: userInfo().username,
    state: record.state,
    joined: record.joined,
    file,
    ...(record.gdbPid !== undefined ? { debuggerPid: record.gdbPid } : {}),
    ...(record.program !== undefined ? { program: record.program } : {}),
    ...(record.pid !== undefined ? { pid: record.pid } : {}),
  };
}

/** The GDB shares registered in `dir`, and the files passed over with why. */
export function readGdbShares(dir: string): ShareListing {
  const listing: ShareListing = { shares: [], ignored: [] };
  if (!existsSync(dir)) return listing;
  const distrust = directoryDistrust(dir, true);
  if (distrust) {
    listing.ignored.push({ file: dir, why: `the share directory ${distrust}` });
    return listing;
  }
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^gdb-\d+\.json$/.test(n));
  } catch (e) {
    listing.ignored.push({ file: dir, why: `cannot be listed (${(e as Error).message})` });
    return listing;
  }
  for (const name of names.sort()) {
    const file = join(dir, name);
    let parsed: unknown;
    try {
      parsed = readTrustedJson(file);
    } catch (e) {
      listing.ignored.push({ file, why: (e as Error).message });
      continue;
    }
    const record = narrowRecord(parsed);
    if (typeof record === 'string') {
      listing.ignored.push({ file, why: record });
      continue;
    }
    if (!shareAlive(record)) {
      listing.ignored.push({ file, why: `stale: its share process ${record.sharePid} is gone`, stale: true });
      continue;
    }
    listing.shares.push(shareEntry(record, file));
  }
  return listing;
}
