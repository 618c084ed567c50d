// Breakpoints, watchpoints, catchpoints and dprintf. MI where it has the command; the CLI where it
// has not (watch -location, most catchpoints, dprintf), reading back what the command created.

import type { Breakpoint } from '../../model/model.js';
import {
  breakAfter,
  breakChange,
  breakCondition,
  breakInfo,
  breakInsert,
  breakList,
  breakWatch,
  catchException,
  catchLibrary,
} from '../../protocols/mi/commands/breakpoint.js';
import { dataEvaluateExpression } from '../../protocols/mi/commands/data.js';
import { stackListFrames } from '../../protocols/mi/commands/stack.js';
import { threadInfo } from '../../protocols/mi/commands/target.js';
import { assertSingleLine } from '../../protocols/mi/miCommand.js';
import type { MiCommandResult } from '../../protocols/mi/miConnection.js';
import { DebuggerError } from '../../util/errors.js';
import type { BreakpointChange, BreakpointSpec, CatchEvent, FrameSelector, SetBreakpoint } from '../debuggerBackend.js';
import type { GdbContext } from './gdbContext.js';
import { explainBreakpointFailure } from './gdbErrors.js';
import { prepareHardware } from './gdbHardwareChoice.js';
import { gdbLocation } from './gdbLocation.js';
import {
  narrowBreakpointResult,
  narrowBreakpointTable,
  narrowStack,
  narrowThreads,
  narrowValue,
  narrowWatchNumber,
} from './gdbNarrow.js';
import { requireReadOnly, requireReadOnlyLocation } from './gdbReadOnly.js';

export async function listBreakpoints(g: GdbContext, signal?: AbortSignal): Promise<Breakpoint[]> {
  return narrowBreakpointTable((await breakList(g.mi, { signal })).results);
}

/** GDB names a watchpoint "hw watchpoint" when the CPU's debug registers watch it, "watchpoint" when it single-steps. */
function watchWarnings(bp: Breakpoint): string[] {
  if (bp.type === 'watchpoint') {
    return [
      `watchpoint ${bp.number} is a software watchpoint: the program runs one instruction at a time while it is set, very slowly`,
    ];
  }
  return [];
}

export async function insertBreakpoint(
  g: GdbContext,
  spec: BreakpointSpec,
  signal?: AbortSignal,
): Promise<SetBreakpoint> {
  if ('condition' in spec) requireReadOnly(spec.condition, 'condition');
  if (spec.kind === 'watchpoint') requireReadOnly(spec.expression, 'expression');
  if (spec.kind === 'dprintf') {
    for (const [i, a] of (spec.args ?? []).entries()) requireReadOnly(a, `format_args[${i}]`);
  }
  if (spec.kind === 'breakpoint' || spec.kind === 'dprintf') requireReadOnlyLocation(spec.location);
  try {
    const choice = await prepareHardware(g, spec, signal);
    const breakpoint = await insert(g, spec, signal);
    const warnings = choice.warnings(breakpoint.number);
    if (spec.kind === 'watchpoint' && !choice.saysSoftware) warnings.push(...watchWarnings(breakpoint));
    return { breakpoint, warnings };
  } catch (e) {
    throw explainBreakpointFailure(e);
  }
}

/**
 * GDB/MI takes `-break-insert -p N` for a thread that does not exist (the CLI refuses it) and the
 * breakpoint then never stops: refused here as the LLDB backend refuses it, naming the threads.
 */
async function requireThread(g: GdbContext, threadId: number, signal?: AbortSignal): Promise<void> {
  const { threads } = narrowThreads((await threadInfo(g.mi, { signal })).results);
  if (threads.some((t) => t.id === threadId)) return;
  const known = threads.length === 0 ? 'none yet: run the program first' : threads.map((t) => t.id).join(', ');
  throw new DebuggerError(
    'invalid_argument',
    `there is no thread ${threadId} (the program's threads are ${known}; dbg_inspect view=threads lists them)`,
    { fields: ['thread'] },
  );
}

async function insert(g: GdbContext, spec: BreakpointSpec, signal?: AbortSignal): Promise<Breakpoint> {
  switch (spec.kind) {
    case 'breakpoint': {
      if (spec.threadId !== undefined) await requireThread(g, spec.threadId, signal);
      const r = await breakInsert(
        g.mi,
        {
          location: gdbLocation(spec.location),
          temporary: spec.temporary,
          hardware: spec.hardware,
          disabled: spec.disabled,
          condition: spec.condition,
          ignoreCount: spec.ignoreCount,
          thread: spec.threadId,
        },
        { signal },
      );
      return firstBreakpoint(r);
    }
    case 'watchpoint': {
      let bp: Breakpoint;
      if (spec.location) {
        // MI's -break-watch has no -location; the CLI form does.
        assertSingleLine(spec.expression, 'expression');
        const verb = spec.access === 'read' ? 'rwatch' : spec.access === 'access' ? 'awatch' : 'watch';
        bp = await inWatchFrame(g, spec, () =>
          viaCli(g, `${verb} -location ${spec.expression}`, signal, { frame: spec.frame }),
        );
      } else {
        const at = spec.frame !== undefined ? g.frame({ frame: spec.frame }) : {};
        const r = await inWatchFrame(g, spec, () =>
          breakWatch(g.mi, { ...at, expression: spec.expression, access: spec.access ?? 'write' }, { signal }),
        );
        const number = narrowWatchNumber(r.results);
        bp = (number === undefined ? undefined : await oneBreakpoint(g, number, signal)) ?? {
          number: number ?? '?',
          type: 'watchpoint',
          enabled: true,
          temporary: false,
          pending: false,
          hits: 0,
          what: spec.expression,
          locations: [],
        };
      }
      if (spec.condition) {
        await breakCondition(g.mi, { number: bp.number, condition: spec.condition }, { signal });
        bp.condition = spec.condition;
      }
      return bp;
    }
    case 'catchpoint':
      return insertCatchpoint(g, spec.event, spec.filter, spec.temporary ?? false, signal);
    case 'dprintf': {
      // Through the CLI: -dprintf-insert re-escapes its format, so "\n" could never mean a
      // newline; the CLI reads the format as a C string literal, as a person writes it.
      const location = gdbLocation(spec.location);
      assertSingleLine(spec.format, 'format');
      if (/(^|[^\\])(\\\\)*"/.test(spec.format)) {
        throw new DebuggerError(
          'invalid_argument',
          'format: escape double quotes as \\" (it is the body of a C string literal)',
        );
      }
      if (/(^|[^\\])(\\\\)*\\$/.test(spec.format)) {
        throw new DebuggerError('invalid_argument', 'format: ends with a lone backslash');
      }
      if (/,/.test(location))
        throw new DebuggerError('invalid_argument', 'location: a dprintf location cannot contain a comma');
      const extra = (spec.args ?? []).map((a, i) => {
        assertSingleLine(a, `args[${i}]`);
        return `,${a}`;
      });
      const bp = await viaCli(g, `dprintf ${location},"${spec.format}"${extra.join('')}`, signal);
      if (spec.condition) {
        await breakCondition(g.mi, { number: bp.number, condition: spec.condition }, { signal });
        bp.condition = spec.condition;
      }
      return bp;
    }
  }
}

async function insertCatchpoint(
  g: GdbContext,
  event: CatchEvent,
  filter: string | undefined,
  temporary: boolean,
  signal?: AbortSignal,
): Promise<Breakpoint> {
  if (filter !== undefined) {
    assertSingleLine(filter, 'filter');
    // Catchpoint filters are syscall names/numbers, signal names or a regexp for C++ types;
    // they are written into CLI text, so nothing that could start another clause is allowed.
    if (!/^[\w .,*+?^$|()[\]\\:-]*$/.test(filter)) {
      throw new DebuggerError(
        'invalid_argument',
        `filter ${JSON.stringify(filter)} has characters a catchpoint filter cannot contain`,
      );
    }
  }
  if (event === 'throw' || event === 'catch' || event === 'rethrow') {
    return firstBreakpoint(await catchException(g.mi, { event, temporary, regexp: filter }, { signal }));
  }
  if (event === 'load' || event === 'unload') {
    return firstBreakpoint(await catchLibrary(g.mi, { event, temporary, regexp: filter ?? '.' }, { signal }));
  }
  const verb = temporary ? 'tcatch' : 'catch';
  return viaCli(g, `${verb} ${event}${filter ? ` ${filter}` : ''}`, signal);
}

/**
 * Runs a CLI command that creates one breakpoint and returns the breakpoint it created: the one
 * `$bpnum` (GDB's number of the last breakpoint set) names once it changed. Not by listing the
 * whole table before and after: that made setting N breakpoints cost N² (1,000 took 31 s).
 */
/**
 * Sets a watchpoint, and where its expression names nothing in the frame it was read in (a stop
 * inside a library, say), says which frame that was and how to pick another.
 */
async function inWatchFrame<T>(
  g: GdbContext,
  spec: Extract<BreakpointSpec, { kind: 'watchpoint' }>,
  set: () => Promise<T>,
): Promise<T> {
  try {
    return await set();
  } catch (e) {
    if (!(e instanceof DebuggerError) || !/No symbol .* in current context|No frame selected/.test(e.message)) throw e;
    const level = spec.frame ?? 0;
    const thread = g.frame({ frame: level }).thread;
    const frames = await stackListFrames(g.mi, { thread, low: level, high: level }).catch(() => undefined);
    const frame = frames ? narrowStack(frames.results)[0] : undefined;
    const where = frame?.function
      ? `${frame.function}${frame.file ? ` at ${frame.file}:${frame.line ?? '?'}` : frame.library ? ` in ${frame.library}` : ''}`
      : 'unknown';
    throw new DebuggerError(
      'invalid_argument',
      `expression: ${e.message.replace(/\.$/, '')} (read in frame #${level}, ${where}); a variable of another frame? give frame: N, the frame whose scope holds it (dbg_inspect view=stack lists them)`,
      { fields: ['expression'], frame: level },
      { cause: e },
    );
  }
}

async function viaCli(
  g: GdbContext,
  text: string,
  signal?: AbortSignal,
  selector: FrameSelector = {},
): Promise<Breakpoint> {
  const before = await lastNumber(g, signal);
  await g.cli(text, { signal }, selector.frame !== undefined ? selector : {});
  const after = await lastNumber(g, signal);
  const bp = after === undefined || after === before ? undefined : await oneBreakpoint(g, after, signal);
  if (!bp) throw new DebuggerError('debugger_error', `"${text}" created no breakpoint`);
  return bp;
}

/** `$bpnum`, the number of the last breakpoint set; undefined before the first. */
async function lastNumber(g: GdbContext, signal?: AbortSignal): Promise<string | undefined> {
  const r = await dataEvaluateExpression(g.mi, { expression: '$bpnum' }, { signal });
  const value = narrowValue(r.results);
  return /^\d+$/.test(value) ? value : undefined;
}

/** One breakpoint as the table lists it (-break-info), or undefined when GDB has no such number. */
async function oneBreakpoint(g: GdbContext, number: string, signal?: AbortSignal): Promise<Breakpoint | undefined> {
  const table = narrowBreakpointTable((await breakInfo(g.mi, number, { signal })).results);
  return table.find((b) => b.number === number);
}

function firstBreakpoint(r: MiCommandResult): Breakpoint {
  // mi3+ lists the locations of a multi-location breakpoint in the same answer.
  const bp = narrowBreakpointResult(r.results);
  if (!bp) throw new DebuggerError('debugger_error', 'the debugger answered without a breakpoint');
  return bp;
}

export async function changeBreakpoints(g: GdbContext, change: BreakpointChange, signal?: AbortSignal): Promise<void> {
  switch (change.op) {
    case 'delete':
    case 'enable':
    case 'disable':
      await breakChange(g.mi, change.op, change.numbers, { signal });
      return;
    case 'condition':
      requireReadOnly(change.condition, 'condition');
      await breakCondition(g.mi, { number: change.number, condition: change.condition }, { signal });
      return;
    case 'ignore':
      await breakAfter(g.mi, { number: change.number, count: change.count }, { signal });
      return;
  }
}
