// What dbg_start and dbg_run answer after a run: the outcome, the evidence of the inspection plan
// gathered at the stop reached (bound to that stop), and what the program printed.

import * as z from 'zod/v4';
import { automaticViews, type ViewRequest } from '../../session/evidence.js';
import type { RunOutcome, Session } from '../../session/session.js';
import { observationLine, observationsOut } from '../answers/observations.js';
import { outcomeShape, outputChunkShape, runtimeReportShape, viewsShape } from '../answers/shapes.js';
import type { ToolContext } from '../defineTool.js';
import { printable, quotedLines, renderExit, renderOutcome, renderView } from '../render.js';
import type { INSPECT_CHOICES } from '../schemas.js';
import { compact, outcomeWire, outputWire, runtimeReportWire, viewsWire } from '../wire.js';

export type InspectChoice = (typeof INSPECT_CHOICES)[number];

/** The fields runAnswer fills, for the output schemas of the tools that answer with it. */
export const runOutputFields = {
  outcome: outcomeShape,
  views: viewsShape.optional(),
  observations: observationsOut.optional(),
  failures: z.array(z.string()).optional().describe('Parts of the evidence that could not be gathered, and why.'),
  output: outputChunkShape.optional().describe('What the program printed during the run; absent when nothing.'),
  output_cursor: z.number().optional().describe('Where the program output ends, when none is quoted here.'),
  never_hit: z.array(z.string()).optional().describe('At exit: breakpoints that were never hit.'),
  hint: z
    .string()
    .optional()
    .describe('At exit: what a sanitizer reported before it, or why it could not run; absent when none did.'),
  report: runtimeReportShape.optional().describe('At exit: the sanitizer report behind `hint`.'),
};

export type RunAnswerData = z.infer<z.ZodObject<typeof runOutputFields>>;

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
    .map((r) =>
      compact({
        ...r,
        threadId: options.threadId,
        stackDepth: options.stackDepth,
        includeLocals: options.includeLocals,
      }),
    );
}

/** Reports a long wait about once a second, as progress notifications. */
export function runProgress(ctx: ToolContext): (elapsedMs: number) => void {
  return (ms) => ctx.progress(ms, `running for ${Math.round(ms / 1000)} s`);
}

/** Lines of program output an answer's text quotes at most (the data has all of it). */
export const OUTPUT_LINES_SHOWN = 12;

/**
 * The program's output as quoted lines under a heading, at most the last OUTPUT_LINES_SHOWN;
 * when lines are left out (or `cut`: the text is itself the tail of more), the heading says how
 * many lines it shows: "program output (last 12 lines):".
 */
export function programOutputLines(text: string, heading: string, cut = false): string[] {
  const head = heading.replace(/:$/, '');
  const lines = quotedLines(text.trimEnd());
  const shown = lines.slice(-OUTPUT_LINES_SHOWN);
  const title =
    cut || shown.length < lines.length
      ? `${head} (last ${shown.length} line${shown.length === 1 ? '' : 's'}):`
      : `${head}:`;
  return [title, ...shown];
}

export async function runAnswer(
  session: Session,
  outcome: RunOutcome,
  options: PlanOptions & { outputCursor: number; signal?: AbortSignal; extraText?: string[] },
): Promise<{ data: RunAnswerData; text: string; session: Session }> {
  const requests = resolvePlan(outcome, options);
  let gathered: Awaited<ReturnType<Session['gather']>> = [];
  if (outcome.kind === 'stopped' && requests.length > 0) {
    try {
      gathered = await session.gather(requests, {
        phases: ['stopped'],
        doing: 'gather the evidence',
        stopId: outcome.stopId,
        signal: options.signal,
      });
    } catch (e) {
      // The run's outcome stands even when its evidence cannot be gathered.
      gathered = [{ name: 'inspect', outcome: { failures: [`inspection: ${(e as Error).message}`] } }];
    }
  }
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
  const data: RunAnswerData = { outcome: outcomeWire(outcome) };
  if (Object.keys(views).length > 0) data.views = views;
  if (failures) data.failures = failures;
  const observed = gathered.flatMap((g) => (g.outcome.observationId ? [[g.name, g.outcome.observationId]] : []));
  if (observed.length > 0) data.observations = Object.fromEntries(observed);
  // An exit says only a code: a sanitizer's report before it says what happened (or, for
  // LeakSanitizer under ptrace, what to do instead). Said right after the exit line.
  const report = outcome.kind === 'exited' ? session.reportSince(options.outputCursor) : undefined;
  if (report) {
    data.hint = report.hint;
    data.report = runtimeReportWire(report);
    lines.push(`hint: ${printable(report.hint)}`);
  }
  // The crash view quotes the output itself; otherwise show what the program printed during the run.
  const crashQuoted = gathered.some((g) => g.outcome.data?.view === 'crash' && g.outcome.data.outputTail);
  const printed = crashQuoted ? undefined : session.outputSince(options.outputCursor);
  if (printed) {
    const output = outputWire(printed, options.outputCursor);
    data.output = output;
    lines.push(...programOutputLines(output.text, 'program output', output.skipped !== undefined));
  } else if (session.outputEnd !== undefined) {
    data.output_cursor = session.outputEnd;
  }
  if (outcome.kind === 'exited') {
    const neverHit = [...session.snapshot.breakpoints.values()].filter((b) => b.hits === 0 && b.type !== 'catchpoint');
    if (neverHit.length > 0) {
      data.never_hit = neverHit.map((b) => b.number);
      lines.push(
        `breakpoints never hit: ${neverHit.map((b) => `${b.number} (${b.requested ?? b.what ?? '?'})`).join(', ')}`,
      );
    }
    if (lines.length === 0) lines.push(renderExit(outcome.exit));
  }
  if (observed.length > 0) {
    lines.push(
      observationLine(
        observed.map(([, id]) => id as string),
        gathered.every((g) => g.outcome.served),
      ),
    );
  }
  return { data, text: lines.join('\n'), session };
}
