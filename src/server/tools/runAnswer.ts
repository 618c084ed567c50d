// What dbg_start and dbg_run answer after a run: the outcome, the evidence of the inspection plan
// gathered at the stop reached (bound to that stop), and what the program printed.

import * as z from 'zod/v4';
import { automaticViews, gatherView, type ViewOutcome, type ViewRequest } from '../../session/evidence.js';
import type { RunOutcome, Session } from '../../session/session.js';
import type { Answer } from '../answer.js';
import { printable, renderExit, renderOutcome, renderView } from '../render.js';
import type { INSPECT_CHOICES } from '../schemas.js';
import { compact, outcomeWire, viewsWire, type Wire } from '../wire.js';

export type InspectChoice = (typeof INSPECT_CHOICES)[number];

/** The fields runAnswer fills, for the output schemas of the tools that answer with it. */
export const runOutputFields = {
  outcome: z.looseObject({ kind: z.enum(['stopped', 'exited', 'running', 'dead']) }),
  views: z.looseObject({}).optional(),
  failures: z.array(z.string()).optional(),
  output: z.looseObject({}).optional(),
  output_cursor: z.number().optional(),
  never_hit: z.array(z.string()).optional(),
  session: z.looseObject({}),
};

export interface PlanOptions {
  inspect?: readonly InspectChoice[];
  stackDepth?: number;
  includeLocals?: boolean;
  threadId?: number;
  /** True when the stop came from an interrupt we sent (a hang). */
  interrupted?: boolean;
}

/** The inspection plan as dbg_start and dbg_run take it (`inspect`, `stack_depth`, `include_locals`). */
export function planOf(args: {
  inspect?: readonly string[] | undefined;
  stack_depth?: number | undefined;
  include_locals?: boolean | undefined;
}): PlanOptions {
  return {
    ...(args.inspect ? { inspect: args.inspect as readonly InspectChoice[] } : {}),
    ...(args.stack_depth !== undefined ? { stackDepth: args.stack_depth } : {}),
    ...(args.include_locals !== undefined ? { includeLocals: args.include_locals } : {}),
  };
}

export function resolvePlan(outcome: RunOutcome, options: PlanOptions): ViewRequest[] {
  if (outcome.kind !== 'stopped') return [];
  const choices = options.inspect ?? ['auto'];
  if (choices.includes('none')) return [];
  const interrupted = options.interrupted ?? outcome.stop.signal?.name === 'SIGINT';
  const requests: ViewRequest[] = [];
  for (const c of choices) {
    if (c === 'auto' || c === 'none') {
      if (c === 'auto') requests.push(...automaticViews(outcome.stop, interrupted));
      continue;
    }
    requests.push({ view: c });
  }
  const seen = new Set<string>();
  return requests
    .filter((r) => {
      if (seen.has(r.view)) return false;
      seen.add(r.view);
      return true;
    })
    .map(
      (r) =>
        compact({
          ...r,
          threadId: options.threadId,
          stackDepth: options.stackDepth,
          includeLocals: options.includeLocals,
        } as Record<string, unknown>) as unknown as ViewRequest,
    );
}

/** Gathers the plan in one mailbox turn, bound to the stop the run reached. */
export async function gatherPlan(
  session: Session,
  outcome: RunOutcome,
  requests: readonly ViewRequest[],
  signal?: AbortSignal,
): Promise<{ name: string; outcome: ViewOutcome }[]> {
  if (outcome.kind !== 'stopped' || requests.length === 0) return [];
  try {
    return await session.query(
      ['stopped'],
      'gather the evidence',
      async (backend) => {
        const out: { name: string; outcome: ViewOutcome }[] = [];
        for (const r of requests)
          out.push({ name: r.view, outcome: await gatherView(backend, session.snapshot, r, signal) });
        return out;
      },
      { stopId: outcome.stopId, signal },
    );
  } catch (e) {
    // The run's outcome stands even when its evidence cannot be gathered.
    return [{ name: 'inspect', outcome: { failures: [`inspection: ${(e as Error).message}`] } }];
  }
}

/** The program's output since `cursor` (its tail, when there is more than fits). */
export function outputSince(session: Session, cursor: number, maxBytes = 2048): Wire | undefined {
  const ring = session.backend.output;
  if (!ring || ring.end <= cursor) return undefined;
  const available = ring.end - cursor;
  const from = available > maxBytes ? ring.end - maxBytes : cursor;
  const chunk = ring.read(from, maxBytes);
  return compact({
    text: chunk.data.toString('utf8'),
    from: chunk.start,
    cursor: chunk.next,
    skipped: chunk.start > cursor ? chunk.start - cursor : undefined,
  });
}

export async function runAnswer(
  session: Session,
  outcome: RunOutcome,
  options: PlanOptions & { outputCursor: number; signal?: AbortSignal; extra?: Wire; extraText?: string[] },
): Promise<Omit<Answer, 'warnings'>> {
  const requests = resolvePlan(outcome, options);
  const gathered = await gatherPlan(session, outcome, requests, options.signal);
  const { views, failures } = viewsWire(gathered);
  const lines: string[] = [...(options.extraText ?? [])];
  const rendered = gathered.flatMap((g) => (g.outcome.data ? [renderView(g.outcome.data)] : []));
  // The crash view's first line says what the outcome line would (signal, address, thread).
  const first = gathered[0]?.outcome.data;
  if (outcome.kind === 'stopped' && first?.view === 'crash' && rendered[0]?.[0]) {
    rendered[0][0] = `stop ${outcome.stopId}: ${rendered[0][0]}`;
  } else {
    lines.push(renderOutcome(outcome));
    // The stop view opens with the same summary the outcome line just gave.
    if (first?.view === 'stop') rendered[0]?.shift();
  }
  for (const r of rendered) lines.push(...r);
  if (failures) lines.push(...failures.map((f) => `not gathered: ${f}`));
  const data: Wire = { ...(options.extra ?? {}), outcome: outcomeWire(outcome) };
  if (Object.keys(views).length > 0) data['views'] = views;
  if (failures) data['failures'] = failures;
  // The crash view quotes the output itself; otherwise show what the program printed during the run.
  const crashQuoted = gathered.some((g) => g.outcome.data?.view === 'crash' && g.outcome.data.outputTail);
  const printed = crashQuoted ? undefined : outputSince(session, options.outputCursor);
  if (printed) {
    data['output'] = printed;
    const text = printable(String(printed['text'])).trimEnd().split('\n');
    lines.push(
      `program output${printed['skipped'] ? ` (last ${text.length} lines)` : ''}:`,
      ...text.slice(-12).map((l) => `| ${l}`),
    );
  } else if (session.backend.output) {
    data['output_cursor'] = session.backend.output.end;
  }
  if (outcome.kind === 'exited') {
    const neverHit = [...session.snapshot.breakpoints.values()].filter((b) => b.hits === 0 && b.type !== 'catchpoint');
    if (neverHit.length > 0) {
      data['never_hit'] = neverHit.map((b) => b.number);
      lines.push(
        `breakpoints never hit: ${neverHit.map((b) => `${b.number} (${b.requested ?? b.what ?? '?'})`).join(', ')}`,
      );
    }
    if (lines.length === 0) lines.push(renderExit(outcome.exit));
  }
  return { data, text: lines.join('\n'), session };
}
