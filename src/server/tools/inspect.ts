import * as z from 'zod/v4';
import { addObservation, diffFacts, emptyFacts, isEmptyDiff } from '../../session/evidence/viewDiff.js';
import { VIEW_NAMES, type ViewName, type ViewOutcome } from '../../session/evidence.js';
import { LIMITS } from '../../session/limits.js';
import type { Observation } from '../../session/observations.js';
import { DebuggerError } from '../../util/errors.js';
import { observationId, observationIdOut, observationLine } from '../answers/observations.js';
import { viewShapes } from '../answers/shapes.js';
import { defineSessionTool, defineTool, type ToolContext } from '../defineTool.js';
import { printable, renderView } from '../render.js';
import { frameLevel, includeLocals, line, sessionId, stackDepth, stopId, threadId } from '../schemas.js';
import { compact, viewWire } from '../wire.js';

const input = z.strictObject({
  session_id: sessionId,
  view: z
    .enum([...VIEW_NAMES, 'diff'])
    .optional()
    .describe('crash: all-in-one; threads: with stacks; diff: from → to.'),
  observation_id: observationId.optional(),
  thread: threadId.optional(),
  frame: frameLevel.optional(),
  stack_depth: stackDepth.optional(),
  from: z
    .union([z.number().int().min(0).max(1_000_000), observationId])
    .optional()
    .describe('Paging: first frame or thread; diff: observation or stop id.'),
  to: z
    .union([z.number().int().min(0).max(1_000_000), observationId])
    .optional()
    .describe('diff: observation or stop id.'),
  include_locals: includeLocals.optional(),
  file: line(4096).optional().describe('source: file.'),
  line: z.number().int().min(1).max(10_000_000).optional().describe('source: line.'),
  registers: z.array(line(32)).max(64).optional().describe('Default: general.'),
  stop_id: stopId.optional(),
});

const output = z.object({
  view: z
    .enum([...VIEW_NAMES, 'diff'])
    .optional()
    .describe('Absent for an observation that is not a view (evaluate, memory, …).'),
  data: z.union(Object.values(viewShapes)).optional().describe('The view, in the shape of docs/schema for its name.'),
  failures: z.array(z.string()).optional().describe('Parts that could not be gathered, and why; absent when none.'),
  observation_id: observationIdOut.optional(),
  observation: z
    .object({
      id: z.string(),
      kind: z.string().describe('A view name, or evaluate, memory, disassemble.'),
      stop_id: z.number().int().describe('The stop it was gathered at.'),
      at: z.string().describe('When it was gathered (ISO 8601).'),
      answer: z.looseObject({}).optional().describe('For evaluate, memory, disassemble: the data answered then.'),
    })
    .optional()
    .describe('With observation_id: the observation given back as it was, no debugger command.'),
  diff: z
    .looseObject({
      from: z.looseObject({}),
      to: z.looseObject({}),
      empty: z.boolean().describe('Nothing differs.'),
    })
    .optional()
    .describe('view=diff: only what changed (variables, frames, threads, registers, memory, place).'),
  session: z.looseObject({}).optional(),
});

const liveInspect = defineSessionTool({
  name: 'dbg_inspect',
  title: 'Inspect',
  description:
    'One view of the stopped program, bounded: stacks paged (from), values cut at 300 chars, 32 variables a frame, 32 threads a page. stop_id guards against a program that moved. observation_id: an earlier answer as it was.',
  input,
  output,
  requires: ['stopped'],
  doing: 'inspect the program',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(args, ctx) {
    const view = args.view === undefined || args.view === 'diff' ? 'stop' : args.view;
    if (typeof args.from === 'string' || args.to !== undefined) {
      throw new DebuggerError('invalid_argument', 'from as an observation id, and to, go with view=diff', {
        fields: [typeof args.from === 'string' ? 'from' : 'to'],
      });
    }
    const outcome = await ctx.session.inspect(
      compact({
        view,
        threadId: args.thread,
        frame: args.frame,
        stackDepth: args.stack_depth,
        from: args.from,
        includeLocals: args.include_locals,
        file: args.file,
        line: args.line,
        registers: args.registers,
      }),
      ctx.call({ doing: `show the ${view} view`, stopId: args.stop_id }),
    );
    if (!outcome.data) {
      throw new DebuggerError(
        'debugger_error',
        `the ${view} view could not be gathered: ${outcome.failures.join('; ')}`,
      );
    }
    const lines = renderView(outcome.data);
    if (outcome.failures.length > 0) lines.push(...outcome.failures.map((f) => `not gathered: ${f}`));
    if (outcome.observationId) lines.push(observationLine([outcome.observationId], outcome.served));
    return {
      data: {
        view,
        data: viewWire(outcome.data),
        ...(outcome.failures.length > 0 ? { failures: outcome.failures } : {}),
        ...(outcome.observationId ? { observation_id: outcome.observationId } : {}),
      },
      text: lines.join('\n'),
      session: ctx.session,
    };
  },
});

const OTHER_FIELDS = [
  'to',
  'view',
  'thread',
  'frame',
  'stack_depth',
  'from',
  'include_locals',
  'file',
  'line',
  'registers',
  'stop_id',
] as const;

export const inspectTool = defineTool({
  ...liveInspect,
  async run(args, ctx) {
    if (args.view === 'diff') return diffAnswer(args, ctx);
    if (args.observation_id === undefined) {
      if (args.view === undefined) {
        throw new DebuggerError('invalid_argument', 'give view (stop, crash, stack, …) or observation_id', {
          fields: ['view'],
        });
      }
      return liveInspect.run(args, ctx);
    }
    const extra = OTHER_FIELDS.filter((f) => args[f] !== undefined);
    if (extra.length > 0) {
      throw new DebuggerError(
        'invalid_argument',
        `${extra.join(', ')}: an observation is given back as it was; give session_id and observation_id alone`,
        { fields: [...extra] },
      );
    }
    const log = ctx.sessions.observations(args.session_id, ctx.client);
    const obs = log.get(args.observation_id);
    if (!obs) {
      const why = log.wasGiven(args.observation_id)
        ? `observation ${args.observation_id} of session ${args.session_id} was dropped: a session keeps its last ${LIMITS.observationsPerSession} observations (${LIMITS.observationBytesPerSession / 1024 / 1024} MB)`
        : `session ${args.session_id} has no observation ${args.observation_id}`;
      throw new DebuggerError('invalid_argument', why, { fields: ['observation_id'] });
    }
    return observationAnswer(obs);
  },
});

/** An observation as it was: a view as dbg_inspect gave it, anything else as its tool answered. */
function observationAnswer(obs: Observation) {
  const observation = {
    id: obs.id,
    kind: obs.kind,
    stop_id: obs.stopId,
    at: new Date(obs.at).toISOString(),
  };
  const head = `observation ${obs.id}: ${obs.kind} at stop ${obs.stopId}, ${observation.at} (kept; no debugger command)`;
  if (isViewName(obs.kind)) {
    const outcome = obs.value as ViewOutcome;
    const lines = [head, ...(outcome.data ? renderView(outcome.data) : [])];
    if (outcome.failures.length > 0) lines.push(...outcome.failures.map((f) => `not gathered: ${f}`));
    return {
      data: {
        ...(outcome.data ? { view: outcome.data.view, data: viewWire(outcome.data) } : {}),
        ...(outcome.failures.length > 0 ? { failures: outcome.failures } : {}),
        observation_id: obs.id,
        observation,
      },
      text: lines.join('\n'),
    };
  }
  const answer = obs.answer;
  return {
    data: {
      observation_id: obs.id,
      observation: { ...observation, ...(answer ? { answer: answer.data as Record<string, unknown> } : {}) },
    },
    text: [head, ...(answer ? [answer.text] : [])].join('\n'),
  };
}

function isViewName(kind: string): kind is ViewName {
  return (VIEW_NAMES as readonly string[]).includes(kind);
}

/** view=diff: what changed between two observations, or the observations of two stops. */
function diffAnswer(args: z.output<typeof input>, ctx: ToolContext) {
  const extra = OTHER_FIELDS.filter((f) => f !== 'view' && f !== 'to' && f !== 'from' && args[f] !== undefined);
  if (args.observation_id !== undefined) extra.push('observation_id' as never);
  if (extra.length > 0) {
    throw new DebuggerError('invalid_argument', `${extra.join(', ')}: view=diff takes from and to alone`, {
      fields: [...extra],
    });
  }
  if (args.from === undefined || args.to === undefined) {
    throw new DebuggerError(
      'invalid_argument',
      'view=diff needs from and to: each an observation id ("o3") or a stop id',
      {
        fields: [args.from === undefined ? 'from' : 'to'],
      },
    );
  }
  const log = ctx.sessions.observations(args.session_id, ctx.client);
  const side = (which: 'from' | 'to', ref: string | number) => {
    const picked =
      typeof ref === 'string'
        ? [log.get(ref)].filter((o): o is Observation => o !== undefined)
        : log.list().filter((o) => o.stopId === ref);
    if (picked.length === 0) {
      throw new DebuggerError(
        'invalid_argument',
        typeof ref === 'string'
          ? `${which}: session ${args.session_id} has no observation ${ref}`
          : `${which}: nothing was gathered at stop ${ref} (gather a view there first; dbg_sessions history=true lists what was)`,
        { fields: [which] },
      );
    }
    const facts = emptyFacts();
    for (const o of picked) {
      if (o.stoppedIn !== undefined) facts.functions.set(0, o.stoppedIn);
      addObservation(facts, o.kind, o.value);
    }
    const label =
      typeof ref === 'string'
        ? `${ref} (${picked[0]?.kind}, stop ${picked[0]?.stopId})`
        : `stop ${ref} (${picked.map((o) => o.id).join(', ')})`;
    return {
      facts,
      label,
      wire: {
        ...(typeof ref === 'string' ? { observation_id: ref, stop_id: picked[0]?.stopId } : { stop_id: ref }),
        observations: picked.map((o) => o.id),
      },
    };
  };
  const a = side('from', args.from);
  const b = side('to', args.to);
  const d = diffFacts(a.facts, b.facts);
  const empty = isEmptyDiff(d);
  const lines = [`diff ${a.label} → ${b.label}:${empty ? ' no difference: the same values, frames and threads' : ''}`];
  const change = (name: string, from?: string, to?: string) =>
    from === undefined
      ? `+ ${name} = ${to}`
      : to === undefined
        ? `- ${name} (was ${from})`
        : `${name}: ${from} → ${to}`;
  if (d.place) lines.push(`place: ${d.place.from ?? '?'} → ${d.place.to ?? '?'}`);
  for (const v of d.variables) lines.push(change(v.name, v.from, v.to));
  if (d.frames) {
    if (d.frames.returned.length > 0) lines.push(`frames returned: ${d.frames.returned.join('; ')}`);
    if (d.frames.called.length > 0) lines.push(`frames called: ${d.frames.called.join('; ')}`);
    lines.push(`frames in common: ${d.frames.base} outermost`);
  }
  if (d.threads) {
    if (d.threads.added.length > 0) lines.push(`threads new: ${d.threads.added.join('; ')}`);
    if (d.threads.gone.length > 0) lines.push(`threads gone: ${d.threads.gone.join('; ')}`);
    if (d.threads.moved.length > 0) lines.push(`threads moved: ${d.threads.moved.join('; ')}`);
  }
  for (const r of d.registers) lines.push(change(`$${r.name}`, r.from, r.to));
  for (const m of d.memory) lines.push(change(`memory ${m.address}`, m.from, m.to));
  const diff = compact({
    from: a.wire,
    to: b.wire,
    empty,
    place: d.place,
    variables: d.variables.length > 0 ? d.variables : undefined,
    frames: d.frames,
    threads: d.threads,
    registers: d.registers.length > 0 ? d.registers : undefined,
    memory: d.memory.length > 0 ? d.memory : undefined,
  });
  return {
    data: { view: 'diff' as const, diff: diff as z.infer<typeof output>['diff'] & object },
    text: lines.map((l) => printable(l)).join('\n'),
  };
}
