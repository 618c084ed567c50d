// dbg_start: opens a session and, in the same call, sets breakpoints, runs, and returns the
// evidence where the program stops (startTarget.ts resolves what is opened). With join, takes a
// session handed over instead (takeHandoff.ts); with request_id, a retry finds the session the
// first try opened (idempotentStart.ts). A start whose client cancelled or went away is closed,
// unless it carried a request_id: then it waits for that retry, until the idle timeout.

import * as z from 'zod/v4';
import { backendKinds } from '../../backends/registry.js';
import type { Breakpoint } from '../../model/model.js';
import type { RunOutcome, Session } from '../../session/session.js';
import { abortError } from '../../util/deadline.js';
import { DebuggerError } from '../../util/errors.js';
import { breakpointShape } from '../answers/shapes.js';
import { defineTool, type ToolContext, type ToolData } from '../defineTool.js';
import { parseLocation } from '../locations.js';
import { printable, renderBreakpoint } from '../render.js';
import type { Answer } from '../response.js';
import { includeLocals, inspectPlan, line, onTimeout, programEnv, stackDepth, timeoutMs } from '../schemas.js';
import { breakpointWire, compact } from '../wire.js';
import { idempotentStart } from './idempotentStart.js';
import { type OriginWire, originShape, originWire, renderOrigin } from './originAnswer.js';
import { planOf, runAnswer, runOutputFields, runProgress } from './runAnswer.js';
import { cutShort, operationIdOutput } from './runOperation.js';
import { isShareId, type StartArgs, startTarget, targetFields } from './startTarget.js';
import { takeHandoff } from './takeHandoff.js';

// Arguments travel to the debugger on one line: a line break would end it early.
const oneLineArg = line(4096);

export const startBreakpoint = z.strictObject({
  location: line(1024).describe('Location.'),
  condition: line(1024).optional().describe('If true.'),
  temporary: z.boolean().optional().describe('One hit.'),
});

const input = z.strictObject({
  program: line(4096).optional().describe('Executable; relative: to the 1st root.'),
  args: z.array(oneLineArg).max(64).optional().describe('Literal argv[1..].'),
  cwd: line(4096).optional().describe('Default: workspace root.'),
  env: programEnv.optional(),
  stdin: z.string().max(1_000_000).optional().describe('Typed into its terminal.'),
  stdin_eof: z.boolean().optional().describe('Then EOF (default true).'),
  stdin_file: line(4096).optional().describe('Stdin from this file (run < FILE).'),
  breakpoints: z.array(startBreakpoint).max(16).optional().describe('Set before the run.'),
  stop: z
    .enum(['none', 'main', 'entry', 'no-run'])
    .optional()
    .describe('none (default): to a breakpoint, signal or exit; entry: 1st instruction; no-run: load.'),
  inspect: inspectPlan.optional(),
  stack_depth: stackDepth.optional(),
  include_locals: includeLocals.optional(),
  timeout_ms: timeoutMs.optional(),
  on_timeout: onTimeout.optional().describe('Default: interrupt.'),
  backend: z.enum(backendKinds()).optional().describe('rr replays trace; winedbg: Windows .exe (Wine).'),
  record: z.boolean().optional().describe('Record from main, for reverse_* (slow).'),
  origin: z.boolean().optional().describe('Then find the write behind the failure (dbg_run action=origin).'),
  origin_expression: line(1024).optional().describe('origin: the value, at a breakpoint.'),
  ...targetFields,
  request_id: line(128).optional().describe('Retry key: same id+args, same session.'),
  join: line(128).optional().describe("A session handed to you, or a person's shared debugger (gdb-N, lldb-N)."),
});

const output = z.object({
  session_id: z.string(),
  program: z.string().describe("The program's path; '' when not known (an attach without it)."),
  debugger: z.string().describe('The debugger and its version.'),
  target: z
    .object({
      kind: z.enum(['launch', 'core', 'attach', 'remote', 'replay', 'joined']),
      core: z.string().optional(),
      pid: z.number().optional(),
      remote: z.string().optional(),
      share: z.string().optional(),
      owner: z.string().optional(),
      access: z.enum(['read', 'control']).optional(),
    })
    .optional()
    .describe('Absent for a program launched here.'),
  breakpoints: z.array(breakpointShape).optional().describe('The breakpoints set before the run; absent when none.'),
  ...runOutputFields,
  outcome: runOutputFields.outcome.optional().describe('Absent for stop=no-run: nothing ran yet.'),
  origin: originShape
    .optional()
    .describe('origin=true only: the write behind the failure; the session is stopped there.'),
  operation_id: operationIdOutput,
  session: z.looseObject({}),
  warnings: z.array(z.string()).optional(),
});

export const startTool = defineTool({
  name: 'dbg_start',
  title: 'Start',
  description:
    'Starts a session and in one call sets breakpoints, runs, and returns the evidence where the program stops: crash view for a fatal signal, stop+threads for a hang interrupted at timeout_ms. Locations: main, file.c:42, *0x401000. Problems come as warnings. dbg_close at the end.',
  input,
  output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  async run(args, ctx) {
    if (args.join !== undefined && !isShareId(args.join)) {
      const taken = await takeHandoff(args.join, args, ctx);
      if (taken) return taken;
      // Not a session handed to this caller: the answer an unknown id gets, whether or not
      // another client holds that id.
      ctx.sessions.get(args.join, ctx.client);
      throw new DebuggerError('invalid_argument', `join: session ${args.join} is yours already: use it as it is`, {
        field: 'join',
      });
    }
    const requestId = args.request_id;
    if (requestId === undefined) return startSession(args, ctx);
    return idempotentStart(requestId, args, ctx, (opened) => startSession(args, ctx, opened));
  },
});

type StartAnswer = Answer<ToolData<typeof output>>;

/**
 * Opens the target, sets the breakpoints, runs to the first stop and answers with its evidence.
 * `opened` learns the session as soon as it exists (a request_id's registry keeps it).
 */
async function startSession(
  args: z.output<typeof input>,
  ctx: ToolContext,
  opened?: (session: Session) => void,
): Promise<StartAnswer> {
  const started = Date.now();
  const { kind, target, what } = await startTarget(args, ctx);
  const timeout = args.timeout_ms ?? ctx.config.runTimeoutMs;
  ctx.progress(
    0,
    target.kind === 'launch' && target.remote === undefined
      ? 'starting the debugger'
      : target.kind === 'joined'
        ? "joining the person's debugger"
        : 'opening the target',
  );
  const first = await ctx.sessions.open(kind, target, { timeoutMs: timeout, signal: ctx.signal, client: ctx.client });
  const { session } = first;
  opened?.(session);
  const warnings = [...first.report.warnings];
  // A cancelled start answers nobody: it ends in the catch below (closed, unless a request_id keeps it).
  const unlessCancelled = (): void => {
    if (ctx.signal.aborted) throw abortError(ctx.signal);
  };
  try {
    const installed = await installBreakpoints(
      session,
      args.breakpoints ?? [],
      warnings,
      ctx.signal,
      ctx.config.maxBreakpoints,
    );
    const generated = first.report.generatedBy ? ` (generated by \`${first.report.generatedBy}\`)` : '';
    const attachedTo = target.kind === 'attach' && session.target.program ? ` (${session.target.program})` : '';
    const local = target.kind === 'launch' && target.remote === undefined;
    const data = compact({
      session_id: session.id,
      program: session.target.program,
      debugger: session.debugger.version,
      target: local
        ? undefined
        : compact({
            kind: target.kind,
            core: target.kind === 'core' ? target.core : undefined,
            pid: target.kind === 'attach' ? target.pid : target.kind === 'joined' ? target.share.pid : undefined,
            remote: 'remote' in target ? target.remote : undefined,
            share: target.kind === 'joined' ? target.share.id : undefined,
            owner: target.kind === 'joined' ? target.share.owner : undefined,
            access: session.capabilities.access,
          }),
      breakpoints: installed.length > 0 ? installed.map(breakpointWire) : undefined,
    });
    const extraText = [
      // A core names the command that dumped it, and paths are the file system's: data, escaped.
      printable(`${what}${attachedTo}${generated} under ${session.debugger.version}`),
      ...installed.map(renderBreakpoint),
    ];
    const stop = args.stop ?? 'none';
    let outcome: RunOutcome | undefined = first.outcome;
    if (target.kind === 'launch') {
      if (stop === 'no-run') {
        const note = local ? 'loaded; not started' : 'connected; not started';
        unlessCancelled();
        return { data, text: [...extraText, `${note} (dbg_run action=run starts it)`].join('\n'), session, warnings };
      }
      if (args.stdin !== undefined || args.stdin_eof === true) {
        session.firstInput = { text: args.stdin ?? '', eof: args.stdin_eof ?? true };
      }
      if (args.origin_expression !== undefined && !args.origin) {
        throw new DebuggerError('invalid_argument', 'origin_expression: goes with origin=true', {
          field: 'origin_expression',
        });
      }
      if (args.origin && args.record) {
        throw new DebuggerError('invalid_argument', 'origin: goes without record (it re-executes instead)', {
          field: 'origin',
        });
      }
      ctx.progress(0, 'running the program');
      outcome = args.record
        ? await startRecorded(session, stop, args, ctx, warnings)
        : await startRun(session, stop, args, ctx, warnings);
    } else if (target.kind === 'joined') {
      // The person's program stays where they left it: joining moves nothing.
      if (!outcome) {
        const note =
          session.phase === 'running'
            ? 'their program is running: dbg_run action=wait reads the next stop (it is theirs to stop)'
            : 'no program runs in their debugger yet';
        unlessCancelled();
        return { data, text: [...extraText, note].join('\n'), session, warnings };
      }
    } else if (target.kind !== 'core' && outcome?.kind === 'stopped') {
      outcome = await goOn(session, outcome, args, ctx, target.kind === 'attach');
    }
    if (!outcome) throw new Error('the target opened without a first stop');
    const stayed = outcome === first.outcome;
    const plan = {
      ...planOf(args),
      // An attach shows where every thread is, as an interrupted hang does.
      ...(target.kind === 'attach' && stayed ? { interrupted: true } : {}),
    };
    const answer = await runAnswer(session, outcome, { ...plan, outputCursor: 0, signal: ctx.signal, extraText });
    if (args.origin && target.kind === 'launch' && outcome.kind === 'stopped') {
      const found = await originAfter(session, args, ctx, started);
      unlessCancelled();
      return {
        ...answer,
        data: { ...data, ...answer.data, ...found.data },
        text: [answer.text, ...found.text].join('\n'),
        warnings,
      };
    }
    if (args.origin && target.kind === 'launch') {
      warnings.push(
        `origin: no failure to find the origin of: the program ${outcome.kind === 'exited' ? 'exited' : 'did not stop'}`,
      );
    }
    unlessCancelled();
    return cutShort(session, outcome, { ...answer, data: { ...data, ...answer.data }, warnings }, 'dbg_start', {
      plan,
      outputCursor: 0,
    });
  } catch (e) {
    // A start that fails leaves nothing behind; so does one its client cancelled or dropped,
    // unless a request_id says the client will come back for it.
    const cancelled = ctx.signal.aborted;
    if (!(cancelled && args.request_id !== undefined)) {
      await ctx.sessions.close(session.id, cancelled ? 'its dbg_start was cancelled' : 'its dbg_start failed');
    }
    throw e;
  }
}

/**
 * origin=true: from the failure just reached, the write behind its value, in the time the call
 * has left. The failure's view stays the answer's; the origin's lines follow it. A search that
 * cannot run here is a warning, not a failed start: the failure stands.
 */
async function originAfter(
  session: Session,
  args: { timeout_ms?: number | undefined; origin_expression?: string | undefined },
  ctx: ToolContext,
  started: number,
): Promise<{ data: { origin?: OriginWire }; text: string[] }> {
  const timeout = args.timeout_ms ?? ctx.config.runTimeoutMs;
  ctx.progress(0, 'finding the origin of the value');
  try {
    const found = await session.origin(
      {
        timeoutMs: Math.max(1000, timeout - (Date.now() - started)),
        ...(args.origin_expression !== undefined ? { expression: args.origin_expression } : {}),
      },
      ctx.signal,
    );
    const origin = originWire(found.origin, found.outcome.kind === 'stopped' ? found.outcome.stopId : undefined);
    const at = found.outcome.kind === 'stopped' ? [`now at stop ${found.outcome.stopId} (the write)`] : [];
    return { data: { origin }, text: [...renderOrigin(origin), ...(origin.kind === 'write' ? at : [])] };
  } catch (e) {
    return { data: {}, text: [`origin: not found: ${(e as Error).message}`] };
  }
}

async function installBreakpoints(
  session: Session,
  specs: readonly z.infer<typeof startBreakpoint>[],
  warnings: string[],
  signal: AbortSignal,
  limit: number,
): Promise<Breakpoint[]> {
  const installed: Breakpoint[] = [];
  for (const spec of specs) {
    try {
      const set = await session.setBreakpoint(
        compact({
          kind: 'breakpoint' as const,
          location: parseLocation(spec.location),
          condition: spec.condition || undefined,
          temporary: spec.temporary || undefined,
        }),
        { phases: ['loaded', 'stopped'], doing: 'set a breakpoint', signal },
        { limit },
      );
      installed.push(set.breakpoint);
      warnings.push(...set.warnings);
    } catch (e) {
      warnings.push(`breakpoint at ${spec.location} not set: ${(e as Error).message}`);
    }
  }
  return installed;
}

async function startRun(
  session: Session,
  stop: 'none' | 'main' | 'entry',
  args: StartArgs & { timeout_ms?: number; on_timeout?: 'return' | 'interrupt' },
  ctx: ToolContext,
  warnings: string[],
): Promise<RunOutcome> {
  const request = {
    action: 'run' as const,
    startMode: stop,
    timeoutMs: args.timeout_ms ?? ctx.config.runTimeoutMs,
    onTimeout: args.on_timeout ?? ('interrupt' as const),
    onProgress: runProgress(ctx),
  };
  let pending: Promise<RunOutcome>;
  try {
    pending = session.run(request, ctx.signal);
    pending.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
    if (args.stdin !== undefined || args.stdin_eof === true) {
      const fed = await feedStdin(session, args.stdin ?? '', args.stdin_eof ?? true, ctx.signal);
      if (fed.waiting > 0) {
        warnings.push(
          `stdin: the terminal took ${fed.taken} bytes at once; ${fed.waiting} more wait here and go in as the program reads (dropped if the session closes first)`,
        );
      }
    }
    return await pending;
  } catch (e) {
    if (stop === 'main' && (e as { reason?: string }).reason === 'no-main') {
      warnings.push(`could not stop at main (${(e as Error).message}); ran without stopping`);
      return session.run({ ...request, startMode: 'none' }, ctx.signal);
    }
    throw e;
  }
}

/**
 * record=true: the program starts at main (or where asked), recording begins there, and — when
 * the caller asked to run until something happens (stop=none) — it continues under recording to
 * its crash, breakpoint or deadline, ready to run backwards.
 */
async function startRecorded(
  session: Session,
  stop: 'none' | 'main' | 'entry',
  args: StartArgs & { timeout_ms?: number; on_timeout?: 'return' | 'interrupt' },
  ctx: ToolContext,
  warnings: string[],
): Promise<RunOutcome> {
  const began = Date.now();
  const timeout = args.timeout_ms ?? ctx.config.runTimeoutMs;
  const first = await startRun(session, stop === 'none' ? 'main' : stop, args, ctx, warnings);
  if (first.kind !== 'stopped') return first;
  const recording = await session.run({ action: 'record_start' }, ctx.signal);
  if (stop !== 'none') return recording;
  return session.run(
    {
      action: 'continue',
      timeoutMs: Math.max(1, timeout - (Date.now() - began)),
      onTimeout: args.on_timeout ?? 'interrupt',
    },
    ctx.signal,
  );
}

/**
 * Types text into the program's terminal once the run has begun, then end-of-file if asked. The
 * run goes on meanwhile, so nothing waits for the program to read: what the terminal does not
 * take at once stays queued, in order, and goes in as the program reads (stdinQueue.ts).
 */
async function feedStdin(
  session: Session,
  text: string,
  eof: boolean,
  signal: AbortSignal,
): Promise<{ taken: number; waiting: number }> {
  const typed = text.length > 0 ? await session.writeStdin(text, Date.now(), signal) : { taken: 0, waiting: 0 };
  if (!eof) return typed;
  const end = await session.sendEof(Date.now(), signal);
  return { taken: typed.taken + end.taken, waiting: typed.waiting + end.waiting };
}

/**
 * After the first stop: run on to a breakpoint, signal or exit (stop=none, a stub's default, as
 * for a launch), or to main (stop=main), or stay (stop=entry or no-run; an attach's default:
 * where the process was is the evidence).
 */
async function goOn(
  session: Session,
  first: RunOutcome,
  args: { stop?: string; timeout_ms?: number; on_timeout?: 'return' | 'interrupt' },
  ctx: ToolContext,
  attached: boolean,
): Promise<RunOutcome> {
  const stop = args.stop ?? (attached ? 'entry' : 'none');
  if (stop !== 'none' && stop !== 'main') return first;
  if (stop === 'main') {
    await session.setBreakpoint(
      { kind: 'breakpoint', location: { function: 'main' }, temporary: true },
      { phases: ['stopped'], doing: 'set a breakpoint at main', signal: ctx.signal },
    );
  }
  ctx.progress(0, 'running the program');
  return session.run(
    {
      action: 'continue',
      timeoutMs: args.timeout_ms ?? ctx.config.runTimeoutMs,
      onTimeout: args.on_timeout ?? 'interrupt',
      onProgress: runProgress(ctx),
    },
    ctx.signal,
  );
}
