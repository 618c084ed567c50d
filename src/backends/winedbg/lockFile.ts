// A lock file naming its owner by pid and start time, for what two dbg-mcp servers (or two
// sessions of one) must not do at once: lease a Wine prefix, create one. Node has no flock(), and
// a lock must survive its owner being SIGKILLed, so the file is created with O_EXCL and a lock
// whose owner is gone (or whose pid now names another process) is stale and may be broken.
//
// Breaking is a rename, not an unlink: rename takes whatever file is there at that instant, so
// two processes breaking the same stale lock cannot delete a fresh one by mistake; a breaker that
// finds it took a live owner's file puts it back with link(), which fails rather than overwrite.

import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { identify, readStat } from '../../process/processTree.js';
import { sleep } from '../../util/deadline.js';
import { DebuggerError } from '../../util/errors.js';

export interface LockOwner {
  pid: number;
  startTime: string;
}

function ownerOf(text: string): LockOwner | undefined {
  const m = /^(\d+) (\S+)\n?$/.exec(text);
  if (!m) return undefined;
  return { pid: Number(m[1]), startTime: m[2] as string };
}

/** The lock's owner as written in the file, or undefined when there is no readable lock. */
export function lockOwner(path: string): LockOwner | undefined {
  try {
    return ownerOf(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** True while the owner runs: same pid, same start time (a reused pid is another process). */
export function ownerAlive(owner: LockOwner): boolean {
  const stat = readStat(owner.pid);
  return stat !== undefined && stat.state !== 'Z' && stat.startTime === owner.startTime;
}

/** Past this, a lock file still without its owner line was left by a writer that died. */
const OWNERLESS_GRACE_MS = 5000;

function ownerlessAndOld(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > OWNERLESS_GRACE_MS;
  } catch {
    return false;
  }
}

function me(): LockOwner {
  return { pid: process.pid, startTime: identify(process.pid).startTime ?? '?' };
}

export interface LockResult {
  acquired: boolean;
  /** The lock was taken over from an owner that had died: what it guarded may be half done. */
  brokeStale: boolean;
  /** Who holds it when not acquired. */
  holder?: LockOwner;
}

/** One attempt: creates the lock, or breaks a stale one and creates it. Never waits. */
export function tryLock(path: string): LockResult {
  const self = me();
  let brokeStale = false;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, `${self.pid} ${self.startTime}\n`);
      } finally {
        closeSync(fd);
      }
      return { acquired: true, brokeStale };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = lockOwner(path);
    // Not re-entrant: another part of this same process holding it makes us wait like anyone.
    // A file with no owner line is being written this very moment, or its writer died between
    // create and write: held while young, stale once older than a writer could take.
    if (holder === undefined ? !ownerlessAndOld(path) : ownerAlive(holder))
      return { acquired: false, brokeStale, holder };
    const aside = `${path}.stale-${self.pid}-${attempt}`;
    try {
      renameSync(path, aside);
    } catch {
      continue; // someone else moved it first
    }
    const taken = lockOwner(aside);
    if (taken ? ownerAlive(taken) : !ownerlessAndOld(aside)) {
      // We moved a fresh lock that replaced the stale one in between: give it back.
      try {
        linkSync(aside, path);
      } catch {
        // its place is taken again; the owner finds out when it unlocks
      }
      unlinkSync(aside);
      return { acquired: false, brokeStale, holder: taken };
    }
    unlinkSync(aside);
    brokeStale = true;
  }
  return { acquired: false, brokeStale, holder: lockOwner(path) };
}

export interface LockWaitOptions {
  /** Give up after this long (default 10 minutes: a cold Wine prefix takes 10-60 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Milliseconds between attempts. */
  pollMs?: number;
}

/** Waits until the lock is ours. Rejects with `timeout` at the deadline or when aborted. */
export async function lock(path: string, options: LockWaitOptions = {}): Promise<LockResult> {
  const deadline = Date.now() + (options.timeoutMs ?? 600_000);
  for (;;) {
    const result = tryLock(path);
    if (result.acquired) return result;
    if (options.signal?.aborted) throw new DebuggerError('timeout', `gave up waiting for ${path}`);
    if (Date.now() > deadline) {
      const who = result.holder ? ` (held by pid ${result.holder.pid})` : '';
      throw new DebuggerError('timeout', `waited ${options.timeoutMs ?? 600_000} ms for ${path}${who}`);
    }
    await sleep(options.pollMs ?? 50);
  }
}

/** Removes the lock if this process holds it; a lock held by another is left alone. */
export function unlock(path: string): void {
  const holder = lockOwner(path);
  const self = me();
  if (holder?.pid !== self.pid || holder.startTime !== self.startTime) return;
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}
