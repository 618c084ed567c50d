// The model as it goes on the wire: snake_case, undefined fields left out, compact. These
// objects are the `structuredContent` of answers; render.ts writes the text beside them.

import type { RuntimeReport } from '../backends/debuggerBackend.js';
import type {
  Breakpoint,
  ExitEvent,
  Frame,
  Instruction,
  Library,
  Register,
  StopEvent,
  TargetException,
  Variable,
} from '../model/model.js';
import type { OutputChunk } from '../process/outputRing.js';
import type { StackEntry, ThreadEntry, ViewData, ViewOutcome } from '../session/evidence.js';
import type { RunOutcome, Session } from '../session/session.js';
import { withoutUndefined } from '../util/objects.js';
import type {
  BreakpointWire,
  ExceptionWire,
  ExitWire,
  FrameWire,
  InstructionWire,
  LibraryWire,
  OutcomeWire,
  OutputChunkWire,
  RegisterWire,
  RuntimeReportWire,
  SessionWire,
  StackEntryWire,
  StopWire,
  ThreadWire,
  VariableWire,
  ViewsWire,
  ViewWire,
} from './answers/shapes.js';

export type Wire = Record<string, unknown>;

/** Drops undefined fields (JSON would too, but answers are measured before serialising). */
export const compact = withoutUndefined;

export function variableWire(v: Variable): VariableWire {
  return compact({ name: v.name, value: v.value, type: v.type, truncated: v.truncated || undefined });
}

export function frameWire(f: Frame): FrameWire {
  return compact({
    level: f.level,
    function: f.function,
    file: f.file,
    line: f.line,
    address: f.address,
    library: f.library,
    args: f.args?.map((a) => compact({ name: a.name, value: a.value, truncated: a.truncated || undefined })),
  });
}

export function stackEntryWire(e: StackEntry): StackEntryWire {
  if ('repeated' in e) {
    const f = e.frame;
    return compact({
      repeated: e.repeated,
      levels: `${e.fromLevel}-${e.toLevel}`,
      function: f.function,
      file: f.file,
      line: f.line,
      args: f.args?.map((a) => compact({ name: a.name, value: a.value, truncated: a.truncated || undefined })),
    });
  }
  if ('folded' in e) {
    return compact({
      folded: e.folded,
      levels: `${e.fromLevel}-${e.toLevel}`,
      library: e.library,
      functions: e.functions,
    });
  }
  return frameWire(e);
}

export function exceptionWire(e: TargetException): ExceptionWire {
  return compact({
    code: `0x${e.code.toString(16)}`,
    name: e.name,
    meaning: e.meaning,
    access: e.access,
    address: e.address,
    inferred_from: e.inferredFrom,
    second_chance: e.secondChance || undefined,
  });
}

export function stopWire(s: StopEvent, stopId?: number): StopWire {
  return compact({
    stop_id: stopId,
    reason: s.reason,
    raw_reason: s.rawReason,
    signal: s.signal?.name,
    signal_meaning: s.signal?.meaning,
    fault_address: s.faultAddress,
    signal_code: s.signalCode,
    fault_note: s.faultNote,
    exception: s.exception ? exceptionWire(s.exception) : undefined,
    thread: s.threadId,
    frame: s.frame ? frameWire(s.frame) : undefined,
    breakpoint: s.breakpoint,
    watch: s.watch ? compact({ ...s.watch }) : undefined,
    return_value: s.returnValue,
    new_pid: s.newPid,
    new_program: s.newProgram,
    syscall: s.syscall,
    pid: s.pid,
    replaying: s.replaying,
    history: s.history,
    record_note: s.recordNote,
    when: s.when,
  });
}

export function runtimeReportWire(r: RuntimeReport): RuntimeReportWire {
  return compact({
    tool: r.tool,
    kind: r.kind,
    error_line: r.errorLine,
    summary_line: r.summaryLine,
    access: r.access ? compact({ ...r.access }) : undefined,
    location: r.location ? compact({ ...r.location }) : undefined,
  });
}

export function exitWire(e: ExitEvent): ExitWire {
  return compact({
    exit_code: e.code,
    signal: e.signal?.name,
    signal_meaning: e.signal?.meaning,
    killed: e.killed,
    reason: e.reason,
  });
}

export function outcomeWire(o: RunOutcome): OutcomeWire {
  switch (o.kind) {
    case 'stopped':
      return { kind: 'stopped', ...stopWire(o.stop, o.stopId) };
    case 'exited':
      return { kind: 'exited', ...exitWire(o.exit) };
    case 'running':
      return { kind: 'running' };
    case 'dead':
      return { kind: 'dead', reason: o.reason };
  }
}

export function breakpointWire(b: Breakpoint): BreakpointWire {
  return compact({
    number: b.number,
    type: b.type,
    enabled: b.enabled,
    temporary: b.temporary || undefined,
    pending: b.pending || undefined,
    location: b.requested,
    function: b.function,
    file: b.file,
    line: b.line,
    address: b.address,
    condition: b.condition,
    ignore_count: b.ignoreCount || undefined,
    hits: b.hits,
    what: b.what,
    script: b.script,
    thread: b.thread,
    locations:
      b.locations.length > 1
        ? b.locations.map((l) =>
            compact({
              id: l.id,
              enabled: l.enabled,
              function: l.function,
              file: l.file,
              line: l.line,
              address: l.address,
            }),
          )
        : undefined,
  });
}

function threadWire(t: ThreadEntry): ThreadWire {
  return compact({
    id: t.id,
    pid: t.pid,
    target_id: t.targetId,
    name: t.name,
    state: t.state,
    waiting: t.waiting,
    frame: t.frame ? frameWire(t.frame) : undefined,
    stack: t.stack?.map(stackEntryWire),
    locals: t.locals
      ? compact({ level: t.locals.level, function: t.locals.function, variables: t.locals.variables.map(variableWire) })
      : undefined,
  });
}

function instructionWire(i: Instruction): InstructionWire {
  return compact({
    address: i.address,
    function: i.function,
    offset: i.offset,
    instruction: i.instruction,
    opcodes: i.opcodes,
    line: i.line,
    file: i.file,
  });
}

export function libraryWire(l: Library): LibraryWire {
  return compact({ path: l.path, symbols: l.symbolsLoaded, from: l.ranges[0]?.from, to: l.ranges[0]?.to });
}

export function registerWire(r: Register): RegisterWire {
  return { name: r.name, value: r.value };
}

export function viewWire(v: ViewData): ViewWire {
  switch (v.view) {
    case 'stop':
      return compact({ summary: v.summary, ...stopWire(v.stop), callers: v.callers?.map(frameWire), source: v.source });
    case 'crash':
      return compact({
        signal: v.signal?.name,
        signal_meaning: v.signal?.meaning,
        fault_address: v.faultAddress,
        signal_code: v.signalCode,
        fault_note: v.faultNote,
        hint: v.hint,
        report: v.report ? runtimeReportWire(v.report) : undefined,
        thread: v.threadId,
        pid: v.pid,
        stack: v.stack.map(stackEntryWire),
        depth: v.depth,
        depth_at_least: v.depthAtLeast,
        locals: v.locals.map((l) =>
          compact({
            level: l.level,
            function: l.function,
            variables: l.variables.map(variableWire),
            omitted: l.omitted,
          }),
        ),
        source: v.source,
        instruction: v.instruction ? instructionWire(v.instruction) : undefined,
        output_tail: v.outputTail,
      });
    case 'stack':
      return compact({ thread: v.threadId, from: v.from, frames: v.frames.map(frameWire), more: v.more });
    case 'threads':
      return compact({
        current: v.currentThreadId,
        total: v.total,
        more: v.more,
        hint: v.hint,
        threads: v.threads.map(threadWire),
      });
    case 'frame':
      return compact({
        thread: v.threadId,
        frame: frameWire(v.frame),
        locals: v.locals.map(variableWire),
        source: v.source,
      });
    case 'locals':
    case 'args':
      return compact({
        thread: v.threadId,
        frame: v.frame,
        variables: v.variables.map(variableWire),
        omitted: v.omitted,
      });
    case 'registers':
      return compact({ thread: v.threadId, frame: v.frame, registers: v.registers.map(registerWire) });
    case 'source':
      return { ...v.source };
    case 'libraries':
      return { total: v.total, libraries: v.libraries.map(libraryWire) };
  }
}

/** A plan's results: one key per view, plus what failed. */
export function viewsWire(outcomes: { name: string; outcome: ViewOutcome }[]): {
  views: ViewsWire;
  failures?: string[];
} {
  const views: Record<string, ViewWire> = {};
  const failures: string[] = [];
  for (const { name, outcome } of outcomes) {
    if (outcome.data) views[name] = viewWire(outcome.data);
    failures.push(...outcome.failures);
  }
  return failures.length > 0 ? { views, failures } : { views };
}

export function instructionsWire(list: readonly Instruction[]): InstructionWire[] {
  return list.map(instructionWire);
}

export function sessionWire(s: Session): SessionWire {
  const snap = s.snapshot;
  const st = snap.state;
  return compact({
    id: s.id,
    state: st.phase,
    stop_id: snap.stopId,
    exit_code: st.phase === 'exited' ? st.exit.code : undefined,
    recording: snap.recording || undefined,
    reason: st.phase === 'dead' ? st.reason : undefined,
  });
}

/** Program output read from `cursor`: the text, where it starts and ends, and what was skipped. */
export function outputWire(chunk: OutputChunk, cursor: number): OutputChunkWire {
  return compact({
    text: chunk.data.toString('utf8'),
    from: chunk.start,
    cursor: chunk.next,
    skipped: chunk.start > cursor ? chunk.start - cursor : undefined,
  });
}
