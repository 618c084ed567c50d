import * as z from 'zod/v4';
import type { BreakpointChange, BreakpointSpec, CatchEvent } from '../../backends/debuggerBackend.js';
import type { Breakpoint } from '../../model/model.js';
import type { Session } from '../../session/session.js';
import { DebuggerError } from '../../util/errors.js';
import { defineTool } from '../defineTool.js';
import { printable, renderBreakpoint } from '../render.js';
import { line, sessionId } from '../schemas.js';
import { breakpointWire, compact, type Wire } from '../wire.js';

const ACTIONS = ['set', 'delete', 'enable', 'disable', 'condition', 'ignore', 'list'] as const;
const KINDS = ['breakpoint', 'watchpoint', 'catchpoint', 'dprintf'] as const;
const EVENTS = ['throw', 'catch', 'rethrow', 'syscall', 'signal', 'fork', 'vfork', 'exec', 'load', 'unload'] as const;
/** Breakpoints listed in one answer at most. */
const TABLE_MAX = 100;

const bpNumber = z.string().regex(/^\d{1,9}(\.\d{1,6})?$/, 'a breakpoint number: "2", or "2.1" for one location');
const count = z.number().int().min(0).max(1e9);

const input = z.strictObject({
  session_id: sessionId,
  action: z.enum(ACTIONS).describe('list: with hits.'),
  kind: z.enum(KINDS).optional().describe('Default breakpoint.'),
  location: line(1024).optional().describe('main, file.c:42, *0x401000.'),
  condition: line(1024).optional().describe("C expression; '' removes."),
  temporary: z.boolean().optional().describe('Gone after one hit.'),
  hardware: z.boolean().optional().describe('Program must run.'),
  ignore_count: count.optional().describe('Pass N hits.'),
  thread: z.number().int().min(1).max(1e7).optional().describe('Only this thread.'),
  expression: line(1024).optional().describe('An lvalue.'),
  access: z.enum(['write', 'read', 'access']).optional().describe('Default write.'),
  watch_location: z.boolean().optional().describe('Watch the address.'),
  event: z.enum(EVENTS).optional().describe('Caught event.'),
  filter: line(256).optional().describe('Syscalls, signals or a regexp.'),
  format: line(1024).optional().describe('C string body: x=%d\\n.'),
  format_args: z.array(line(1024)).max(16).optional().describe('Its expressions.'),
  numbers: z.array(bpNumber).min(1).max(64).optional().describe('"2", "2.1".'),
  number: bpNumber.optional().describe('condition, ignore.'),
  count: count.optional().describe('ignore: hits to pass.'),
});

type Args = z.output<typeof input>;
type Field = Exclude<keyof Args, 'session_id' | 'action'>;

/** The fields each action (and each kind of set) requires, and those it also accepts. */
const FIELDS: Record<string, { required: Field[]; optional: Field[] }> = {
  'set breakpoint': {
    required: ['location'],
    optional: ['kind', 'condition', 'temporary', 'hardware', 'ignore_count', 'thread'],
  },
  'set watchpoint': { required: ['kind', 'expression'], optional: ['access', 'watch_location', 'condition'] },
  'set catchpoint': { required: ['kind', 'event'], optional: ['filter', 'temporary'] },
  'set dprintf': { required: ['kind', 'location', 'format'], optional: ['format_args', 'condition'] },
  delete: { required: ['numbers'], optional: [] },
  enable: { required: ['numbers'], optional: [] },
  disable: { required: ['numbers'], optional: [] },
  condition: { required: ['number', 'condition'], optional: [] },
  ignore: { required: ['number', 'count'], optional: [] },
  list: { required: [], optional: [] },
};

function checkFields(args: Args): void {
  const key = args.action === 'set' ? `set ${args.kind ?? 'breakpoint'}` : args.action;
  const rule = FIELDS[key];
  if (!rule) return;
  const given = (Object.keys(args) as (keyof Args)[]).filter(
    (k): k is Field => k !== 'session_id' && k !== 'action' && args[k] !== undefined,
  );
  const missing = rule.required.filter((f) => f !== 'kind' && args[f] === undefined);
  if (missing.length > 0) {
    throw new DebuggerError('invalid_argument', `${key} needs ${missing.join(', ')}`, { fields: missing });
  }
  const stray = given.filter((f) => !rule.required.includes(f) && !rule.optional.includes(f));
  if (stray.length > 0) {
    throw new DebuggerError(
      'invalid_argument',
      `${stray.join(', ')} ${stray.length > 1 ? 'do' : 'does'} not apply to ${key}`,
      {
        fields: stray,
      },
    );
  }
}

function specOf(args: Args): BreakpointSpec {
  const condition = args.condition ? { condition: args.condition } : {};
  switch (args.kind ?? 'breakpoint') {
    case 'breakpoint':
      return compact({
        kind: 'breakpoint' as const,
        location: args.location ?? '',
        ...condition,
        temporary: args.temporary,
        hardware: args.hardware,
        ignoreCount: args.ignore_count,
        threadId: args.thread,
      });
    case 'watchpoint':
      return compact({
        kind: 'watchpoint' as const,
        expression: args.expression ?? '',
        access: args.access,
        location: args.watch_location,
        ...condition,
      });
    case 'catchpoint':
      return compact({
        kind: 'catchpoint' as const,
        event: args.event as CatchEvent,
        filter: args.filter,
        temporary: args.temporary,
      });
    case 'dprintf':
      return compact({
        kind: 'dprintf' as const,
        location: args.location ?? '',
        format: args.format ?? '',
        args: args.format_args,
        ...condition,
      });
  }
}

function changeOf(args: Args): BreakpointChange {
  switch (args.action) {
    case 'delete':
      return { op: 'delete', numbers: args.numbers ?? [] };
    case 'enable':
    case 'disable':
      return { op: args.action, numbers: args.numbers ?? [] };
    case 'condition':
      return { op: 'condition', number: args.number ?? '', condition: args.condition ?? '' };
    default:
      return { op: 'ignore', number: args.number ?? '', count: args.count ?? 0 };
  }
}

/** Makes the session's table (used for "never hit" on exit) match the debugger's. */
function syncTable(session: Session, table: readonly Breakpoint[]): void {
  const live = new Set(table.map((b) => b.number));
  for (const number of session.snapshot.breakpoints.keys()) {
    if (!live.has(number)) session.apply({ type: 'breakpoint-deleted', number });
  }
  for (const breakpoint of table) session.apply({ type: 'breakpoint-changed', breakpoint });
}

/** The numbers (or locations "2.1") of a change that name no breakpoint in `table`. */
function missingNumbers(table: readonly Breakpoint[], args: Args): string[] {
  const known = new Set<string>();
  for (const b of table) {
    known.add(b.number);
    for (const l of b.locations) known.add(l.id);
  }
  const asked = args.number !== undefined ? [args.number] : (args.numbers ?? []);
  // A single-location breakpoint "2" answers to "2.1" too, though GDB lists no locations for it.
  return asked.filter((n) => !known.has(n) && !(n.endsWith('.1') && known.has(n.slice(0, -2))));
}

/** GDB's refusals of a set, with what to do instead. */
function explainSetFailure(e: unknown): unknown {
  if (e instanceof DebuggerError && /No hardware breakpoint support/.test(e.message)) {
    return new DebuggerError(
      'wrong_state',
      'hardware breakpoints can be set only once the program runs: start it (dbg_start stop=main), then set this',
      e.details,
    );
  }
  return e;
}

function warningsFor(bp: Breakpoint, args: Args): string[] {
  if (bp.pending) {
    return [
      `breakpoint ${bp.number} at ${args.location ?? '?'} is pending: no such location in the program yet (a typo, or code in a library not loaded yet)`,
    ];
  }
  if (bp.type === 'watchpoint') {
    return [
      `watchpoint ${bp.number} is a software watchpoint: the program runs one instruction at a time while it is set, very slowly`,
    ];
  }
  return [];
}

const output = z.object({
  breakpoint: z.looseObject({}).optional(),
  changed: z.array(z.string()).optional(),
  breakpoints: z.array(z.looseObject({})),
  more: z.number().optional(),
  session: z.looseObject({}),
  warnings: z.array(z.string()).optional(),
});

export const breakpointsTool = defineTool({
  name: 'dbg_breakpoints',
  title: 'Breakpoints',
  description:
    'Sets, changes or lists breakpoints (not while running). set by kind: breakpoint (location…); watchpoint (expression, access, watch_location); catchpoint (event, filter); dprintf (location, format, format_args; output in dbg_io stream=debugger).',
  input,
  output,
  requires: ['loaded', 'stopped', 'exited'],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  async run(args, ctx) {
    checkFields(args);
    const session = ctx.sessions.get(args.session_id);
    const warnings: string[] = [];
    let lead: string[] = [];
    const { table, set } = await session.mutate(
      ['loaded', 'stopped', 'exited'],
      args.action === 'list' ? 'list breakpoints' : `${args.action} breakpoints`,
      async (backend, signal) => {
        let set: Breakpoint | undefined;
        if (args.action === 'set') {
          set = await backend.insertBreakpoint(specOf(args), signal).catch((e: unknown) => {
            throw explainSetFailure(e);
          });
        } else if (args.action !== 'list') {
          // GDB changes nothing, silently, for a number it does not know.
          const unknown = missingNumbers(await backend.listBreakpoints(signal), args);
          if (unknown.length > 0) {
            throw new DebuggerError(
              'invalid_argument',
              `no breakpoint ${unknown.join(', ')} (action=list shows the numbers)`,
              { fields: [args.number !== undefined ? 'number' : 'numbers'] },
            );
          }
          await backend.changeBreakpoints(changeOf(args), signal);
        }
        const table = await backend.listBreakpoints(signal);
        syncTable(session, table);
        return { table, set };
      },
      ctx.signal,
    );
    const data: Wire = {};
    if (set) {
      // The table has the settled form (a multi-location breakpoint, a watchpoint's type).
      const settled = table.find((b) => b.number === set.number) ?? set;
      data['breakpoint'] = breakpointWire(settled);
      warnings.push(...warningsFor(settled, args));
      lead = [`set ${printable(renderBreakpoint(settled))}`];
    } else if (args.action !== 'list') {
      const numbers = args.number !== undefined ? [args.number] : (args.numbers ?? []);
      data['changed'] = numbers;
      lead = [`${args.action}: ${numbers.join(', ')}`];
    }
    const shown = table.slice(0, TABLE_MAX);
    data['breakpoints'] = shown.map(breakpointWire);
    if (table.length > shown.length) data['more'] = table.length - shown.length;
    const lines = [
      ...lead,
      table.length === 0 ? 'no breakpoints' : 'breakpoints:',
      ...shown.map((b) => printable(renderBreakpoint(b))),
    ];
    if (table.length > shown.length) lines.push(`… ${table.length - shown.length} more`);
    return { data, text: lines.join('\n'), session, warnings };
  },
});
