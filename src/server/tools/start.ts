import * as z from 'zod/v4';
import { recordEnvironment } from '../../backends/gdb/gdbRecord.js';
import type { Breakpoint } from '../../model/model.js';
import type { RunOutcome, Session } from '../../session/session.js';
import { configureForks } from '../../session/sessionTargets.js';
import { DebuggerError } from '../../util/errors.js';
import { defineTool } from '../defineTool.js';
import { resolveDirectory, resolveProgram } from '../paths.js';
import { renderBreakpoint } from '../render.js';
import { includeLocals, inspectPlan, line, onTimeout, programEnv, stackDepth, timeoutMs } from '../schemas.js';
import { breakpointWire, compact } from '../wire.js';
import { planOf, runAnswer, runOutputFields } from './runAnswer.js';
import { startRecorded } from './startRecord.js';
import { checkLaunchable, startTarget, targetFields, wantsTarget } from './startTargets.js';

// Arguments travel to GDB on one MI line (-exec-arguments): a line break would end it early.
const oneLineArg = line(4096);

export const startBreakpoint = z.strictObject({
  location: line(1024).describe('Location.'),
  condition: line(1024).optional().describe('If true.'),
  temporary: z.boolean().optional().describe('One hit.'),
});

const input = z.strictObject({
  program: line(4096).optional().describe('Executable.'),
  args: z.array(oneLineArg).max(64).optional().describe('Literal argv[1..].'),
  cwd: line(4096).optional().describe('Default: workspace root.'),
  env: programEnv.optional(),
  stdin: z.string().max(1_000_000).optional().describe('Typed into its terminal.'),
  stdin_eof: z.boolean().optional().describe('Then EOF (default true).'),
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
  backend: z.enum(['gdb', 'rr']).optional().describe('rr replays trace.'),
  record: z.boolean().optional().describe('Record from main, for reverse_* (slow).'),
  ...targetFields,
});

const output = z.object({
  session_id: z.string(),
  program: z.string(),
  debugger: z.string(),
  target: z.looseObject({}).optional(),
  breakpoints: z.array(z.looseObject({})).optional(),
  ...runOutputFields,
  // no-run answers before any run: no outcome yet.
  outcome: runOutputFields.outcome.optional(),
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
    if (wantsTarget(args)) return startTarget(args, ctx, { installBreakpoints, startRun });
    if (args.program === undefined) {
      throw new DebuggerError('invalid_argument', 'program: required (or core with program, attach, or remote)', {
        field: 'program',
      });
    }
    const roots = ctx.config.roots;
    const program = await resolveProgram(args.program, roots);
    await checkLaunchable(program);
    const cwd = args.cwd !== undefined ? await resolveDirectory(args.cwd, roots, 'cwd') : roots[0];
    ctx.progress(0, 'starting the debugger');
    const { session, report } = await ctx.sessions.launch(
      {
        program,
        args: args.args ?? [],
        ...(cwd ? { cwd } : {}),
        ...(args.record ? { env: recordEnvironment(args.env) } : args.env ? { env: args.env } : {}),
      },
      ctx.signal,
    );
    const warnings = [...report.warnings];
    try {
      if (args.forks) await configureForks(session, args.forks, ctx.signal);
      const installed = await installBreakpoints(session, args.breakpoints ?? [], warnings, ctx.signal);
      const header = `${program}${args.args?.length ? ` ${args.args.map((a) => JSON.stringify(a)).join(' ')}` : ''} under ${session.backend.info.version}`;
      const extra = compact({
        session_id: session.id,
        program,
        debugger: session.backend.info.version,
        breakpoints: installed.length > 0 ? installed.map(breakpointWire) : undefined,
      });
      const extraText = [header, ...installed.map(renderBreakpoint)];
      const stop = args.stop ?? 'none';
      if (stop === 'no-run') {
        return {
          data: extra,
          text: [...extraText, 'loaded; not started (dbg_run action=run starts it)'].join('\n'),
          session,
          warnings,
        };
      }
      ctx.progress(0, 'running the program');
      const outcome = args.record
        ? await startRecorded(
            session,
            stop,
            (mode) => startRun(session, mode, args, ctx, warnings),
            (ms) =>
              session.run({ action: 'continue', timeoutMs: ms, onTimeout: args.on_timeout ?? 'interrupt' }, ctx.signal),
            args.timeout_ms ?? ctx.config.runTimeoutMs,
            warnings,
            ctx.signal,
          )
        : await startRun(session, stop, args, ctx, warnings);
      const answer = await runAnswer(session, outcome, {
        ...planOf(args),
        outputCursor: 0,
        signal: ctx.signal,
        extra,
        extraText,
      });
      return { ...answer, warnings };
    } catch (e) {
      // A start that fails leaves nothing behind.
      await ctx.sessions.close(session.id);
      throw e;
    }
  },
});

async function installBreakpoints(
  session: Session,
  specs: readonly z.infer<typeof startBreakpoint>[],
  warnings: string[],
  signal: AbortSignal,
): Promise<Breakpoint[]> {
  const installed: Breakpoint[] = [];
  for (const spec of specs) {
    try {
      const bp = await session.mutate(
        ['loaded', 'stopped'],
        'set a breakpoint',
        (b) =>
          b.insertBreakpoint(
            {
              kind: 'breakpoint',
              location: spec.location,
              ...(spec.condition ? { condition: spec.condition } : {}),
              ...(spec.temporary ? { temporary: true } : {}),
            },
            signal,
          ),
        signal,
      );
      session.apply({ type: 'breakpoint-changed', breakpoint: bp });
      installed.push(bp);
      if (bp.pending) {
        warnings.push(
          `breakpoint ${bp.number} at ${spec.location} is pending: no such location in the program yet (a typo, or code in a library not loaded yet)`,
        );
      }
    } catch (e) {
      warnings.push(`breakpoint at ${spec.location} not set: ${(e as Error).message}`);
    }
  }
  return installed;
}

async function startRun(
  session: Session,
  stop: 'none' | 'main' | 'entry',
  args: { stdin?: string; stdin_eof?: boolean; timeout_ms?: number; on_timeout?: 'return' | 'interrupt' },
  ctx: { config: { runTimeoutMs: number }; signal: AbortSignal; progress: (p: number, m: string) => void },
  warnings: string[],
): Promise<RunOutcome> {
  const timeoutMs = args.timeout_ms ?? ctx.config.runTimeoutMs;
  const onProgress = (ms: number): void => ctx.progress(ms, `running for ${Math.round(ms / 1000)} s`);
  const request = {
    action: 'run' as const,
    startMode: stop,
    timeoutMs,
    onTimeout: args.on_timeout ?? ('interrupt' as const),
    onProgress,
  };
  let pending: Promise<RunOutcome>;
  try {
    pending = session.run(request, ctx.signal);
    pending.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
    if (args.stdin !== undefined || args.stdin_eof === true) {
      await feedStdin(session, args.stdin ?? '', args.stdin_eof ?? true);
    }
    return await pending;
  } catch (e) {
    if (stop === 'main' && e instanceof DebuggerError && /main|symbol/i.test(e.message)) {
      warnings.push(`could not stop at main (${e.message}); ran without stopping`);
      return session.run({ ...request, startMode: 'none' }, ctx.signal);
    }
    throw e;
  }
}

/** Types text into the program's terminal once the run has begun, then end-of-file if asked. */
async function feedStdin(session: Session, text: string, eof: boolean): Promise<void> {
  if (text.length > 0) await session.backend.writeStdin(text);
  if (eof) await session.backend.sendEof();
}
