// The lock file on real processes: a live owner holds it, a dead one (or a pid reused by another
// process) does not, a waiter gets it when the holder lets go, and a lock is never removed by a
// process that does not hold it.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lock, lockOwner, ownerAlive, tryLock, unlock } from '../../../src/backends/winedbg/lockFile.js';
import { identify } from '../../../src/process/processTree.js';
import { until } from '../../helpers/procfs.js';

let dir = '';
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lock-'));
});
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** A process that sleeps: a lock owner we can kill. */
function sleeper(): ChildProcess {
  const c = spawn('sleep', ['60'], { stdio: 'ignore' });
  children.push(c);
  return c;
}

function writeOwner(path: string, pid: number, startTime: string): void {
  writeFileSync(path, `${pid} ${startTime}\n`);
}

describe('lock files', () => {
  it('the first taker holds it, with its pid and start time; unlock removes it', () => {
    const path = join(dir, 'a.lock');
    expect(tryLock(path)).toEqual({ acquired: true, brokeStale: false });
    expect(lockOwner(path)).toEqual({ pid: process.pid, startTime: identify(process.pid).startTime });
    unlock(path);
    expect(existsSync(path)).toBe(false);
  });

  it('a live owner keeps it: tryLock says who holds it, unlock by another leaves it', () => {
    const path = join(dir, 'b.lock');
    const owner = sleeper();
    const start = identify(owner.pid as number).startTime as string;
    writeOwner(path, owner.pid as number, start);
    expect(tryLock(path)).toEqual({ acquired: false, brokeStale: false, holder: { pid: owner.pid, startTime: start } });
    unlock(path);
    expect(lockOwner(path)?.pid).toBe(owner.pid);
  });

  it('a dead owner’s lock is stale: it is broken and taken, and nothing is left aside', async () => {
    const path = join(dir, 'c.lock');
    const owner = sleeper();
    const start = identify(owner.pid as number).startTime as string;
    writeOwner(path, owner.pid as number, start);
    owner.kill('SIGKILL');
    await until(() => !ownerAlive({ pid: owner.pid as number, startTime: start }), 'the owner to die', 5000);
    expect(tryLock(path)).toEqual({ acquired: true, brokeStale: true });
    expect(lockOwner(path)?.pid).toBe(process.pid);
    expect(readdirSync(dir)).toEqual(['c.lock']);
  });

  it('a pid that now names another process (other start time) does not hold it', () => {
    const path = join(dir, 'd.lock');
    writeOwner(path, process.pid, '1'); // our pid, but not our start time: a reused pid
    expect(tryLock(path)).toMatchObject({ acquired: true, brokeStale: true });
  });

  it('is not re-entrant: a second taker in the same process is told this process holds it', () => {
    const path = join(dir, 'h.lock');
    expect(tryLock(path).acquired).toBe(true);
    expect(tryLock(path)).toMatchObject({ acquired: false, holder: { pid: process.pid } });
  });

  it('a file with no owner line counts as held while young (being written), as stale once old (its writer died)', () => {
    const path = join(dir, 'e.lock');
    writeFileSync(path, '');
    expect(tryLock(path)).toMatchObject({ acquired: false });
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    expect(tryLock(path)).toEqual({ acquired: true, brokeStale: true });
  });

  it('lock() waits until the holder lets go, then holds it', async () => {
    const path = join(dir, 'f.lock');
    const owner = sleeper();
    writeOwner(path, owner.pid as number, identify(owner.pid as number).startTime as string);
    let got = false;
    const waiting = lock(path, { pollMs: 10 }).then((r) => {
      got = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(got).toBe(false);
    owner.kill('SIGKILL');
    expect(await waiting).toMatchObject({ acquired: true, brokeStale: true });
    expect(readFileSync(path, 'utf8')).toMatch(new RegExp(`^${process.pid} `));
  });

  it('lock() gives up at its deadline with a timeout naming the holder', async () => {
    const path = join(dir, 'g.lock');
    const owner = sleeper();
    writeOwner(path, owner.pid as number, identify(owner.pid as number).startTime as string);
    await expect(lock(path, { timeoutMs: 50, pollMs: 10 })).rejects.toMatchObject({
      code: 'timeout',
      message: expect.stringContaining(`held by pid ${owner.pid}`),
    });
  });
});
