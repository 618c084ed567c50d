// GDB's asynchronous records turned into backend events: *running and *stopped, the =notify
// records about processes, threads, libraries, breakpoints and recording, and console text. A
// stop is reported once what it needs is read (the fault address, what recording said, a target's
// own probes) and once the program's output up to it is in the ring.

import { guardSession, releaseSession } from '../../process/orphanGuard.js';
import { identify } from '../../process/processTree.js';
import { dataEvaluateExpression } from '../../protocols/mi/commands/data.js';
import type { MiRecord, MiTuple } from '../../protocols/mi/miRecords.js';
import { log } from '../../util/log.js';
import type { BackendEvent } from '../debuggerBackend.js';
import { SI_KERNEL } from '../runtime/faultAddress.js';
import type { GdbContext } from './gdbContext.js';
import { explainKernelStop } from './gdbKernelFault.js';
import {
  isExitStop,
  narrowBreakpointResult,
  narrowDeletedBreakpoint,
  narrowExit,
  narrowGroupExited,
  narrowGroupStarted,
  narrowLibrary,
  narrowRunning,
  narrowStop,
  narrowThreadNotice,
  narrowUnloadedLibrary,
  narrowValue,
} from './gdbNarrow.js';
import { isReplaying, readRecordNotes } from './gdbRecord.js';

const FAULT_SIGNALS = new Set(['SIGSEGV', 'SIGBUS', 'SIGFPE', 'SIGILL']);
/** Programs remembered for the sweep at close (a session restarted more often forgets the oldest). */
const MAX_SWEPT = 64;

export function handleRecord(g: GdbContext, record: MiRecord, captured: boolean): void {
  switch (record.kind) {
    case 'exec': {
      if (record.class === 'running') {
        g.state.consoleAtResume = g.console.end;
        g.emit({ type: 'running', threadId: narrowRunning(record.results) });
      } else if (record.class === 'stopped') {
        if (isExitStop(record.results)) {
          g.emit(afterOutput(g, { type: 'exited', exit: narrowExit(record.results) }));
        } else {
          g.emit(afterOutput(g, enrichStop(g, record.results)));
        }
      }
      return;
    }
    case 'notify':
      handleNotify(g, record.class, record.results);
      return;
    case 'console':
    case 'log':
      // A command's own answer is returned to its caller; the ring keeps what GDB said unasked.
      if (!captured) g.console.write(Buffer.from(record.text));
      for (const watch of g.state.textWatchers) watch(record.text);
      return;
    case 'raw':
      if (record.text.trim() !== '')
        log('debug', 'unparsed line from gdb', { text: record.text.slice(0, 500), error: record.error });
      return;
    default:
      return;
  }
}

function handleNotify(g: GdbContext, kind: string, r: MiTuple): void {
  const state = g.state;
  switch (kind) {
    case 'thread-group-started': {
      const { group, pid } = narrowGroupStarted(r);
      if (pid !== undefined) {
        state.inferiorPids.set(group, pid);
        // An attached process or one on another machine is not ours to sweep.
        if (!state.attached && state.pidsAreLocal) {
          const who = identify(pid);
          state.launched.push(who);
          guardSession(who);
          if (state.launched.length > MAX_SWEPT) releaseSession(state.launched.shift()?.pid ?? 0);
        }
        g.emit({ type: 'inferior-started', group, pid });
      }
      return;
    }
    case 'thread-group-exited': {
      const exited = narrowGroupExited(r);
      state.inferiorPids.delete(exited.group);
      g.emit({ type: 'inferior-exited', ...exited });
      return;
    }
    case 'thread-created':
    case 'thread-exited': {
      const notice = narrowThreadNotice(r);
      if (notice) g.emit({ type: kind, ...notice });
      return;
    }
    case 'library-loaded':
      g.emit({ type: 'library-loaded', library: narrowLibrary(r) });
      return;
    case 'library-unloaded':
      g.emit({ type: 'library-unloaded', path: narrowUnloadedLibrary(r) });
      return;
    case 'breakpoint-created':
    case 'breakpoint-modified': {
      const breakpoint = narrowBreakpointResult(r);
      if (breakpoint) g.emit({ type: 'breakpoint-changed', breakpoint });
      return;
    }
    case 'breakpoint-deleted': {
      const number = narrowDeletedBreakpoint(r);
      if (number !== undefined) g.emit({ type: 'breakpoint-deleted', number });
      return;
    }
    case 'record-started':
    case 'record-stopped':
      state.recording = kind === 'record-started';
      g.emit({ type: kind });
      return;
    default:
      return;
  }
}

/** A stop or exit is reported once the program's output up to it is in the ring. */
async function afterOutput(g: GdbContext, event: BackendEvent | Promise<BackendEvent>): Promise<BackendEvent> {
  const [e] = await Promise.all([event, g.terminal?.sync()]);
  return e;
}

/** A fault's address lives in $_siginfo, not in the stop record: read it before reporting. */
async function enrichStop(g: GdbContext, results: MiTuple): Promise<BackendEvent> {
  const stop = narrowStop(results);
  if (stop.frame) g.noteSources([stop.frame]);
  if (stop.threadId !== undefined) g.state.stopThread = stop.threadId;
  if (stop.reason === 'unknown' && stop.breakpoint === undefined) signalCatchpoint(g, stop);
  if (g.state.recording || stop.reason === 'no-history') await readRecording(g, stop);
  for (const probe of g.state.stopProbes) {
    try {
      await probe(stop);
    } catch {
      // A probe adds to the evidence; its failure never hides the stop.
    }
  }
  if (stop.signal && FAULT_SIGNALS.has(stop.signal.name)) {
    try {
      const thread = stop.threadId;
      // The whole $_siginfo, not `$_siginfo._sifields._sigfault.si_addr`: GDB's C parser looks
      // every name up as a symbol, and at a first stop a failed lookup waits for the DWARF index
      // of every library (measured: 45-70 ms with libc's debug info; 0.5 ms for the whole value).
      // The field path stays as the fallback for print settings that hide the field.
      const whole = await dataEvaluateExpression(g.mi, { thread, expression: '$_siginfo' }, { timeoutMs: 2000 });
      const siginfo = narrowValue(whole.results);
      const code = /\bsi_code = (-?\d+)/.exec(siginfo)?.[1];
      if (code !== undefined) stop.signalCode = Number(code);
      let m = /_sigfault = \{\s*si_addr = (0x[0-9a-fA-F]+)/.exec(siginfo);
      if (!m) {
        const r = await dataEvaluateExpression(
          g.mi,
          { thread, expression: '$_siginfo._sifields._sigfault.si_addr' },
          { timeoutMs: 2000 },
        );
        m = /(0x[0-9a-fA-F]+)/.exec(narrowValue(r.results));
      }
      // SI_KERNEL: si_addr is 0 whatever was accessed; the instruction tells the real address.
      if (stop.signalCode === SI_KERNEL) await explainKernelStop(g, stop);
      else if (m?.[1]) stop.faultAddress = m[1];
    } catch {
      // No siginfo (a core without it, a remote that does not send it): leave it out.
    }
  }
  return { type: 'stopped', stop };
}

/**
 * GDB 13 reports the stop of a signal catchpoint with neither reason nor bkptno; only the
 * console line before it says what happened: `Catchpoint 1 (signal SIGABRT), raise (…)`.
 */
function signalCatchpoint(g: GdbContext, stop: import('../../model/model.js').StopEvent): void {
  const said = g.console.read(g.state.consoleAtResume, 64 * 1024).data.toString('utf8');
  const m = [...said.matchAll(/^Catchpoint (\d+) \(signal (SIG\w+)\)/gm)].pop();
  if (!m?.[1] || !m[2]) return;
  stop.reason = 'catchpoint';
  stop.breakpoint = m[1];
  stop.signal = { name: m[2], meaning: 'caught before delivery' };
}

/** What recording said about this stop: an end of history, a limit it hit, replay or live. */
async function readRecording(g: GdbContext, stop: import('../../model/model.js').StopEvent): Promise<void> {
  const state = g.state;
  const notes = readRecordNotes(g.console.read(state.consoleAtResume, 64 * 1024).data.toString('utf8'));
  // GDB says "No more reverse-execution history" at both ends; the direction of travel tells which.
  if (stop.reason === 'no-history' || notes.history) stop.history = state.reversing ? 'start' : 'end';
  // Going backwards GDB names the values in the direction of travel; the program wrote them the
  // other way round, which is what the agent reasons about.
  if (state.reversing && stop.watch && (stop.watch.old !== undefined || stop.watch.new !== undefined)) {
    const { old, new: next } = stop.watch;
    stop.watch = { ...stop.watch, old: next, new: old };
  }
  if (notes.note) stop.recordNote = notes.note;
  try {
    const info = await g.cli('info record', { timeoutMs: 2000, captureConsole: true });
    if (/No record target is currently active|No recording is currently active/i.test(info.console)) {
      if (state.recording) {
        state.recording = false;
        g.emit({ type: 'record-stopped' });
      }
    } else if (isReplaying(info.console)) {
      stop.replaying = true;
    }
  } catch {
    // Replay state unknown: say nothing rather than guess.
  }
}
