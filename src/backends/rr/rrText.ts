// What rr says, read into facts: where a recording went, why rr cannot record here, which
// processes a trace holds, where its replay server listens. The messages are rr 5.x's own
// (src/PerfCounters*.cc, src/TraceStream.cc, src/ReplayCommand.cc, `rr ps`).

export type RrProblemKind = 'missing' | 'no-pmu' | 'paranoid' | 'cpu' | 'virtualization' | 'other';

export interface RrProblem {
  kind: RrProblemKind;
  /** What rr said, in plain words. */
  message: string;
  /** How to make rr work, or what to use instead. */
  fix: string;
}

/**
 * What runs backwards instead of rr, given whether the machine probe saw GDB's process record run
 * backwards here ('broken' on an AMX CPU under GDB 13).
 */
export function insteadOfRr(reverse: 'work' | 'broken' | 'unknown' = 'unknown'): string {
  if (reverse === 'work') return "reverse execution still works here with GDB's process record (dbg_start record=true)";
  if (reverse === 'broken') {
    return "GDB's process record (dbg_start record=true) cannot run backwards on this machine either (dbg_doctor: record full), so nothing runs backwards here; forwards everything works";
  }
  return "GDB's process record (dbg_start record=true) runs backwards where dbg_doctor's record full line says it works";
}

/**
 * Why `rr record` failed, from its stderr (and the machine's perf_event_paranoid, when known);
 * `reverse` is the machine probe's verdict on GDB's process record, for what to use instead.
 */
export function classifyRrFailure(text: string, paranoid?: number, reverse?: 'work' | 'broken' | 'unknown'): RrProblem {
  const INSTEAD = insteadOfRr(reverse);
  if (/Unable to open performance counter with 'perf_event_open'/.test(text)) {
    return {
      kind: 'no-pmu',
      message: 'no hardware performance counters (rr cannot open a perf_event counter: common in VMs and containers)',
      fix: `run on bare metal or a VM with PMU passthrough; ${INSTEAD}`,
    };
  }
  if (/Permission denied to use 'perf_event_open'/.test(text) || /perf_event_paranoid/.test(text)) {
    return {
      kind: 'paranoid',
      message: `perf events are not allowed${paranoid !== undefined ? ` (kernel.perf_event_paranoid=${paranoid})` : ''}`,
      fix: `sysctl kernel.perf_event_paranoid=1 (as root); ${INSTEAD}`,
    };
  }
  const cpu =
    /((?:AMD|Intel) CPU type [^\n]*? unknown|CPU [^\n]*? unknown|Microarchitecture [^\n]*? not supported)/.exec(text);
  if (cpu) {
    return {
      kind: 'cpu',
      message: `rr does not know this CPU (${cpu[1]})`,
      fix: `a newer rr, or force a known microarchitecture with rr -A if it is compatible; ${INSTEAD}`,
    };
  }
  if (/ptrace|EPERM|Operation not permitted/.test(text)) {
    return {
      kind: 'virtualization',
      message: 'rr may not trace processes here (ptrace or seccomp restrictions)',
      fix: `allow ptrace (kernel.yama.ptrace_scope, container seccomp profile); ${INSTEAD}`,
    };
  }
  const last = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .pop();
  return { kind: 'other', message: last ?? 'rr failed without a message', fix: INSTEAD };
}

/** `rr: Saving execution to trace directory `/path/prog-0'.` */
export function parseTraceDir(text: string): string | undefined {
  return /Saving execution to trace directory `([^'\n]+)'/.exec(text)?.[1];
}

export interface RrProcess {
  pid: number;
  ppid?: number;
  /** Exit status; negative: killed by that signal number. */
  exit?: number;
  command: string;
}

/**
 * `rr ps TRACE`:
 *   PID     PPID    EXIT    CMD
 *   159145  --      0       ./caller
 *   159146  159145  -6      ./crasher
 */
export function parseRrPs(text: string): RrProcess[] {
  const out: RrProcess[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+(--|\d+)\s+(-?\d+|--|none)?\s*(.*)$/.exec(line);
    if (!m?.[1]) continue;
    const p: RrProcess = { pid: Number(m[1]), command: (m[4] ?? '').trim() };
    if (m[2] && m[2] !== '--') p.ppid = Number(m[2]);
    if (m[3] && /^-?\d+$/.test(m[3])) p.exit = Number(m[3]);
    out.push(p);
  }
  return out;
}

/**
 * `rr replay -s PORT` says, once its server listens:
 *   Launch gdb with
 *     gdb '-l' '10000' '-ex' 'set sysroot /' '-ex' 'target extended-remote 127.0.0.1:PORT' /path/to/exe
 */
export function parseReplayLaunch(text: string): { address?: string; program?: string } {
  const address = /target extended-remote ([^'\s]+)/.exec(text)?.[1];
  const line = text.split('\n').find((l) => l.includes('target extended-remote'));
  const program = line ? /'\s+((?:'[^']*'|[^\s'])+)\s*$/.exec(line)?.[1]?.replace(/^'|'$/g, '') : undefined;
  return { ...(address ? { address } : {}), ...(program ? { program } : {}) };
}

/** argv for `rr record` of a program's argv (never a shell); `chaos`: rr's chaos mode (--chaos). */
export function recordArgv(argv: readonly string[], traceDir?: string, chaos = false): string[] {
  return ['record', ...(chaos ? ['--chaos'] : []), ...(traceDir ? ['-o', traceDir] : []), ...argv];
}

/** argv for an rr replay server on `port` (0: rr picks), optionally on one process of the trace. */
export function replayArgv(trace: string, port: number, pid?: number): string[] {
  return ['replay', '-s', String(port), ...(pid !== undefined ? ['-p', String(pid)] : []), trace];
}
