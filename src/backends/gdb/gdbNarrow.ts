// The one place where GDB/MI field names ('thread-id', 'bkptno', 'fullname'…) are read: MI
// tuples in, the camelCase model out. Everything MI gives is a string; numbers are parsed here,
// and a field that is missing or malformed is left out rather than guessed. It lives beside the
// GDB backend because what it reads is GDB's behaviour (which fields, in which versions), not MI's.

import type {
  Breakpoint,
  BreakpointLocation,
  ExitEvent,
  Frame,
  Instruction,
  Library,
  MemoryBlock,
  Register,
  StopEvent,
  StopReason,
  Thread,
  Variable,
} from '../../model/model.js';
import type { MiTuple, MiValue } from '../../protocols/mi/miRecords.js';
import { withoutUndefined } from '../../util/objects.js';

export function miString(t: MiTuple | undefined, key: string): string | undefined {
  const v = t?.[key];
  return typeof v === 'string' ? v : undefined;
}

export function miInt(t: MiTuple | undefined, key: string): number | undefined {
  const v = miString(t, key);
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

export function miTuple(t: MiTuple | undefined, key: string): MiTuple | undefined {
  const v = t?.[key];
  return isTuple(v) ? v : undefined;
}

export function miList(t: MiTuple | undefined, key: string): MiValue[] {
  const v = t?.[key];
  if (Array.isArray(v)) return v;
  // A list with one element is sometimes a bare value (GDB's repeated-key quirk in reverse).
  return v === undefined ? [] : [v];
}

export function isTuple(v: MiValue | undefined): v is MiTuple {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function tuples(values: MiValue[]): MiTuple[] {
  return values.filter(isTuple);
}

export function narrowVariables(values: MiValue[]): Variable[] {
  return tuples(values).map((v) =>
    withoutUndefined({
      name: miString(v, 'name') ?? '?',
      value: miString(v, 'value'),
      type: miString(v, 'type'),
      isArg: miString(v, 'arg') === '1' ? true : undefined,
    }),
  );
}

export function narrowFrame(t: MiTuple | undefined, fallbackLevel = 0): Frame | undefined {
  if (!t) return undefined;
  const argsValue = t['args'];
  return withoutUndefined({
    level: miInt(t, 'level') ?? fallbackLevel,
    address: miString(t, 'addr'),
    function: miString(t, 'func'),
    file: miString(t, 'file'),
    fullname: miString(t, 'fullname'),
    line: miInt(t, 'line'),
    library: miString(t, 'from'),
    args: argsValue === undefined ? undefined : narrowVariables(miList(t, 'args')),
  });
}

/** `stack=[frame={…},…]` from -stack-list-frames. */
export function narrowStack(results: MiTuple): Frame[] {
  return tuples(miList(results, 'stack'))
    .map((f, i) => narrowFrame(f, i))
    .filter((f): f is Frame => f !== undefined);
}

/** `stack-args=[frame={level="0",args=[…]},…]` from -stack-list-arguments, by level. */
export function narrowStackArgs(results: MiTuple): Map<number, Variable[]> {
  const byLevel = new Map<number, Variable[]>();
  for (const f of tuples(miList(results, 'stack-args'))) {
    const level = miInt(f, 'level');
    if (level !== undefined) byLevel.set(level, narrowVariables(miList(f, 'args')));
  }
  return byLevel;
}

/** The OS thread id in GDB's target id: "Thread 0x7ffff7d8a740 (LWP 1234)", "LWP 1234", "process 1234". */
export function osThreadOf(targetId: string | undefined): number | undefined {
  const m = /\b(?:LWP|process) (\d+)/.exec(targetId ?? '');
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

export function narrowThreads(results: MiTuple): { threads: Thread[]; currentThreadId?: number } {
  const threads = tuples(miList(results, 'threads')).map((t) => {
    const state = miString(t, 'state');
    const targetId = miString(t, 'target-id');
    return withoutUndefined({
      id: miInt(t, 'id') ?? 0,
      targetId,
      osThreadId: osThreadOf(targetId),
      name: miString(t, 'name'),
      state: state === 'stopped' || state === 'running' ? state : ('unknown' as const),
      core: miInt(t, 'core'),
      frame: narrowFrame(miTuple(t, 'frame')),
    }) as Thread;
  });
  return withoutUndefined({ threads, currentThreadId: miInt(results, 'current-thread-id') });
}

function narrowLocation(t: MiTuple): BreakpointLocation {
  return withoutUndefined({
    id: miString(t, 'number') ?? '?',
    enabled: miString(t, 'enabled') === 'y',
    address: miString(t, 'addr'),
    function: miString(t, 'func'),
    file: miString(t, 'file'),
    fullname: miString(t, 'fullname'),
    line: miInt(t, 'line'),
  });
}

export function narrowBreakpoint(t: MiTuple): Breakpoint {
  const addr = miString(t, 'addr');
  const pending = miString(t, 'pending');
  const script = t['script'];
  const locations = tuples(miList(t, 'locations')).map(narrowLocation);
  const catchType = miString(t, 'catch-type');
  // GDB 13 writes a thread-specific breakpoint's thread twice (thread="1",thread="1"), which a
  // tuple holds as a list: take the first.
  const thread = miList(t, 'thread').find((v): v is string => typeof v === 'string');
  return withoutUndefined({
    number: miString(t, 'number') ?? '?',
    type: miString(t, 'type') ?? 'breakpoint',
    enabled: miString(t, 'enabled') === 'y',
    temporary: miString(t, 'disp') === 'del',
    requested: miString(t, 'original-location') ?? pending,
    pending: pending !== undefined || addr === '<PENDING>',
    condition: miString(t, 'cond'),
    ignoreCount: miInt(t, 'ignore'),
    hits: miInt(t, 'times') ?? 0,
    what: miString(t, 'what') ?? (catchType === undefined ? undefined : catchType),
    script: script === undefined ? undefined : miList(t, 'script').filter((s): s is string => typeof s === 'string'),
    thread: thread === undefined || !Number.isFinite(Number(thread)) ? undefined : Number(thread),
    address: addr === '<PENDING>' || addr === '<MULTIPLE>' ? undefined : addr,
    function: miString(t, 'func'),
    file: miString(t, 'file'),
    fullname: miString(t, 'fullname'),
    line: miInt(t, 'line'),
    locations,
  });
}

/** `BreakpointTable={…,body=[bkpt={…},…]}` from -break-list. */
export function narrowBreakpointTable(results: MiTuple): Breakpoint[] {
  const table = miTuple(results, 'BreakpointTable');
  return tuples(miList(table, 'body')).map(narrowBreakpoint);
}

const KNOWN_REASONS = new Set<string>([
  'breakpoint-hit',
  'watchpoint-trigger',
  'read-watchpoint-trigger',
  'access-watchpoint-trigger',
  'watchpoint-scope',
  'function-finished',
  'location-reached',
  'end-stepping-range',
  'signal-received',
  'solib-event',
  'fork',
  'vfork',
  'exec',
  'syscall-entry',
  'syscall-return',
  'no-history',
]);

const EXIT_REASONS = new Set(['exited', 'exited-normally', 'exited-signalled']);

/** True when a `*stopped` record reports the end of the program rather than a stop. */
export function isExitStop(results: MiTuple): boolean {
  const reason = miString(results, 'reason');
  return reason !== undefined && EXIT_REASONS.has(reason);
}

/** The program's end from `*stopped,reason="exited…"`. */
export function narrowExit(results: MiTuple): ExitEvent {
  const reason = miString(results, 'reason');
  if (reason === 'exited-signalled') {
    return {
      signal: { name: miString(results, 'signal-name') ?? '?', meaning: miString(results, 'signal-meaning') ?? '' },
    };
  }
  // exit-code is octal as GDB prints it ("03", "0377"); exited-normally has none.
  const raw = miString(results, 'exit-code');
  return { code: raw === undefined ? 0 : Number.parseInt(raw, 8) };
}

/** `*stopped,…` (not an exit) into a StopEvent. */
export function narrowStop(results: MiTuple): StopEvent {
  // Several reasons can be listed when one stop has several causes; the first one leads.
  const reasons = miList(results, 'reason').filter((r): r is string => typeof r === 'string');
  const first = reasons[0];
  let reason: StopReason = first !== undefined && KNOWN_REASONS.has(first) ? (first as StopReason) : 'unknown';
  // `starti` reports its stop as signal "0" ("Signal 0"): that is no signal at all.
  const rawSignal = miString(results, 'signal-name');
  const signalName = rawSignal === '0' ? undefined : rawSignal;
  if (rawSignal === '0' && reason === 'signal-received') reason = 'unknown';
  const wpt = miTuple(results, 'wpt') ?? miTuple(results, 'hw-rwpt') ?? miTuple(results, 'hw-awpt');
  const value = miTuple(results, 'value');
  const stoppedThreads = miString(results, 'stopped-threads');
  const threadsList = miList(results, 'stopped-threads').filter((s): s is string => typeof s === 'string');
  if (reason === 'unknown' && miString(results, 'bkptno') !== undefined) reason = 'catchpoint';
  return withoutUndefined({
    reason,
    rawReason: first !== undefined && reason !== first ? first : undefined,
    signal:
      signalName === undefined ? undefined : { name: signalName, meaning: miString(results, 'signal-meaning') ?? '' },
    threadId: miInt(results, 'thread-id'),
    frame: narrowFrame(miTuple(results, 'frame')),
    breakpoint: miString(results, 'bkptno') ?? miString(wpt, 'number') ?? miString(results, 'wpnum'),
    temporaryBreakpoint: miString(results, 'disp') === 'del' ? true : undefined,
    watch:
      wpt === undefined
        ? undefined
        : withoutUndefined({
            expression: miString(wpt, 'exp') ?? '?',
            old: miString(value, 'old'),
            new: miString(value, 'new'),
            value: miString(value, 'value'),
          }),
    returnValue: miString(results, 'return-value'),
    returnVariable: miString(results, 'gdb-result-var'),
    newPid: miInt(results, 'newpid'),
    newProgram: miString(results, 'new-exec'),
    syscall: miString(results, 'syscall-name'),
    stoppedThreads:
      stoppedThreads === 'all'
        ? ('all' as const)
        : threadsList.length > 0
          ? threadsList.map(Number).filter(Number.isFinite)
          : undefined,
  });
}

export function narrowLibrary(t: MiTuple): Library {
  return withoutUndefined({
    path: miString(t, 'target-name') ?? miString(t, 'id') ?? '?',
    symbolsLoaded: miString(t, 'symbols-loaded') === '1',
    ranges: tuples(miList(t, 'ranges')).map((r) => ({
      from: miString(r, 'from') ?? '?',
      to: miString(r, 'to') ?? '?',
    })),
    group: miString(t, 'thread-group'),
  });
}

/** `memory=[{begin,offset,end,contents},…]` from -data-read-memory-bytes. */
export function narrowMemory(results: MiTuple): MemoryBlock[] {
  return tuples(miList(results, 'memory')).map((m) => ({
    address: miString(m, 'begin') ?? '?',
    hex: miString(m, 'contents') ?? '',
  }));
}

function narrowInstruction(t: MiTuple, line?: number, file?: string, fullname?: string): Instruction {
  return withoutUndefined({
    address: miString(t, 'address') ?? '?',
    function: miString(t, 'func-name'),
    offset: miInt(t, 'offset'),
    instruction: miString(t, 'inst') ?? '',
    opcodes: miString(t, 'opcodes'),
    line,
    file,
    fullname,
  });
}

/** `asm_insns=[…]` from -data-disassemble, in plain or source-and-assembly form. */
export function narrowDisassembly(results: MiTuple): Instruction[] {
  const out: Instruction[] = [];
  for (const item of tuples(miList(results, 'asm_insns'))) {
    if (item['line_asm_insn'] !== undefined || item['line'] !== undefined) {
      const line = miInt(item, 'line');
      const file = miString(item, 'file');
      const fullname = miString(item, 'fullname');
      for (const insn of tuples(miList(item, 'line_asm_insn'))) out.push(narrowInstruction(insn, line, file, fullname));
    } else {
      out.push(narrowInstruction(item));
    }
  }
  return out;
}

// ---- the small answers and notifications ------------------------------------------------

/** `*running,thread-id="all"` or `thread-id="3"`. */
export function narrowRunning(results: MiTuple): 'all' | number {
  const id = miString(results, 'thread-id');
  return id === undefined || id === 'all' ? 'all' : Number(id);
}

/** `=thread-group-started,id="i1",pid="1234"`. */
export function narrowGroupStarted(r: MiTuple): { group: string; pid: number | undefined } {
  return { group: miString(r, 'id') ?? 'i1', pid: miInt(r, 'pid') };
}

/** `=thread-group-exited,id="i1",exit-code="03"` (octal, absent when killed). */
export function narrowGroupExited(r: MiTuple): { group: string; code?: number } {
  const raw = miString(r, 'exit-code');
  return { group: miString(r, 'id') ?? 'i1', ...(raw === undefined ? {} : { code: Number.parseInt(raw, 8) }) };
}

/** `=thread-created,id="2",group-id="i1"` (and thread-exited). */
export function narrowThreadNotice(r: MiTuple): { id: number; group: string } | undefined {
  const id = miInt(r, 'id');
  return id === undefined ? undefined : { id, group: miString(r, 'group-id') ?? 'i1' };
}

/** `=library-unloaded,id=…,target-name=…`. */
export function narrowUnloadedLibrary(r: MiTuple): string {
  return miString(r, 'target-name') ?? miString(r, 'id') ?? '?';
}

/** `bkpt={…}` of `=breakpoint-created` / `-modified` and of a `-break-insert` answer. */
export function narrowBreakpointResult(r: MiTuple): Breakpoint | undefined {
  const bkpt = miTuple(r, 'bkpt');
  return bkpt ? narrowBreakpoint(bkpt) : undefined;
}

/** `=breakpoint-deleted,id="3"`. */
export function narrowDeletedBreakpoint(r: MiTuple): string | undefined {
  return miString(r, 'id');
}

/** The number of the watchpoint a `-break-watch` made (`wpt`, `hw-rwpt` or `hw-awpt`). */
export function narrowWatchNumber(r: MiTuple): string | undefined {
  return miString(miTuple(r, 'wpt') ?? miTuple(r, 'hw-rwpt') ?? miTuple(r, 'hw-awpt'), 'number');
}

/** `value="…"` of -data-evaluate-expression and -var-evaluate-expression. */
export function narrowValue(r: MiTuple): string {
  return miString(r, 'value') ?? '';
}

/** `depth="12"` of -stack-info-depth. */
export function narrowDepth(r: MiTuple): number {
  return miInt(r, 'depth') ?? 0;
}

/** `name="var1"` of -var-create. */
export function narrowVarName(r: MiTuple): string | undefined {
  return miString(r, 'name');
}

/** `variables=[…]` of -stack-list-variables. */
export function narrowFrameVariables(r: MiTuple): Variable[] {
  return narrowVariables(miList(r, 'variables'));
}

/** `register-names=[…]`: by number, '' for the numbers GDB leaves unnamed. */
export function narrowRegisterNames(r: MiTuple): string[] {
  return miList(r, 'register-names').map((n) => (typeof n === 'string' ? n : ''));
}

/** `register-values=[{number,value},…]`, named from the list above. */
export function narrowRegisterValues(r: MiTuple, names: readonly string[]): Register[] {
  return tuples(miList(r, 'register-values')).map((v) => {
    const number = miInt(v, 'number') ?? -1;
    return { number, name: names[number] ?? String(number), value: miString(v, 'value') ?? '' };
  });
}

/** `shared-libraries=[…]` of -file-list-shared-libraries. */
export function narrowLibraries(r: MiTuple): Library[] {
  return tuples(miList(r, 'shared-libraries')).map(narrowLibrary);
}

/** The frame a `-target-select core` answer names. */
export function narrowSelectedFrame(r: MiTuple): Frame | undefined {
  return narrowFrame(miTuple(r, 'frame'));
}
