import { isAbsolute, relative, resolve } from 'node:path';
import * as z from 'zod/v4';
import { rrRecorder } from '../../backends/registry.js';
import { childEnvironment } from '../../process/childEnvironment.js';
import { DebuggerError } from '../../util/errors.js';
import { backendPaths } from '../config.js';
import { defineTool } from '../defineTool.js';
import { checkProgramEnvironment } from '../envPolicy.js';
import { resolveDirectory, resolveProgram } from '../paths.js';
import { printable, quotedLines } from '../render.js';
import { line, programEnv, timeoutMs } from '../schemas.js';
import { compact } from '../wire.js';

const input = z.strictObject({
  program: line(4096).describe('Executable.'),
  args: z
    .array(
      z
        .string()
        .max(4096)
        .refine((s) => !s.includes('\0'), 'must not contain NUL'),
    )
    .max(64)
    .optional()
    .describe('Literal argv[1..].'),
  cwd: line(4096).optional().describe('Default: workspace root.'),
  env: programEnv.optional(),
  stdin: z.string().max(1_000_000).optional().describe('Its standard input.'),
  chaos: z.boolean().optional().describe('rr --chaos: races show more.'),
  timeout_ms: timeoutMs.optional(),
});

const output = z.object({
  trace: z.string().describe('The recording: give it to dbg_start trace.'),
  exit_code: z.number().optional().describe('Absent when a signal ended the run.'),
  signal: z.string().optional(),
  timed_out: z.boolean().optional().describe('Present (true) when the deadline ended the recording.'),
  output: z.object({
    text: z.string(),
    dropped: z.number().optional().describe('Bytes before the kept tail; absent when none.'),
  }),
  processes: z
    .array(
      z.object({
        pid: z.number(),
        ppid: z.number().optional(),
        exit: z.number().optional(),
        command: z.string(),
      }),
    )
    .optional()
    .describe('The processes the recording holds; absent when the recorder could not list them.'),
});

export const recordTool = defineTool({
  name: 'dbg_record',
  title: 'Record with rr',
  description:
    'Records a run with rr (argv, no shell). Replay it forwards and backwards with dbg_start backend=rr trace=…; dbg://traces lists recordings.',
  input,
  output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  async run(args, ctx) {
    const paths = backendPaths(ctx.config);
    if (!rrRecorder.available(paths)) {
      throw new DebuggerError(
        'backend_unavailable',
        'rr is not installed (apt-get install rr); dbg_start record=true records with GDB instead',
      );
    }
    const roots = ctx.config.roots;
    const program = await resolveProgram(args.program, roots);
    const cwd = args.cwd !== undefined ? await resolveDirectory(args.cwd, roots, 'cwd') : roots[0];
    // As for dbg_start: loader variables name paths under the roots only.
    if (args.env) await checkProgramEnvironment(args.env, { roots, program, cwd: cwd ?? process.cwd() });
    ctx.progress(0, 'recording with rr');
    const env = { ...childEnvironment(process.env, ctx.config.passthroughEnv), ...(args.env ?? {}) };
    const rec = await rrRecorder.record(paths, {
      argv: [program, ...(args.args ?? [])],
      ...(cwd ? { cwd } : {}),
      env,
      directory: ctx.config.rrTraceDir,
      ...(args.stdin !== undefined ? { stdin: args.stdin } : {}),
      timeoutMs: args.timeout_ms ?? ctx.config.runTimeoutMs,
      signal: ctx.signal,
      ...(args.chaos ? { chaos: true } : {}),
    });
    const trace = isAbsolute(rec.trace) ? rec.trace : resolve(cwd ?? '.', rec.trace);
    const listed = (await rrRecorder.list(paths, ctx.config.rrTraceDir, 20)).find(
      (t) => relative(t.path, trace) === '',
    );
    const text = [
      `recorded ${program} into ${trace} in ${rec.durationMs} ms`,
      rec.timedOut
        ? `stopped at the ${args.timeout_ms ?? ctx.config.runTimeoutMs} ms deadline (the trace holds the run so far)`
        : rec.signal
          ? `ended by ${rec.signal}`
          : `exit code ${rec.exitCode ?? '?'}`,
      ...(listed?.processes ?? []).map(
        (p) => `process ${p.pid}${p.exit !== undefined ? ` exit ${p.exit}` : ''}: ${printable(p.command)}`,
      ),
      ...(rec.output ? ['output (last lines):', ...quotedLines(rec.output.trimEnd()).slice(-12)] : []),
      `next: dbg_start backend=rr trace=${JSON.stringify(trace)}`,
    ];
    return {
      data: compact({
        trace,
        exit_code: rec.exitCode ?? undefined,
        signal: rec.signal,
        timed_out: rec.timedOut || undefined,
        output: compact({ text: rec.output, dropped: rec.outputDropped || undefined }),
        processes: listed?.processes,
      }),
      text: text.join('\n'),
    };
  },
});
