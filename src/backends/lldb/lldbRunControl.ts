// Running the program through lldb-dap: start (from the entry stop opening left it at, or a
// restart of the same launch), continue and the steps (a count of them reported as one stop),
// finish, until/advance/jump through LLDB's own breakpoints and commands, interrupt, kill.

import type { DebugProtocol } from '@vscode/debugprotocol';
import type { StopEvent } from '../../model/model.js';
import { DebuggerError } from '../../util/errors.js';
import type { Location, ResumeAction, ResumeOptions, StartMode } from '../debuggerBackend.js';
import type { LldbContext, PendingRun } from './lldbContext.js';
import { addressOf } from './lldbMemory.js';
import { parseBreakpointSet } from './lldbNarrow.js';
import { assertOneLine } from './lldbValues.js';

/** Resolves with the next entry stop, which the event handler hands over instead of reporting it. */
export function awaitEntry(g: LldbContext, timeoutMs: number): Promise<DebugProtocol.StoppedEvent['body']> {
  g.state.stopReported = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (g.state.pending.kind === 'entry') g.state.pending = { kind: 'none' };
      reject(new DebuggerError('timeout', `the program did not reach its first instruction within ${timeoutMs} ms`));
    }, timeoutMs);
    timer.unref();
    g.state.pending = {
      kind: 'entry',
      resolve: (body) => {
        clearTimeout(timer);
        resolve(body);
      },
    };
  });
}

/** The program runs (a new epoch): announced before the request, so it precedes the stop it causes. */
function running(g: LldbContext, pending: PendingRun): void {
  g.state.pending = pending;
  g.state.stopReported = false;
  g.state.frames.clear();
  g.state.selectedFrame = undefined;
  g.emit({ type: 'running', threadId: 'all' });
}

/**
 * A resume lldb-dap refused: the program did not move, so the stop it was at is reported again
 * (a new stop id, the same place), rather than leaving the session waiting for a stop that never comes.
 */
function refused(g: LldbContext, e: unknown): never {
  g.state.pending = { kind: 'none' };
  const last = g.state.lastStop;
  if (last) g.emit({ type: 'stopped', stop: { ...last } });
  throw e;
}

function threadOf(g: LldbContext, threadId: number | undefined): number {
  const thread = threadId ?? g.state.stopThread ?? g.state.pid;
  if (thread === undefined) throw new DebuggerError('wrong_state', 'no thread to run');
  return thread;
}

export async function start(g: LldbContext, mode: StartMode, signal?: AbortSignal): Promise<void> {
  if (!g.state.live) await g.relaunch(signal);
  const thread = threadOf(g, undefined);
  if (mode === 'entry') {
    // Opening stopped the program at its first instruction already: report that stop now.
    running(g, { kind: 'none' });
    const [top] = await g.frames(thread, 0, 0, signal).catch(() => []);
    const stop: StopEvent = { reason: 'unknown', rawReason: 'entry', threadId: thread, stoppedThreads: 'all' };
    if (top) stop.frame = top.frame;
    g.emit({ type: 'stopped', stop });
    return;
  }
  if (mode === 'main') {
    const set = await internalBreakpoint(g, '--name main', undefined, signal);
    if (set.pending) {
      await g.clearInternalBreakpoints();
      throw new DebuggerError('debugger_error', 'the program has no main function to stop at', undefined, {
        reason: 'no-main',
      });
    }
  }
  running(g, mode === 'main' ? { kind: 'to-location' } : { kind: 'continue' });
  await g.request('continue', { threadId: thread }, { signal }).catch((e: unknown) => refused(g, e));
}

/** A breakpoint of the backend's own (LLDB deletes it at its stop; the others go then too). */
async function internalBreakpoint(
  g: LldbContext,
  where: string,
  threadId: number | undefined,
  signal?: AbortSignal,
): Promise<{ number: string; pending: boolean }> {
  const thread = threadId === undefined ? '' : ` --thread-id ${threadId}`;
  const said = await g.repl(`breakpoint set --one-shot true${thread} ${where}`, undefined, { signal });
  const set = parseBreakpointSet(said);
  if (!set) throw new DebuggerError('debugger_error', said.trim().replace(/^error: /, '') || 'no breakpoint was set');
  g.internalBreakpoints.add(set.number);
  return set;
}

/** LLDB's `breakpoint set` options for a location (names and files quoted for its command line). */
async function whereOf(g: LldbContext, location: Location, signal?: AbortSignal): Promise<string> {
  const quoted = (text: string, field: string): string => {
    assertOneLine(text, field);
    if (/["\\`]/.test(text)) {
      throw new DebuggerError('invalid_argument', `${field}: cannot contain quotes, backslashes or backticks`, {
        fields: [field],
      });
    }
    return `"${text}"`;
  };
  if ('file' in location) return `--file ${quoted(location.file, 'location')} --line ${location.line}`;
  if ('function' in location) return `--name ${quoted(location.function, 'location')}`;
  if ('address' in location) return `--address 0x${(await addressOf(g, location.address, {}, signal)).toString(16)}`;
  const spec = location.spec.trim();
  const line = /^([^\s:*][^:]*):(\d{1,9})$/.exec(spec);
  if (line?.[1] && line[2]) return `--file ${quoted(line[1], 'location')} --line ${line[2]}`;
  if (spec.startsWith('*')) return `--address 0x${(await addressOf(g, spec.slice(1), {}, signal)).toString(16)}`;
  return `--name ${quoted(spec, 'location')}`;
}

/** The next of several counted steps, after the event handler swallowed the stop of the one before. */
export function continueStep(g: LldbContext, pending: Extract<PendingRun, { kind: 'step' }>): void {
  g.state.pending = pending;
  g.state.stopReported = false;
  stepRequest(g, pending.action, pending.threadId).catch(() => {
    // lldb-dap refused to step on: report where the program is, as the end of the steps.
    g.state.pending = { kind: 'none' };
    const stop: StopEvent = { reason: 'end-stepping-range', threadId: pending.threadId, stoppedThreads: 'all' };
    g.emit(
      g
        .frames(pending.threadId, 0, 0)
        .then(([top]) => ({ type: 'stopped' as const, stop: top ? { ...stop, frame: top.frame } : stop }))
        .catch(() => ({ type: 'stopped' as const, stop })),
    );
  });
}

async function stepRequest(
  g: LldbContext,
  action: 'next' | 'step' | 'stepi' | 'nexti',
  threadId: number,
  signal?: AbortSignal,
): Promise<void> {
  const granularity = action === 'stepi' || action === 'nexti' ? { granularity: 'instruction' as const } : {};
  if (action === 'next' || action === 'nexti') await g.request('next', { threadId, ...granularity }, { signal });
  else await g.request('stepIn', { threadId, ...granularity }, { signal });
}

export async function resume(
  g: LldbContext,
  action: ResumeAction,
  options: ResumeOptions,
  signal?: AbortSignal,
): Promise<void> {
  if (options.reverse) {
    throw new DebuggerError('backend_unavailable', 'the lldb backend cannot run backwards (the gdb backend can)');
  }
  const thread = threadOf(g, options.threadId);
  switch (action) {
    case 'continue':
      running(g, { kind: 'continue' });
      await g.request('continue', { threadId: thread }, { signal }).catch((e: unknown) => refused(g, e));
      return;
    case 'next':
    case 'step':
    case 'stepi':
    case 'nexti': {
      const remaining = Math.max(1, options.count ?? 1);
      running(g, { kind: 'step', action, remaining, threadId: thread });
      await stepRequest(g, action, thread, signal).catch((e: unknown) => refused(g, e));
      return;
    }
    case 'finish':
      running(g, { kind: 'finish' });
      await g.request('stepOut', { threadId: thread }, { signal }).catch((e: unknown) => refused(g, e));
      return;
    case 'until':
    case 'advance': {
      if (!options.location) {
        if (action === 'advance') throw new DebuggerError('invalid_argument', 'advance needs a location');
        // GDB's `until` without a location is `next` that does not go back into a loop; LLDB's
        // nearest is `next`, which may stop at the loop's head.
        running(g, { kind: 'step', action: 'next', remaining: 1, threadId: thread });
        await stepRequest(g, 'next', thread, signal).catch((e: unknown) => refused(g, e));
        return;
      }
      // To the location, or back in the caller when the current function returns first (GDB's rule).
      await internalBreakpoint(g, await whereOf(g, options.location, signal), undefined, signal);
      const [caller] = await g.frames(thread, 1, 1, signal).catch(() => []);
      if (caller?.frame.address) await internalBreakpoint(g, `--address ${caller.frame.address}`, thread, signal);
      running(g, { kind: 'to-location' });
      await g.request('continue', { threadId: thread }, { signal }).catch((e: unknown) => refused(g, e));
      return;
    }
    case 'jump': {
      if (!options.location) throw new DebuggerError('invalid_argument', 'jump needs a location');
      // `thread jump` takes --file/--line or --address, as `breakpoint set` does, but no --name.
      const loc = options.location;
      const name =
        'function' in loc
          ? loc.function
          : 'spec' in loc && !/:\d+$/.test(loc.spec.trim()) && !loc.spec.trim().startsWith('*')
            ? loc.spec.trim()
            : undefined;
      const where =
        name === undefined
          ? await whereOf(g, loc, signal)
          : `--address 0x${(await addressOf(g, `&${name}`, { threadId: thread }, signal)).toString(16)}`;
      const said = await g.repl(`thread jump ${where}`, { threadId: thread }, { signal });
      if (/^error: /m.test(said)) throw new DebuggerError('debugger_error', said.trim().replace(/^error: /, ''));
      running(g, { kind: 'continue' });
      await g.request('continue', { threadId: thread }, { signal }).catch((e: unknown) => refused(g, e));
      return;
    }
  }
}

export async function interrupt(g: LldbContext): Promise<void> {
  g.state.pending = { kind: 'pause' };
  await g.request('pause', { threadId: threadOf(g, undefined) }, { timeoutMs: 5000 });
}

/**
 * When the pause brought no stop: SIGSTOP to the program, which nothing can block or ignore;
 * LLDB reports it as a stop. No harder way after that.
 */
export function forceInterrupt(g: LldbContext, step: number): string | undefined {
  const pid = g.state.pid;
  if (step !== 1 || pid === undefined || !g.state.live || g.state.target === 'remote') return undefined;
  try {
    process.kill(pid, 'SIGSTOP');
    return `sent SIGSTOP to pid ${pid}`;
  } catch {
    return undefined;
  }
}

export async function kill(g: LldbContext, signal?: AbortSignal): Promise<void> {
  // Its exit event is ours: the session reports the program as killed.
  g.state.killing = true;
  try {
    const said = await g.repl('process kill', undefined, { signal });
    if (/^error: /m.test(said) && g.state.live) throw new DebuggerError('debugger_error', said.trim());
  } catch (e) {
    g.state.killing = false;
    throw e;
  }
  g.state.live = false;
}
