// One line saying why the program stopped, and which stops are crashes.

import type { Frame, StopEvent } from '../../model/model.js';

function libraryName(path: string | undefined): string | undefined {
  if (!path) return undefined;
  const slash = path.lastIndexOf('/');
  return slash >= 0 ? path.slice(slash + 1) : path;
}

export function describeFrame(f: Frame | undefined): string {
  if (!f) return 'an unknown place';
  const fn = f.function ?? '??';
  if (f.file !== undefined && f.line !== undefined) return `${fn} at ${f.file}:${f.line}`;
  if (f.library) return `${fn} in ${libraryName(f.library)}`;
  return fn;
}

/** One line saying why the program stopped. */
export function summarizeStop(stop: StopEvent): string {
  const base = summarizeStopReason(stop);
  const history =
    stop.history === 'start'
      ? ' (the start of the recorded history: nothing earlier was recorded)'
      : stop.history === 'end'
        ? ' (the end of the recorded history: continue forward runs live)'
        : stop.replaying
          ? ' (replaying recorded history)'
          : '';
  const process = stop.pid === undefined ? '' : ` (process ${stop.pid})`;
  return `${base}${process}${history}${stop.when?.event !== undefined ? ` [rr event ${stop.when.event}]` : ''}`;
}

function summarizeStopReason(stop: StopEvent): string {
  const where = describeFrame(stop.frame);
  switch (stop.reason) {
    case 'breakpoint-hit':
      return `breakpoint ${stop.breakpoint ?? '?'} hit in ${where}`;
    case 'watchpoint-trigger':
    case 'read-watchpoint-trigger':
    case 'access-watchpoint-trigger': {
      const w = stop.watch;
      const change =
        w?.old !== undefined || w?.new !== undefined
          ? `: ${w?.old ?? '?'} → ${w?.new ?? '?'}`
          : w?.value !== undefined
            ? `: value ${w.value}`
            : '';
      return `watchpoint ${stop.breakpoint ?? '?'} (${w?.expression ?? '?'})${change}, in ${where}`;
    }
    case 'watchpoint-scope':
      return `watchpoint ${stop.breakpoint ?? '?'} went out of scope; now in ${where}`;
    case 'function-finished':
      return `returned to ${where}${stop.returnValue !== undefined ? `; value ${stop.returnValue}` : ''}`;
    case 'end-stepping-range':
      return `stepped to ${where}`;
    case 'location-reached':
      return `reached ${where}`;
    case 'signal-received':
      return `${stop.signal?.name ?? 'signal'} (${stop.signal?.meaning ?? ''}) in ${where}${stop.faultAddress ? `, fault address ${stop.faultAddress}` : ''}`;
    case 'fork':
    case 'vfork':
      return `${stop.reason} of child ${stop.newPid ?? '?'} in ${where}`;
    case 'exec':
      return `exec of ${stop.newProgram ?? '?'} in ${where}`;
    case 'syscall-entry':
    case 'syscall-return':
      return `${stop.reason === 'syscall-entry' ? 'entering' : 'returning from'} syscall ${stop.syscall ?? '?'} in ${where}`;
    case 'no-history':
      return `stopped in ${where}`;
    case 'catchpoint':
      return `catchpoint ${stop.breakpoint ?? '?'}${stop.signal ? ` (${stop.signal.name})` : ''} hit in ${where}`;
    default:
      return `stopped in ${where}`;
  }
}

const FATAL = new Set(['SIGSEGV', 'SIGBUS', 'SIGFPE', 'SIGILL', 'SIGABRT', 'SIGTRAP', 'SIGSYS']);

/** Whether a stop is a crash (a fatal signal), which the automatic plan answers with the crash view. */
export function isCrash(stop: StopEvent | undefined): boolean {
  return stop?.reason === 'signal-received' && stop.signal !== undefined && FATAL.has(stop.signal.name);
}
