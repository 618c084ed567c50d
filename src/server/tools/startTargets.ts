// dbg_start on a target it does not launch: `core` (with program), `attach` (a pid), `remote`
// (a gdbserver or QEMU stub; `extended` has gdbserver --multi run the program, and `attach`
// with `remote` attaches through it),
// plus `sysroot` and `forks`. Paths are checked against the workspace roots and pids and hosts
// against the operator's policy before any debugger starts.

import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import * as z from 'zod/v4';
import type { Breakpoint } from '../../model/model.js';
import type { RunOutcome, Session } from '../../session/session.js';
import { foreignArchitecture, openTarget, type TargetRequest } from '../../session/sessionTargets.js';
import { DebuggerError } from '../../util/errors.js';
import { findOnPath } from '../../util/which.js';
import type { Answer } from '../answer.js';
import type { ToolContext } from '../defineTool.js';
import { resolveDirectory, resolveInRoots, resolveProgram } from '../paths.js';
import { checkAttachAllowed, checkRemoteAllowed } from '../policy.js';
import { renderBreakpoint } from '../render.js';
import { line } from '../schemas.js';
import { breakpointWire, compact } from '../wire.js';
import { planOf, runAnswer } from './runAnswer.js';

/** dbg_start's target fields (descriptions terse: tools/list is paid for on every turn). */
export const targetFields = {
  core: line(4096).optional().describe('Core file.'),
  attach: z.number().int().min(2).max(4_194_304).optional().describe('Pid to attach.'),
  remote: line(300).optional().describe('gdbserver/qemu -g host:port.'),
  extended: z.boolean().optional().describe('gdbserver --multi: runs program.'),
  sysroot: line(4096).optional().describe('Target libs.'),
  forks: z.enum(['parent', 'child', 'both']).optional().describe('Follow at fork.'),
  trace: line(4096).optional().describe('rr trace to replay.'),
  pid: z.number().int().min(1).max(4_194_304).optional().describe('rr: process of the trace.'),
};

export interface TargetArgs {
  program?: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string;
  stdin_eof?: boolean;
  breakpoints?: { location: string; condition?: string; temporary?: boolean }[];
  stop?: 'none' | 'main' | 'entry' | 'no-run';
  inspect?: readonly string[];
  stack_depth?: number;
  include_locals?: boolean;
  timeout_ms?: number;
  on_timeout?: 'return' | 'interrupt';
  record?: boolean;
  core?: string;
  attach?: number;
  remote?: string;
  extended?: boolean;
  sysroot?: string;
  forks?: 'parent' | 'child' | 'both';
  backend?: 'gdb' | 'rr';
  trace?: string;
  pid?: number;
}

/** What dbg_start's launch path lends this one, passed in to keep the two files acyclic. */
export interface LaunchHelpers {
  installBreakpoints(
    session: Session,
    specs: NonNullable<TargetArgs['breakpoints']>,
    warnings: string[],
    signal: AbortSignal,
  ): Promise<Breakpoint[]>;
  startRun(
    session: Session,
    stop: 'none' | 'main' | 'entry',
    args: TargetArgs,
    ctx: ToolContext,
    warnings: string[],
  ): Promise<RunOutcome>;
}

/** Whether dbg_start goes this way: any target field, so that each gets checked here. */
export function wantsTarget(args: TargetArgs): boolean {
  return (
    args.core !== undefined ||
    args.attach !== undefined ||
    args.remote !== undefined ||
    args.extended !== undefined ||
    args.sysroot !== undefined ||
    args.backend === 'rr' ||
    args.trace !== undefined ||
    args.pid !== undefined
  );
}

function invalid(field: string, message: string): DebuggerError {
  return new DebuggerError('invalid_argument', `${field}: ${message}`, { field });
}

/** Refuses combinations that cannot mean anything, naming the field and what to do. */
export function checkTargetArgs(args: TargetArgs): void {
  if (args.sysroot !== undefined && args.core === undefined && args.attach === undefined && args.remote === undefined) {
    throw invalid(
      'sysroot',
      "is for a core, an attach or a remote target (a local program uses this machine's libraries)",
    );
  }
  if (args.extended && args.remote === undefined)
    throw invalid('extended', 'needs remote (host:port of gdbserver --multi)');
  if (args.core !== undefined) {
    if (args.attach !== undefined || args.remote !== undefined) {
      throw invalid('core', 'a core is opened alone: give core with program, without attach or remote');
    }
    if (args.program === undefined)
      throw invalid('program', 'a core needs the program that dumped it, for its symbols');
    if (args.breakpoints?.length) throw invalid('breakpoints', 'a core does not run, so no breakpoint can be hit');
  }
  if (args.remote !== undefined && args.extended && args.attach === undefined && args.program === undefined) {
    throw invalid('extended', 'give program (to run through gdbserver --multi) or attach (a pid over there)');
  }
  if (args.stdin !== undefined || args.stdin_eof !== undefined) {
    throw invalid('stdin', 'only a program launched here has a terminal to type into; this target keeps its own');
  }
  if (args.record) throw invalid('record', 'recording works on a program launched here (no core, attach or remote)');
  const replay = args.backend === 'rr' || args.trace !== undefined;
  if (replay && args.trace === undefined)
    throw invalid('trace', 'backend=rr replays a trace: give trace (dbg://traces lists them)');
  if (args.pid !== undefined && !replay) throw invalid('pid', 'selects a process of an rr trace: give trace too');
  if (replay && (args.core !== undefined || args.attach !== undefined || args.remote !== undefined)) {
    throw invalid('trace', 'a replay stands alone: no core, attach or remote with it');
  }
}

/** A launch of a program for another architecture: refused, with the way that works. */
export async function checkLaunchable(program: string): Promise<void> {
  const arch = await foreignArchitecture(program);
  if (arch === undefined) return;
  throw invalid(
    'program',
    `${program} is built for ${arch}, which gdb cannot run on this machine: start it under QEMU user mode (qemu-aarch64 -g PORT for AArch64) or under gdbserver on an ${arch} machine, then dbg_start with program and remote=host:PORT`,
  );
}

/** A trace lies under the workspace roots or in the rr trace directory (where dbg_record puts it). */
async function resolveTrace(path: string, roots: readonly string[], traceDir: string): Promise<string> {
  const candidate = isAbsolute(path) ? path : join(traceDir, path);
  try {
    return await resolveInRoots(candidate, [traceDir], 'trace');
  } catch {
    return resolveInRoots(path, roots, 'trace');
  }
}

/** The sysroot need not lie under the roots: GDB only reads libraries from it. */
async function resolveSysroot(dir: string): Promise<string> {
  if (!isAbsolute(dir)) throw invalid('sysroot', 'give an absolute directory, e.g. /usr/aarch64-linux-gnu');
  const real = await realpath(dir).catch(() => {
    throw invalid('sysroot', `${dir} does not exist`);
  });
  if (!(await stat(real)).isDirectory()) throw invalid('sysroot', `${real} is not a directory`);
  return real;
}

export async function startTarget(args: TargetArgs, ctx: ToolContext, helpers: LaunchHelpers): Promise<Answer> {
  checkTargetArgs(args);
  const roots = ctx.config.roots;
  // Policy first: a refused pid or host is refused before anything touches the file system.
  if (args.attach !== undefined) checkAttachAllowed(args.attach, ctx.config);
  const remote = args.remote === undefined ? undefined : checkRemoteAllowed(args.remote, ctx.config).address;
  const program = args.program === undefined ? undefined : await resolveProgram(args.program, roots);
  const cwd = args.cwd !== undefined ? await resolveDirectory(args.cwd, roots, 'cwd') : roots[0];
  const load =
    program === undefined
      ? undefined
      : { program, args: args.args ?? [], ...(cwd ? { cwd } : {}), ...(args.env ? { env: args.env } : {}) };
  const common = {
    timeoutMs: args.timeout_ms ?? ctx.config.runTimeoutMs,
    ...(args.sysroot !== undefined ? { sysroot: await resolveSysroot(args.sysroot) } : {}),
    ...(args.forks ? { forks: args.forks } : {}),
  };
  let request: TargetRequest;
  let what: string;
  if (args.trace !== undefined) {
    const rrPath = findOnPath(['rr']);
    if (!rrPath) throw new DebuggerError('backend_unavailable', 'rr is not installed (apt-get install rr)');
    const trace = await resolveTrace(args.trace, roots, ctx.config.rrTraceDir);
    request = {
      kind: 'replay',
      trace,
      rrPath,
      ...(args.pid !== undefined ? { pid: args.pid } : {}),
      ...(load ? { load } : {}),
      ...common,
    };
    what = `replay of ${trace}${args.pid !== undefined ? ` (process ${args.pid})` : ''}`;
  } else if (args.core !== undefined && load) {
    const core = await resolveInRoots(args.core, roots, 'core');
    if (!(await stat(core)).isFile()) throw invalid('core', `${core} is not a file`);
    request = { kind: 'core', core, load, ...common };
    what = `core ${core} of ${load.program}`;
  } else if (args.attach !== undefined) {
    request = { kind: 'attach', pid: args.attach, ...(remote ? { remote } : {}), ...common };
    what = `attached to pid ${args.attach}${remote ? ` through ${remote}` : ''}`;
  } else if (remote !== undefined && args.extended && load) {
    request = { kind: 'launch', remote, load, ...common };
    what = `${load.program}${load.args.length ? ` ${load.args.map((a) => JSON.stringify(a)).join(' ')}` : ''} through gdbserver --multi at ${remote}`;
  } else if (remote !== undefined) {
    request = { kind: 'remote', remote, ...(load ? { load } : {}), ...common };
    what = `${load ? `${load.program} ` : ''}at ${remote}`;
  } else {
    throw invalid('program', 'give program, core (with program), attach or remote');
  }
  ctx.progress(0, 'opening the target');
  const opened = await openTarget(ctx.sessions, request, ctx.signal);
  const { session } = opened;
  const warnings = [...opened.warnings];
  if (request.kind === 'attach' && session.target.program) what += ` (${session.target.program})`;
  try {
    const installed = await helpers.installBreakpoints(session, args.breakpoints ?? [], warnings, ctx.signal);
    const generated = opened.generatedBy ? ` (generated by \`${opened.generatedBy}\`)` : '';
    const target = compact({
      kind: request.kind,
      core: request.kind === 'core' ? request.core : undefined,
      pid: args.attach,
      remote,
    });
    const extra = compact({
      session_id: session.id,
      program: session.target.program,
      debugger: session.backend.info.version,
      target,
      breakpoints: installed.length > 0 ? installed.map(breakpointWire) : undefined,
    });
    const extraText = [`${what}${generated} under ${session.backend.info.version}`, ...installed.map(renderBreakpoint)];
    let outcome = opened.outcome;
    if (request.kind === 'launch') {
      const stop = args.stop ?? 'none';
      if (stop === 'no-run') {
        return {
          data: extra,
          text: [...extraText, 'connected; not started (dbg_run action=run starts it)'].join('\n'),
          session,
          warnings,
        };
      }
      outcome = await helpers.startRun(session, stop, args, ctx, warnings);
    } else if (request.kind !== 'core' && outcome?.kind === 'stopped') {
      outcome = await goOn(session, outcome, args, ctx, request.kind === 'attach');
    }
    if (!outcome) throw new DebuggerError('internal', 'the target opened without a first stop');
    const stayed = outcome === opened.outcome;
    const answer = await runAnswer(session, outcome, {
      ...planOf(args),
      // An attach shows where every thread is, as an interrupted hang does.
      ...(request.kind === 'attach' && stayed ? { interrupted: true } : {}),
      outputCursor: 0,
      signal: ctx.signal,
      extra,
      extraText,
    });
    return { ...answer, warnings };
  } catch (e) {
    await ctx.sessions.close(session.id);
    throw e;
  }
}

/**
 * After the first stop: run on to a breakpoint, signal or exit (stop=none, a stub's default, as
 * for a launch), or to main (stop=main), or stay (stop=entry or no-run; an attach's default:
 * where the process was is the evidence).
 */
async function goOn(
  session: Session,
  first: RunOutcome,
  args: TargetArgs,
  ctx: ToolContext,
  attached: boolean,
): Promise<RunOutcome> {
  const stop = args.stop ?? (attached ? 'entry' : 'none');
  if (stop !== 'none' && stop !== 'main') return first;
  if (stop === 'main') {
    await session.mutate(
      ['stopped'],
      'set a breakpoint at main',
      (b) => b.insertBreakpoint({ kind: 'breakpoint', location: 'main', temporary: true }, ctx.signal),
      ctx.signal,
    );
  }
  ctx.progress(0, 'running the program');
  return session.run(
    {
      action: 'continue',
      timeoutMs: args.timeout_ms ?? ctx.config.runTimeoutMs,
      onTimeout: args.on_timeout ?? 'interrupt',
      onProgress: (ms) => ctx.progress(ms, `running for ${Math.round(ms / 1000)} s`),
    },
    ctx.signal,
  );
}
