// Child processes in a process group of their own, so one signal reaches the debugger and
// everything it started, and so a terminal's ^C aimed at the server never reaches them.

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { sleep } from '../util/deadline.js';
import { sealedStdio } from './sealedStdio.js';

export interface SpawnOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
}

export function spawnInGroup(
  file: string,
  args: readonly string[],
  options: SpawnOptions,
): ChildProcessWithoutNullStreams {
  return spawn(file, args, {
    env: options.env,
    cwd: options.cwd,
    detached: true, // setsid(): its own session and process group
    // Nothing of ours but its pipes: no other session's pty (sealedStdio.ts).
    stdio: sealedStdio(['pipe', 'pipe', 'pipe']),
  }) as ChildProcessWithoutNullStreams;
}

/** Send a signal to a whole process group; false when the group is already gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Resolves true when the child has exited (its 'exit' event fired), false at the deadline. */
export function waitForExit(child: ChildProcessWithoutNullStreams, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(false);
    }, ms);
    timer.unref();
    const onExit = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once('exit', onExit);
  });
}

/**
 * The end of a debugger process: the caller has already asked it to quit politely; here the
 * group gets SIGTERM after `termAfterMs`, SIGKILL after `killAfterMs`, and the group is swept
 * with SIGKILL at the end in case the leader left children behind.
 */
export async function stopGroup(
  child: ChildProcessWithoutNullStreams,
  { termAfterMs = 1000, killAfterMs = 1000 }: { termAfterMs?: number; killAfterMs?: number } = {},
): Promise<void> {
  const pgid = child.pid;
  if (pgid === undefined) return;
  if (!(await waitForExit(child, termAfterMs))) {
    signalGroup(pgid, 'SIGTERM');
    if (!(await waitForExit(child, killAfterMs))) {
      signalGroup(pgid, 'SIGKILL');
      await waitForExit(child, 1000);
    }
  }
  // The leader is gone; anything left in its group (a program it started) goes too.
  if (groupAlive(pgid)) {
    signalGroup(pgid, 'SIGKILL');
    for (let i = 0; i < 20 && groupAlive(pgid); i++) await sleep(10);
  }
}
