// lldb-dap's events turned into backend events: stops (named as GDB names them, with the signal,
// its meaning and the fault address), exits, the process, modules, breakpoints, and what LLDB
// printed on its own. A stop is reported once what it needs is read and once the program's output
// up to it is in the ring.

import type { DebugProtocol } from '@vscode/debugprotocol';
import type { ExitEvent, StopEvent } from '../../model/model.js';
import { guardSession, releaseSession } from '../../process/orphanGuard.js';
import { identify } from '../../process/processTree.js';
import { log } from '../../util/log.js';
import type { BackendEvent } from '../debuggerBackend.js';
import type { LldbBreakpoints } from './lldbBreakpoints.js';
import type { LldbContext } from './lldbContext.js';
import { narrowModule, parseSiginfo, parseStopDescription, SIGNAL_NUMBERS, signalInfo } from './lldbNarrow.js';
import { continueStep } from './lldbRunControl.js';

/** An interrupt the session asked for, named as GDB names its own (the answers key on it). */
const INTERRUPT = { name: 'SIGINT', meaning: 'Interrupt' } as const;
const FAULT_SIGNALS = new Set(['SIGSEGV', 'SIGBUS', 'SIGFPE', 'SIGILL']);
/** Programs remembered for the sweep at close (a session restarted more often forgets the oldest). */
const MAX_SWEPT = 64;
/**
 * lldb-dap's own lines on the console, which say nothing about the program: its greeting, the echo
 * of the settings every adapter starts with, and how it created the target.
 */
const NOISE =
  /^(To get started with the debug console|For more information visit https:\/\/lldb\.llvm\.org|Running preInitCommands:|\(lldb\) settings set target\.load-|Executable binary set to |Attached to process \d+\.)/;

export function handleEvent(g: LldbContext, breakpoints: LldbBreakpoints, event: DebugProtocol.Event): void {
  const state = g.state;
  switch (event.event) {
    case 'stopped': {
      const body = (event.body ?? {}) as DebugProtocol.StoppedEvent['body'];
      // lldb-dap sends one `stopped` per thread that has a reason (measured: four at an attach to
      // a four-thread program, the focus thread first, the others with preserveFocusHint): one
      // stop of the process, reported once.
      if (state.stopReported) return;
      state.stopReported = true;
      state.frames.clear();
      state.selectedFrame = undefined;
      if (body.threadId !== undefined) state.stopThread = body.threadId;
      const pending = state.pending;
      if (pending.kind === 'entry') {
        // The stop at the first instruction that opening (or restarting) asked for: not the agent's.
        state.pending = { kind: 'none' };
        pending.resolve(body);
        return;
      }
      if (pending.kind === 'step' && body.reason === 'step' && pending.remaining > 1) {
        // One step of several (count): on to the next without reporting this one.
        pending.remaining--;
        continueStep(g, pending);
        return;
      }
      g.emit(afterOutput(g, describeStop(g, breakpoints, body)));
      return;
    }
    case 'continued':
      state.stopReported = false;
      state.frames.clear();
      state.selectedFrame = undefined;
      if (state.pending.kind !== 'entry') g.emit({ type: 'running', threadId: 'all' });
      return;
    case 'exited': {
      const code = (event.body as DebugProtocol.ExitedEvent['body'] | undefined)?.exitCode;
      state.live = false;
      g.emit({ type: 'inferior-exited', group: 'i1', ...(code !== undefined ? { code } : {}) });
      if (state.killing) {
        state.killing = false;
        return;
      }
      if (state.pending.kind === 'entry') return;
      g.emit(afterOutput(g, Promise.resolve({ type: 'exited', exit: exitOf(g, code) } as BackendEvent)));
      return;
    }
    case 'process': {
      const body = event.body as DebugProtocol.ProcessEvent['body'];
      const pid = body.systemProcessId;
      if (pid === undefined || state.target === 'core') return;
      state.pid = pid;
      state.live = true;
      if (state.target === 'launch') {
        // A program launched here, in its own process group: what it forks is swept at close,
        // and by the orphan guard should the server die.
        const who = identify(pid);
        state.launched.push(who);
        guardSession(who);
        if (state.launched.length > MAX_SWEPT) releaseSession(state.launched.shift()?.pid ?? 0);
      }
      g.emit({ type: 'inferior-started', group: 'i1', pid });
      return;
    }
    case 'thread': {
      const body = event.body as DebugProtocol.ThreadEvent['body'];
      if (body.reason === 'started') g.emit({ type: 'thread-created', id: body.threadId, group: 'i1' });
      else if (body.reason === 'exited') g.emit({ type: 'thread-exited', id: body.threadId, group: 'i1' });
      return;
    }
    case 'module': {
      const body = event.body as DebugProtocol.ModuleEvent['body'];
      const path = body.module.path ?? body.module.name;
      if (body.reason === 'removed') {
        state.modules.delete(String(body.module.id));
        g.emit({ type: 'library-unloaded', path });
      } else {
        state.modules.set(String(body.module.id), path);
        g.emit({ type: 'library-loaded', library: narrowModule(body.module) });
      }
      return;
    }
    case 'breakpoint': {
      const body = event.body as DebugProtocol.BreakpointEvent['body'];
      const changed = breakpoints.changed(body.breakpoint);
      if (changed) g.emit({ type: 'breakpoint-changed', breakpoint: changed });
      return;
    }
    case 'output': {
      const body = event.body as DebugProtocol.OutputEvent['body'];
      // With the program's stdio on its own terminal, nothing of its output comes this way; what
      // does is LLDB's (logpoints, warnings).
      if (body.category === 'telemetry') return;
      for (const watch of state.consoleWatchers) watch(body.output);
      const text = body.output
        .replace(/\r\n/g, '\n')
        .split(/(?<=\n)/)
        .filter((line) => !NOISE.test(line))
        .join('');
      if (text !== '') g.console.write(Buffer.from(text));
      return;
    }
    default:
      return;
  }
}

/**
 * LLDB reports a death by a signal as an exit whose status is the signal's number (SIGSEGV: 11),
 * the same as exit(11). After a stop at a fatal signal, a status equal to its number is that death.
 */
function exitOf(g: LldbContext, code: number | undefined): ExitEvent {
  const last = g.state.lastSignal;
  if (code !== undefined && last !== undefined && code === last.number && FAULT_OR_ABORT.has(last.name)) {
    return { signal: signalInfo(last.name) };
  }
  return code === undefined ? {} : { code };
}

const FAULT_OR_ABORT = new Set(['SIGSEGV', 'SIGBUS', 'SIGFPE', 'SIGILL', 'SIGABRT', 'SIGTRAP', 'SIGSYS']);

/** A stop or exit is reported once the program's output up to it is in the ring. */
async function afterOutput(g: LldbContext, event: Promise<BackendEvent>): Promise<BackendEvent> {
  const [e] = await Promise.all([event, g.terminal?.sync()]);
  return e;
}

/** The stop as the model says it, with the facts LLDB gives only on request. */
async function describeStop(
  g: LldbContext,
  breakpoints: LldbBreakpoints,
  body: DebugProtocol.StoppedEvent['body'],
): Promise<BackendEvent> {
  const state = g.state;
  const pending = state.pending;
  state.pending = { kind: 'none' };
  const stop: StopEvent = { reason: 'unknown', stoppedThreads: 'all' };
  if (body.threadId !== undefined) stop.threadId = body.threadId;
  const hitIds = body.hitBreakpointIds ?? [];
  const internal = hitIds.some((id) => g.internalBreakpoints.has(String(id)));
  const description = body.description ?? body.text;
  state.lastSignal = undefined;
  switch (body.reason) {
    case 'breakpoint':
    case 'function breakpoint':
    case 'instruction breakpoint':
      stop.reason = internal ? 'location-reached' : 'breakpoint-hit';
      break;
    case 'data breakpoint':
      stop.reason = 'watchpoint-trigger';
      break;
    case 'step':
      stop.reason = pending.kind === 'finish' ? 'function-finished' : 'end-stepping-range';
      break;
    case 'exception': {
      const catchpoint = breakpoints.catchpointFor(description);
      if (catchpoint !== undefined) {
        // As GDB reports its C++ catchpoints (`breakpoint-hit`); onStop below names the
        // catchpoint by the session's number.
        stop.reason = 'breakpoint-hit';
        if (!hitIds.includes(catchpoint)) hitIds.push(catchpoint);
        break;
      }
      const parsed = parseStopDescription(description);
      if (parsed.signal) {
        stop.reason = 'signal-received';
        stop.signal = parsed.signal;
        if (pending.kind === 'pause' && parsed.signal.name === 'SIGSTOP') {
          // lldb-dap's pause is a SIGSTOP of its own (measured): the interrupt that was asked for,
          // which the model names as GDB reports its own, SIGINT.
          stop.signal = INTERRUPT;
        } else {
          if (parsed.faultAddress) stop.faultAddress = parsed.faultAddress;
          await readSiginfo(g, stop);
        }
        const number = SIGNAL_NUMBERS[parsed.signal.name];
        if (number !== undefined) state.lastSignal = { name: parsed.signal.name, number };
      } else {
        stop.rawReason = description ?? 'exception';
      }
      break;
    }
    case 'entry': {
      // A core's first stop names the signal that killed it (`SIGSEGV: …`, without `signal `);
      // an attach's is the SIGSTOP of attaching, a stub's the SIGTRAP it starts at: no event.
      const parsed = parseStopDescription(description);
      if (parsed.signal && parsed.signal.name !== 'SIGSTOP' && parsed.signal.name !== 'SIGTRAP') {
        stop.reason = 'signal-received';
        stop.signal = parsed.signal;
        if (parsed.faultAddress) stop.faultAddress = parsed.faultAddress;
      } else {
        stop.rawReason = 'entry';
      }
      break;
    }
    case 'pause':
      stop.reason = 'signal-received';
      stop.signal = INTERRUPT;
      break;
    default:
      stop.rawReason = description ? `${body.reason}: ${description}` : body.reason;
  }
  if (internal) await g.clearInternalBreakpoints();
  try {
    const changed = await breakpoints.onStop(stop, hitIds);
    for (const breakpoint of changed) g.emit({ type: 'breakpoint-changed', breakpoint });
    if (stop.temporaryBreakpoint && stop.breakpoint) g.emit({ type: 'breakpoint-deleted', number: stop.breakpoint });
  } catch (e) {
    log('debug', 'lldb: breakpoint bookkeeping at a stop failed', { error: (e as Error).message });
  }
  if (body.threadId !== undefined) {
    const top = await g.frames(body.threadId, 0, 0).catch(() => []);
    if (top[0]) stop.frame = top[0].frame;
  }
  return { type: 'stopped', stop };
}

/**
 * `thread siginfo` gives the kernel's si_code and si_addr; read first, before any expression at
 * this stop (measured: after other evaluations it once showed the SIGTRAP of LLDB's own run).
 * The description's fault address stays when siginfo is unavailable (a core, gdb-remote).
 */
async function readSiginfo(g: LldbContext, stop: StopEvent): Promise<void> {
  if (stop.signal === undefined || g.state.target === 'core') return;
  try {
    const text = await g.repl('thread siginfo', undefined, { timeoutMs: 2000 });
    const info = parseSiginfo(text);
    if (info.code !== undefined) stop.signalCode = info.code;
    if (FAULT_SIGNALS.has(stop.signal.name) && info.address !== undefined) stop.faultAddress = info.address;
  } catch {
    // No siginfo here: the description is what there is.
  }
}
