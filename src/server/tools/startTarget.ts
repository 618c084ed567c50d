// What dbg_start opens, from its arguments: a program to launch (here, or through gdbserver
// --multi with `remote` and `extended`), a core (with program), a running process (`attach`, also
// through a stub), a program behind a stub (`remote`), or a recording (`trace`). Paths are checked
// against the workspace roots and pids and hosts against the operator's policy before any
// debugger starts; the result is the backend kind, the target as data, and its one-line name.

import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import * as z from 'zod/v4';
import type { BackendKind, ShareEntry, TargetSpec } from '../../backends/debuggerBackend.js';
import { capabilitiesOf, findShare, findShares } from '../../backends/registry.js';
import { assertStdinLinesFit } from '../../process/programTerminal.js';
import { DebuggerError } from '../../util/errors.js';
import type { ServerConfig } from '../config.js';
import type { ToolContext } from '../defineTool.js';
import { checkProgramEnvironment } from '../envPolicy.js';
import { resolveDirectory, resolveInRoots, resolveProgram } from '../paths.js';
import { checkAttachAllowed, checkNetworkAttach, checkRemoteAllowed } from '../policy.js';
import { line } from '../schemas.js';

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

export interface StartArgs {
  program?: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string;
  stdin_eof?: boolean;
  stdin_file?: string;
  record?: boolean;
  breakpoints?: readonly unknown[];
  core?: string;
  attach?: number;
  remote?: string;
  extended?: boolean;
  sysroot?: string;
  forks?: 'parent' | 'child' | 'both';
  backend?: BackendKind;
  trace?: string;
  pid?: number;
  join?: string;
  stop?: string;
}

export interface StartTarget {
  kind: BackendKind;
  target: TargetSpec;
  /** The target in words, for the answer's first line: "core /x/core of /x/crash". */
  what: string;
}

function invalid(field: string, message: string): DebuggerError {
  return new DebuggerError('invalid_argument', `${field}: ${message}`, { field });
}

/** Whether the call names a target other than a plain local launch: then every target field is checked. */
function wantsTarget(args: StartArgs): boolean {
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

/** Refuses combinations that cannot mean anything, naming the field and what to do. */
export function checkTargetArgs(args: StartArgs): void {
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
  if (args.stdin_file !== undefined) {
    throw invalid(
      'stdin_file',
      'only a program launched here reads its stdin from a file of ours; this target keeps its own',
    );
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

/** A trace lies under the workspace roots or in the recording directory (where dbg_record puts it). */
async function resolveTrace(path: string, roots: readonly string[], traceDir: string): Promise<string> {
  const candidate = isAbsolute(path) ? path : join(traceDir, path);
  try {
    return await resolveInRoots(candidate, [traceDir], 'trace');
  } catch {
    return resolveInRoots(path, roots, 'trace');
  }
}

/** The sysroot need not lie under the roots: the debugger only reads libraries from it. */
async function resolveSysroot(dir: string): Promise<string> {
  if (!isAbsolute(dir)) throw invalid('sysroot', 'give an absolute directory, e.g. /usr/aarch64-linux-gnu');
  const real = await realpath(dir).catch(() => {
    throw invalid('sysroot', `${dir} does not exist`);
  });
  if (!(await stat(real)).isDirectory()) throw invalid('sysroot', `${real} is not a directory`);
  return real;
}

function argvText(program: string, args: readonly string[]): string {
  return `${program}${args.length ? ` ${args.map((a) => JSON.stringify(a)).join(' ')}` : ''}`;
}

/** Loader variables of the program's env (LD_PRELOAD, …) may name paths under the roots only (envPolicy.ts). */
async function checkProgramEnv(
  args: StartArgs,
  program: string,
  cwd: string | undefined,
  roots: readonly string[],
): Promise<void> {
  if (args.env) await checkProgramEnvironment(args.env, { roots, program, cwd: cwd ?? process.cwd() });
}

/** Whether an id names a person's shared debugger (gdb-PID, lldb-PID) rather than a session. */
export function isShareId(id: string): boolean {
  return /^(gdb|lldb)-\d+$/.test(id);
}

/** Whether this client may see and join the debuggers people share (stdio always: it is the user's). */
export function mayJoin(ctx: Pick<ToolContext, 'client' | 'config'>): boolean {
  return ctx.client === 'stdio' || ctx.config.joinClients.includes(ctx.client);
}

/** What a share is, in words: "alice's gdb (pid 41) on /src/crash (pid 42), reading only". */
export function shareWords(share: ShareEntry): string {
  const program = share.program ? ` on ${share.program}${share.pid !== undefined ? ` (pid ${share.pid})` : ''}` : '';
  const access = share.access === 'control' ? 'reading and running the program' : 'reading only';
  return `${share.owner}'s ${share.debugger}${share.debuggerPid !== undefined ? ` (pid ${share.debuggerPid})` : ''}${program}, shared for ${access}`;
}

/**
 * A person's shared debugger: the roots do not apply (the program is theirs, already running),
 * and nothing else may come with it (it is opened as it stands).
 */
async function joinTarget(args: StartArgs, ctx: ToolContext, id: string): Promise<StartTarget> {
  if (!mayJoin(ctx)) {
    throw new DebuggerError(
      'invalid_argument',
      `join: client ${JSON.stringify(ctx.client)} may not join shared debuggers on this server (the operator names clients with --join-clients)`,
      { field: 'join' },
    );
  }
  const extra = (Object.keys(args) as (keyof StartArgs)[]).filter(
    (k) =>
      k !== 'join' &&
      args[k] !== undefined &&
      !['inspect', 'stack_depth', 'include_locals', 'timeout_ms', 'on_timeout'].includes(k),
  );
  if (extra.length > 0) {
    throw invalid('join', `a shared debugger is joined as it stands: drop ${extra.join(', ')}`);
  }
  const { share, listing } = await findShare(id);
  if (!share) {
    const passed = listing.ignored.find((i) => i.file.includes(id.replace(/^(gdb|lldb)-/, '')));
    const known = listing.shares.map((s) => s.id);
    throw invalid(
      'join',
      passed
        ? `${id} is not joined: ${passed.file} ${passed.why}`
        : `no share ${JSON.stringify(id)} on this machine (${known.length > 0 ? `shared now: ${known.join(', ')}` : 'none is shared now: dbg_sessions lists them'})`,
    );
  }
  return { kind: share.debugger, target: { kind: 'joined', share }, what: `joined ${shareWords(share)}` };
}

/** Checks and resolves everything dbg_start names; nothing has started when this throws. */
export async function startTarget(args: StartArgs, ctx: ToolContext): Promise<StartTarget> {
  if (args.join !== undefined) return joinTarget(args, ctx, args.join);
  const roots = ctx.config.roots;
  const kind: BackendKind = args.trace !== undefined ? 'rr' : (args.backend ?? 'gdb');
  // Windows pids (winedbg) are not this machine's: the server's /proc check does not apply.
  if (args.attach !== undefined) checkNetworkAttach(ctx.config, ctx.client);
  if (args.attach !== undefined && capabilitiesOf(kind).pidSpace !== undefined) {
    return foreignAttachTarget({ ...args, attach: args.attach }, ctx.config);
  }
  if (!wantsTarget(args)) {
    if (args.program === undefined) {
      throw invalid('program', 'required (or core with program, attach, or remote)');
    }
    const program = await resolveProgram(args.program, roots);
    const cwd = args.cwd !== undefined ? await resolveDirectory(args.cwd, roots, 'cwd') : roots[0];
    await checkProgramEnv(args, program, cwd, roots);
    // A line the program's terminal would cut is refused now, not dropped without a word later.
    if (args.stdin !== undefined) assertStdinLinesFit(args.stdin);
    const stdinFile = args.stdin_file === undefined ? undefined : await resolveStdinFile(args, roots);
    const spec = {
      program,
      args: args.args ?? [],
      ...(cwd ? { cwd } : {}),
      ...(args.env ? { env: args.env } : {}),
      ...(stdinFile !== undefined ? { stdinFile } : {}),
    };
    return {
      kind,
      target: {
        kind: 'launch',
        program: spec,
        ...(args.record ? { record: true } : {}),
        ...(args.forks ? { forks: args.forks } : {}),
      },
      what: argvText(program, spec.args),
    };
  }
  checkTargetArgs(args);
  // Policy first: a refused pid or host is refused before anything touches the file system.
  if (args.attach !== undefined) {
    checkAttachAllowed(args.attach, ctx.config);
    await refuseSharedDebugger(args.attach);
  }
  const remote = args.remote === undefined ? undefined : checkRemoteAllowed(args.remote, ctx.config).address;
  const program = args.program === undefined ? undefined : await resolveProgram(args.program, roots);
  const cwd = args.cwd !== undefined ? await resolveDirectory(args.cwd, roots, 'cwd') : roots[0];
  if (program !== undefined) await checkProgramEnv(args, program, cwd, roots);
  const load =
    program === undefined
      ? undefined
      : { program, args: args.args ?? [], ...(cwd ? { cwd } : {}), ...(args.env ? { env: args.env } : {}) };
  const common = {
    ...(args.sysroot !== undefined ? { sysroot: await resolveSysroot(args.sysroot) } : {}),
    ...(args.forks ? { forks: args.forks } : {}),
    ...(load ? { program: load } : {}),
  };
  if (args.trace !== undefined) {
    const trace = await resolveTrace(args.trace, roots, ctx.config.rrTraceDir);
    return {
      kind,
      target: { kind: 'replay', trace, ...(args.pid !== undefined ? { pid: args.pid } : {}), ...common },
      what: `replay of ${trace}${args.pid !== undefined ? ` (process ${args.pid})` : ''}`,
    };
  }
  if (args.core !== undefined && load) {
    const core = await resolveInRoots(args.core, roots, 'core');
    if (!(await stat(core)).isFile()) throw invalid('core', `${core} is not a file`);
    return { kind, target: { kind: 'core', core, ...common, program: load }, what: `core ${core} of ${load.program}` };
  }
  if (args.attach !== undefined) {
    return {
      kind,
      target: { kind: 'attach', pid: args.attach, ...(remote ? { remote } : {}), ...common },
      what: `attached to pid ${args.attach}${remote ? ` through ${remote}` : ''}`,
    };
  }
  if (remote !== undefined && args.extended && load) {
    return {
      kind,
      target: { kind: 'launch', remote, ...common, program: load },
      what: `${argvText(load.program, load.args)} through gdbserver --multi at ${remote}`,
    };
  }
  if (remote !== undefined) {
    return {
      kind,
      target: { kind: 'remote', remote, ...common },
      what: `${load ? `${load.program} ` : ''}at ${remote}`,
    };
  }
  throw invalid('program', 'give program, core (with program), attach or remote');
}

// dbg_start attach for a backend whose pids are not this machine's (capabilities.pidSpace: the
// winedbg backend takes the Windows pids of its Wine prefix). The server's check of a Unix
// process (/proc: its uid, whether it started the server) means nothing for such a pid, so the
// server decides here only what the policy alone decides — attaching off (none), or a list,
// which names Unix pids — and the backend checks the pid in its own terms (it must name a
// program of the prefix, not one of Wine's own processes).

function refuse(field: string, why: string): never {
  throw new DebuggerError('invalid_argument', `${field}: ${why}`, { fields: [field] });
}

export function foreignAttachTarget(args: StartArgs & { attach: number }, config: ServerConfig): StartTarget {
  checkTargetArgs(args);
  if (args.remote !== undefined) refuse('remote', 'a Windows pid is attached to here, in the Wine prefix');
  if (args.program !== undefined) {
    refuse('program', "attaching by Windows pid reads the program's symbols from its modules: leave program out");
  }
  const policy = config.attachPids;
  if (policy === 'none')
    refuse('attach', 'attaching is off on this server (start it with --attach-pids own, any or a list)');
  if (Array.isArray(policy)) {
    refuse(
      'attach',
      `--attach-pids lists Unix pids, and ${args.attach} is a Windows pid (its Unix pid cannot be read from outside Wine): start the server with --attach-pids own or any to attach to Windows programs`,
    );
  }
  const kind = args.backend ?? 'gdb';
  return {
    kind,
    target: { kind: 'attach', pid: args.attach },
    what: `attached to Windows pid ${args.attach} (0x${args.attach.toString(16)})`,
  };
}

/** stdin_file: a regular file under the roots, and not with stdin (one or the other is the input). */
async function resolveStdinFile(args: StartArgs, roots: readonly string[]): Promise<string> {
  if (args.stdin !== undefined || args.stdin_eof !== undefined) {
    throw invalid('stdin_file', 'give stdin (typed into its terminal) or stdin_file (read from a file), not both');
  }
  const file = await resolveInRoots(args.stdin_file as string, roots, 'stdin_file');
  if (!(await stat(file)).isFile()) throw invalid('stdin_file', `${file} is not a regular file`);
  return file;
}

/** A debugger a person shares, or the program it debugs: joined (dbg_start join), never attached to. */
async function refuseSharedDebugger(pid: number): Promise<void> {
  const { shares } = await findShares();
  const share = shares.find((s) => s.debuggerPid === pid || s.pid === pid);
  if (share === undefined) return;
  throw new DebuggerError(
    'invalid_argument',
    `attach: ${pid} is ${share.debuggerPid === pid ? 'the debugger' : 'the program of the debugger'} ${share.owner} shares as ${share.id}: join it with dbg_start join=${JSON.stringify(share.id)} instead (attaching would take it from them)`,
    { fields: ['attach'], refusal: 'attach_policy' },
  );
}
