// The threads view: every thread with a short stack, what each waits for, who holds the mutex a
// blocked thread wants, and — when the waits close a circle — the deadlock said plainly.

import type { Frame, Thread } from '../../model/model.js';
import { LIMITS } from '../limits.js';
import { boundFrameArgs, boundVariables, foldFrames, shownLevels, userFrameTest } from './stackEntries.js';
import { attempt, type ViewContext } from './viewContext.js';
import type { ThreadEntry, ThreadsViewData, ViewRequest } from './viewTypes.js';

interface LockWait {
  mutex: string;
  ownerOsThread: number;
}

/**
 * Frames read per stopped thread, so that its stack reaches the thread's own start function (or
 * main): a thread blocked in a lock or in printf is 4-9 runtime frames deep before its own code,
 * and the function it was started with is what tells two threads apart.
 */
const THREAD_FRAMES = 32;

/** The program's own functions on a stack, outermost first: "pay_rent → move_funds". */
export function userCallChain(frames: readonly Frame[], isUser: (f: Frame) => boolean): string | undefined {
  const names: string[] = [];
  for (const f of frames) {
    if (!isUser(f) || f.function === undefined) continue;
    if (names[0] !== f.function) names.unshift(f.function);
  }
  return names.length > 0 ? names.join(' → ') : undefined;
}

export async function threadsView(ctx: ViewContext, req: ViewRequest): Promise<ThreadsViewData | undefined> {
  const listed = await attempt(ctx, 'threads', () => ctx.backend.threads(ctx.signal));
  if (!listed) return undefined;
  const runtime = ctx.backend.runtime;
  const isUser = userFrameTest(ctx);
  const from = req.from ?? 0;
  const page = listed.threads.slice(from, from + LIMITS.threadsPageDefault);
  const depth = Math.min(req.stackDepth ?? LIMITS.threadStackDefault, LIMITS.stackDepthMax);
  const threads: ThreadEntry[] = [];
  const waits = new Map<string, number[]>();
  const lockWaits = new Map<number, LockWait>();
  const chains = new Map<number, string>();
  const several = ctx.snapshot.inferiors.size > 1;
  // A blocked thread's own code is what explains it, and its start function is what tells it
  // from the others: its stack shows down to its outermost own frame (main, or the function the
  // thread was started with), even past the page of frames asked for; runtime runs and recursion fold.
  const inView = (frames: readonly Frame[]): Frame[] =>
    frames.slice(0, Math.max(depth, frames.findLastIndex(isUser) + 1));
  // Arguments for the frames shown and those the runtime reads (the mutex a lock call waits for);
  // a runtime that does not say which it reads gets them all.
  const argsWanted = (frames: readonly Frame[]): Iterable<number> =>
    runtime.argsRead
      ? [...shownLevels(inView(frames), isUser), ...runtime.argsRead(frames)]
      : frames.map((f) => f.level);
  for (const t of page) {
    const entry: ThreadEntry = { ...t };
    const pid = several ? ctx.snapshot.inferiors.get(ctx.snapshot.threads.get(t.id) ?? t.group ?? '') : undefined;
    if (pid !== undefined) entry.pid = pid;
    if (t.state === 'stopped') {
      const frames = await attempt(ctx, `stack of thread ${t.id}`, () =>
        ctx.backend.stack(
          { threadId: t.id, from: 0, to: Math.max(depth, THREAD_FRAMES) - 1, withArgs: argsWanted },
          ctx.signal,
        ),
      );
      if (frames) {
        const waiting = runtime.classifyWait(frames);
        if (waiting) {
          entry.waiting = waiting;
          waits.set(waiting, [...(waits.get(waiting) ?? []), t.id]);
        }
        if (waiting === 'mutex') {
          const lock = await runtime.lockOwner(ctx.backend, t.id, frames, ctx.signal);
          if (lock) lockWaits.set(t.id, lock);
        }
        entry.stack = foldFrames(boundFrameArgs(inView(frames)), isUser);
        const chain = userCallChain(frames, isUser);
        if (chain) chains.set(t.id, chain);
        delete entry.frame;
        if (req.includeLocals) {
          const user = frames.find(isUser);
          if (user) {
            const vars = await attempt(ctx, `locals of thread ${t.id}`, () =>
              ctx.backend.variables('locals', { threadId: t.id, frame: user.level }, {}, ctx.signal),
            );
            if (vars) {
              entry.locals = {
                level: user.level,
                ...(user.function ? { function: user.function } : {}),
                ...boundVariables(vars),
              };
            }
          }
        }
      }
    }
    threads.push(entry);
  }
  let hint: string | undefined;
  const lockers = [...(waits.get('mutex') ?? []), ...(waits.get('rwlock') ?? [])];
  const owners = describeLockOwners(threads, lockWaits, listed.threads, chains);
  const writers = waits.get('io (write)') ?? [];
  if (owners.cycle) {
    hint = owners.cycle;
  } else if (lockers.length >= 2) {
    hint = `threads ${lockers.join(', ')} all wait on locks: a likely deadlock (compare which lock each holds and wants)`;
  } else if (writers.length > 0) {
    hint = `${writers.length === 1 ? 'thread' : 'threads'} ${writers.map((id) => `${id}${chains.has(id) ? ` (${chains.get(id)})` : ''}`).join(', ')} ${writers.length === 1 ? 'is' : 'are'} blocked writing: nobody reads the other end of the pipe, socket or terminal it writes to, and it is full`;
  } else if (page.length > 0 && waits.size === 0) {
    hint =
      'no thread is waiting on a lock or I/O: if the program hangs, it is spinning (look at the loop in the top frames)';
  }
  return {
    view: 'threads',
    ...(listed.currentThreadId !== undefined ? { currentThreadId: listed.currentThreadId } : {}),
    threads,
    total: listed.threads.length,
    more: listed.threads.length > from + page.length,
    ...(hint ? { hint } : {}),
  };
}

/**
 * Names who holds each awaited mutex on the waiting thread's entry, and, when the waits close a
 * circle (thread 2 waits for 3, which waits for 2), says so plainly: a deadlock.
 */
export function describeLockOwners(
  entries: ThreadEntry[],
  lockWaits: ReadonlyMap<number, LockWait>,
  all: readonly Thread[],
  chains: ReadonlyMap<number, string> = new Map(),
): { cycle?: string } {
  const byOsThread = new Map<number, number>();
  for (const t of all) {
    if (t.osThreadId !== undefined) byOsThread.set(t.osThreadId, t.id);
  }
  const waitsFor = new Map<number, number>();
  for (const e of entries) {
    const lock = lockWaits.get(e.id);
    if (!lock) continue;
    const owner = byOsThread.get(lock.ownerOsThread);
    e.waiting = `mutex ${lock.mutex}, held by ${owner !== undefined ? `thread ${owner}` : `LWP ${lock.ownerOsThread}`}`;
    if (owner !== undefined) waitsFor.set(e.id, owner);
  }
  for (const start of waitsFor.keys()) {
    const path: number[] = [start];
    let next = waitsFor.get(start);
    while (next !== undefined && !path.includes(next)) {
      path.push(next);
      next = waitsFor.get(next);
    }
    if (next === start && path.length >= 2) {
      // The thread's own call chain (its start function first) tells threads in the same function apart.
      const links = path.map(
        (id) =>
          `thread ${id}${chains.has(id) ? ` (${chains.get(id)})` : ''} waits for thread ${waitsFor.get(id)} (mutex ${lockWaits.get(id)?.mutex})`,
      );
      return { cycle: `deadlock: ${links.join(', ')}. Each holds the lock the next one wants: take them in one order` };
    }
  }
  return {};
}
