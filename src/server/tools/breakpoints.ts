import * as z from 'zod/v4';
import {
  type BreakpointChange,
  type BreakpointSpec,
  CATCH_EVENTS,
  type CatchEvent,
} from '../../backends/debuggerBackend.js';
import type { Breakpoint } from '../../model/model.js';
import { DebuggerError } from '../../util/errors.js';
import { breakpointShape } from '../answers/shapes.js';
import { defineSessionTool } from '../defineTool.js';
import { parseLocation } from '../locations.js';
import { printable, renderBreakpoint } from '../render.js';
import { frameLevel, line, sessionId } from '../schemas.js';
import { breakpointWire, compact } from '../wire.js';

const ACTIONS = ['set', 'delete', 'enable', 'disable', 'condition', 'ignore', 'list'] as const;
const KINDS = ['breakpoint', 'watchpoint', 'catchpoint', 'dprintf'] as const;
/** Breakpoints listed in one answer at most. */
const TABLE_MAX = 100;
/**
 * After a set, the table is shown while it is this small; past it, the new breakpoint and the
 * count (action=list shows them all). Re-listing the whole table at each set made N sets cost N²
 * (1,000 took 31 s): a set now costs the same whatever the table holds.
 */
const TABLE_AFTER_SET = 16;

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
  frame: frameLevel.optional().describe('Watch expression scope.'),
  event: z.enum(CATCH_EVENTS).optional().describe('Caught event.'),
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
  'set watchpoint': {
    required: ['kind', 'expression'],
    optional: ['access', 'watch_location', 'condition', 'hardware', 'frame'],
  },
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
        location: parseLocation(args.location ?? ''),
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
        hardware: args.hardware,
        frame: args.frame,
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
        location: parseLocation(args.location ?? ''),
        format: args.format ?? '',
        args: args.format_args,
        ...condition,
      });
  }
}

function changeOf(args: Args): BreakpointChange | undefined {
  switch (args.action) {
    case 'delete':
      return { op: 'delete', numbers: args.numbers ?? [] };
    case 'enable':
    case 'disable':
      return { op: args.action, numbers: args.numbers ?? [] };
    case 'condition':
      return { op: 'condition', number: args.number ?? '', condition: args.condition ?? '' };
    case 'ignore':
      return { op: 'ignore', number: args.number ?? '', count: args.count ?? 0 };
    default:
      return undefined;
  }
}

const output = z.object({
  breakpoint: breakpointShape.optional().describe('set: the breakpoint as the debugger settled it.'),
  changed: z.array(z.string()).optional().describe('delete, enable, disable, condition, ignore: the numbers changed.'),
  breakpoints: z
    .array(breakpointShape)
    .describe(`The table after the action (at most 100); after set, only while it holds at most ${TABLE_AFTER_SET}.`),
  more: z.number().optional().describe('Breakpoints in the table not listed here; absent when none.'),
  session: z.looseObject({}),
  warnings: z.array(z.string()).optional(),
});

export const breakpointsTool = defineSessionTool({
  name: 'dbg_breakpoints',
  title: 'Breakpoints',
  description:
    'Sets, changes or lists breakpoints (not while running). set by kind: breakpoint (location…); watchpoint (expression, access, watch_location); catchpoint (event, filter); dprintf (location, format, format_args; output in dbg_io stream=debugger).',
  input,
  output,
  requires: ['loaded', 'stopped', 'exited'],
  doing: 'change breakpoints',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  async run(args, ctx) {
    checkFields(args);
    const session = ctx.session;
    const warnings: string[] = [];
    let lead: string[] = [];
    let table: Breakpoint[];
    let set: Breakpoint | undefined;
    const call = ctx.call({ doing: args.action === 'list' ? 'list breakpoints' : `${args.action} breakpoints` });
    if (args.action === 'set') {
      const result = await session.setBreakpoint(specOf(args), call, { limit: ctx.config.maxBreakpoints });
      set = result.breakpoint;
      // The session's table, kept in step by the debugger's notices: no round trip.
      table = [...session.snapshot.breakpoints.values()];
      warnings.push(...result.warnings);
    } else {
      table = await session.changeBreakpoints(changeOf(args), call);
    }
    let changed: string[] | undefined;
    if (set) {
      lead = [`set ${printable(renderBreakpoint(set))}`];
    } else if (args.action !== 'list') {
      changed = args.number !== undefined ? [args.number] : (args.numbers ?? []);
      lead = [`${args.action}: ${changed.join(', ')}`];
    }
    const shown = set && table.length > TABLE_AFTER_SET ? [] : table.slice(0, TABLE_MAX);
    const data = compact({
      breakpoint: set ? breakpointWire(set) : undefined,
      changed,
      breakpoints: shown.map(breakpointWire),
      more: table.length > shown.length ? table.length - shown.length : undefined,
    });
    const lines = [...lead];
    if (shown.length === 0 && table.length > 0) {
      lines.push(`${table.length} breakpoints in all (action=list shows them)`);
    } else {
      lines.push(
        table.length === 0 ? 'no breakpoints' : 'breakpoints:',
        ...shown.map((b) => printable(renderBreakpoint(b))),
      );
      if (table.length > shown.length) lines.push(`… ${table.length - shown.length} more`);
    }
    return { data, text: lines.join('\n'), session, warnings };
  },
});
