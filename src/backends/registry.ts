// The registry: every backend by kind, how to create one for a target, what each can do, its
// doctor lines, and the services of a kind that are not a session (rr's recorder). Adding a
// debugger is a folder under src/backends/ and one entry in FACTORIES below.

import { childEnvironment } from '../process/childEnvironment.js';
import type { TranscriptWriter } from '../protocols/mi/miConnection.js';
import { DebuggerError } from '../util/errors.js';
import { findOnPath } from '../util/which.js';
import type {
  BackendCapabilities,
  BackendKind,
  DebuggerBackend,
  DoctorCheck,
  DoctorOptions,
  ShareEntry,
  ShareListing,
  TargetSpec,
} from './debuggerBackend.js';
import { GDB_CAPABILITIES, GdbBackend } from './gdb/gdbBackend.js';
import { gdbDoctor } from './gdb/gdbDoctor.js';
import { probeMachineOnce } from './gdb/gdbHardwareProbe.js';
import { chooseGdb, foreignArchitecture } from './gdb/gdbTargets.js';
import { LLDB_CAPABILITIES, LldbBackend, type LldbBackendOptions } from './lldb/lldbBackend.js';
import type { WatchpointVerdict } from './lldb/lldbContext.js';
import { lldbDoctor } from './lldb/lldbDoctor.js';
import { findLldbDap } from './lldb/lldbPath.js';
import { DebuggerPool, type PoolBinding, type PoolStats, type Preparer } from './pool/debuggerPool.js';
import { RR_CAPABILITIES, RrBackend } from './rr/rrBackend.js';
import { rrDoctor } from './rr/rrDoctor.js';
import { type RrRecording, recordWithRr } from './rr/rrRecord.js';
import { defaultTraceRoot, listTraces, type TraceEntry } from './rr/rrTraces.js';
import { joinShare, listShares } from './shares/shareRegistry.js';
import { readPeHeader } from './winedbg/peFile.js';
import { type AttachPolicySetting, checkAttachPolicy } from './winedbg/windowsAttach.js';
import { WINEDBG_CAPABILITIES, WinedbgBackend } from './winedbg/winedbgBackend.js';
import { winedbgDoctor } from './winedbg/winedbgDoctor.js';
import { findWineTools } from './winedbg/winePrefix.js';
import { wineServices } from './winedbg/wineServices.js';

// The machine's probed debugging hardware (hardware watchpoints and breakpoints, inferior calls),
// for the server to start and for any backend to consult.
export { configureMachineProbe, type MachineProbe, machineProbe, startMachineProbe } from './machineProbe.js';
export type { DebuggerPool, PoolStats };

/** What every backend of a session is created with: the operator's settings and the session's. */
export interface BackendOptions {
  /** Executables the operator configured, by backend (`--gdb`, `--lldb-dap`, …). */
  paths: Readonly<Partial<Record<BackendKind, string>>>;
  /** Variables of the server's environment passed on to debuggers and programs. */
  passthroughEnv?: readonly string[];
  /** Deadline of one debugger command (ms). */
  commandTimeoutMs?: number;
  allowInferiorCalls?: boolean;
  /** Bytes of program output kept per session. */
  outputCapacity?: number;
  /** Resolved directories whose files answers may quote as source (undefined: any). */
  sourceRoots?: readonly string[];
  /** Every line to and from the debugger, when a transcript is kept. */
  transcript?: TranscriptWriter;
  /** How long opening the target may wait for a server it starts (rr's replay server). */
  openTimeoutMs?: number;
  /**
   * Told after a close swept for processes the program left behind (forked children the debugger
   * let go), with how many it killed: 0 when none (for /metrics).
   */
  onSweep?: (killed: number) => void;
  /** Who opens the session (the MCP client's name): a person's share is told who joins it. */
  client?: string;
  /**
   * The server's --attach-pids, for a backend whose pids are not this machine's (winedbg's are
   * Windows pids, checked against the policy in its own terms). Default: own.
   */
  attachPids?: AttachPolicySetting;
  /** A Wine prefix of the operator's own for the winedbg backend (default: ours, in the cache). */
  winePrefix?: string;
}

interface BackendFactory {
  capabilities: BackendCapabilities;
  /** One line for the guide and the doctor: what this backend is. */
  summary: string;
  create(options: BackendOptions, target: TargetSpec): Promise<DebuggerBackend>;
  doctor(options: DoctorOptions): Promise<DoctorCheck[]>;
  /**
   * A debugger started with the server's settings and nothing loaded, for the pool: what `create`
   * makes for a `poolable` target, but the session's own transcript and sweep counter come later.
   */
  prepare?(options: BackendOptions, binding: Required<PoolBinding>): Promise<DebuggerBackend>;
  /** Whether `target` can take a prepared debugger; what `create` would refuse is refused here. */
  poolable?(options: BackendOptions, target: TargetSpec): Promise<boolean>;
}

function invalid(field: string, message: string): DebuggerError {
  return new DebuggerError('invalid_argument', `${field}: ${message}`, { field });
}

/** The settings every debugger process of the server gets, whichever its kind. */
function processOptions(options: BackendOptions) {
  return {
    env: childEnvironment(process.env, options.passthroughEnv),
    ...(options.commandTimeoutMs !== undefined ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
    ...(options.allowInferiorCalls !== undefined ? { allowInferiorCalls: options.allowInferiorCalls } : {}),
    ...(options.outputCapacity !== undefined ? { outputCapacity: options.outputCapacity } : {}),
    ...(options.sourceRoots ? { sourceRoots: options.sourceRoots } : {}),
    ...(options.transcript ? { transcript: options.transcript } : {}),
  };
}

function gdbOptions(options: BackendOptions, gdbPath: string) {
  return {
    gdbPath,
    ...processOptions(options),
    ...(options.onSweep ? { onSweep: options.onSweep } : {}),
  };
}

/** A launch here: the program runs on this machine, on a terminal of its own. */
function localLaunch(target: TargetSpec): boolean {
  return target.kind === 'launch' && target.remote === undefined;
}

/** A program of another architecture cannot run here: said before any gdb starts. */
async function refuseForeign(target: TargetSpec): Promise<void> {
  const program = target.program?.program;
  if (!localLaunch(target) || program === undefined) return;
  const arch = await foreignArchitecture(program);
  if (arch !== undefined) {
    throw invalid(
      'program',
      `${program} is built for ${arch}, which gdb cannot run on this machine: start it under QEMU user mode (qemu-aarch64 -g PORT for AArch64) or under gdbserver on an ${arch} machine, then dbg_start with program and remote=host:PORT`,
    );
  }
}

const gdbFactory: BackendFactory = {
  capabilities: GDB_CAPABILITIES,
  summary: 'GNU GDB through GDB/MI: launch, cores, attach, gdbserver and QEMU remotes, record full',
  async create(options, target) {
    const configured = options.paths.gdb ?? 'gdb';
    const program = target.program?.program;
    const local = localLaunch(target);
    await refuseForeign(target);
    const env = childEnvironment(process.env, options.passthroughEnv);
    // A program of another architecture (a core, a QEMU stub) may need gdb-multiarch.
    const chosen = local ? { gdbPath: configured } : await chooseGdb(configured, program, env);
    return GdbBackend.launch(
      { ...gdbOptions(options, chosen.gdbPath), ...(chosen.note ? { note: chosen.note } : {}) },
      { terminal: local },
    );
  },
  doctor: gdbDoctor,
  // A local launch only: the others pick their gdb by the program (gdb-multiarch) and need no terminal.
  prepare: (options, binding) => GdbBackend.prepare({ ...gdbOptions(options, options.paths.gdb ?? 'gdb'), ...binding }),
  async poolable(_options, target) {
    if (!localLaunch(target)) return false;
    await refuseForeign(target);
    return true;
  },
};

/** Whether hardware watchpoints fire here: the machine probe (one short gdb run per server), when gdb is there. */
function watchpointProbe(options: {
  paths: BackendOptions['paths'];
  passthroughEnv?: readonly string[] | undefined;
}): () => Promise<WatchpointVerdict> {
  return async () => {
    const gdb = options.paths.gdb ?? findOnPath(['gdb']);
    if (!gdb) return { verdict: 'unknown', detail: 'gdb, which runs the machine probe, is not installed' };
    const probe = await probeMachineOnce({ gdbPath: gdb, env: childEnvironment(process.env, options.passthroughEnv) });
    return { verdict: probe.hardware.watchpoints, detail: probe.hardware.detail };
  };
}

/** The least time an LLDB session gets to start its program (a pooled lldb-dap has exactly this). */
const LLDB_START_MS = 30_000;

/** lldb-dap as the server's settings ask, or the reason it cannot be found. */
function lldbOptions(options: BackendOptions): LldbBackendOptions {
  const path = findLldbDap(options.paths.lldb);
  if (!path) {
    throw new DebuggerError(
      'backend_unavailable',
      options.paths.lldb
        ? `lldb-dap not found at ${options.paths.lldb}`
        : 'lldb-dap is not installed: apt-get install lldb-22 (it provides lldb-dap-22), or --lldb-dap PATH',
    );
  }
  return {
    lldbDapPath: path,
    ...processOptions(options),
    ...(options.openTimeoutMs !== undefined ? { startTimeoutMs: Math.max(options.openTimeoutMs, LLDB_START_MS) } : {}),
    watchpointProbe: watchpointProbe(options),
  };
}

const lldbFactory: BackendFactory = {
  capabilities: LLDB_CAPABILITIES,
  summary: 'LLDB through lldb-dap (DAP): launch, cores, attach, gdb-remote; no reverse execution',
  create: (options) => LldbBackend.launch(lldbOptions(options)),
  doctor: (options) => lldbDoctor({ ...options, watchpointProbe: watchpointProbe(options) }),
  // lldb-dap started and initialized (0.26-0.7 s measured), the target to come with open().
  prepare: (options, binding) => LldbBackend.launch({ ...lldbOptions(options), transcript: binding.transcript }),
  async poolable(options, target) {
    // A session that asks for a longer start than a pooled lldb-dap was given starts its own.
    return localLaunch(target) && (options.openTimeoutMs ?? 0) <= LLDB_START_MS;
  },
};

function rrPath(options: { paths: BackendOptions['paths'] }): string | undefined {
  return options.paths.rr ?? findOnPath(['rr']);
}

const rrFactory: BackendFactory = {
  capabilities: RR_CAPABILITIES,
  summary: 'rr replay through GDB/MI: a recording runs forwards and backwards, deterministically',
  async create(options, target) {
    const rr = rrPath(options);
    if (!rr) throw new DebuggerError('backend_unavailable', 'rr is not installed (apt-get install rr)');
    if (target.kind !== 'replay') throw invalid('trace', 'the rr backend replays a trace: give trace');
    const gdb = await GdbBackend.launch(gdbOptions(options, options.paths.gdb ?? 'gdb'));
    return new RrBackend(gdb, {
      rrPath: rr,
      env: childEnvironment(process.env, options.passthroughEnv),
      timeoutMs: options.openTimeoutMs ?? 30_000,
    });
  },
  doctor: rrDoctor,
};

const winedbgFactory: BackendFactory = {
  capabilities: WINEDBG_CAPABILITIES,
  summary:
    "Windows programs under Wine: GDB through winedbg --gdb (launch with output on dbg_io, attach by Windows pid), winedbg's prompt for Wine facts",
  async create(options, target) {
    // What can be refused without starting anything: no Wine, not a Windows program, no pid.
    const tools = findWineTools();
    if ('missing' in tools) {
      throw new DebuggerError(
        'backend_unavailable',
        `Wine is not installed (${tools.missing.join(', ')} not found): apt-get install -y --no-install-recommends wine wine64 gcc-mingw-w64-x86-64-win32`,
      );
    }
    if (target.kind === 'launch') readPeHeader(target.program.program);
    if (target.kind === 'attach') checkAttachPolicy(target.pid, options.attachPids ?? 'own');
    wineServices.configure({
      ...(options.winePrefix !== undefined ? { prefixDir: options.winePrefix } : {}),
      ...(options.passthroughEnv ? { passthrough: options.passthroughEnv } : {}),
    });
    // Calls into a Windows program give wrong answers (System V arguments): off whatever the operator says.
    const gdb = await GdbBackend.launch(
      { ...gdbOptions(options, options.paths.gdb ?? 'gdb'), allowInferiorCalls: false },
      { terminal: target.kind === 'launch' },
    );
    return new WinedbgBackend(gdb, {
      services: wineServices,
      attachPolicy: options.attachPids ?? 'own',
      openTimeoutMs: Math.max(options.openTimeoutMs ?? 0, 120_000),
    });
  },
  doctor: (options) => winedbgDoctor(options, wineServices),
};

const FACTORIES: Partial<Record<BackendKind, BackendFactory>> = {
  gdb: gdbFactory,
  lldb: lldbFactory,
  rr: rrFactory,
  winedbg: winedbgFactory,
};

/** The backends this build has, in registry order (dbg_start's `backend` choices). */
export function backendKinds(): [BackendKind, ...BackendKind[]] {
  const kinds = Object.keys(FACTORIES) as BackendKind[];
  if (kinds[0] === undefined) throw new Error('no backend is registered');
  return [kinds[0], ...kinds.slice(1)];
}

function factory(kind: BackendKind): BackendFactory {
  const f = FACTORIES[kind];
  if (!f) throw new DebuggerError('backend_unavailable', `the ${kind} backend is not available in this build`);
  return f;
}

export function capabilitiesOf(kind: BackendKind): BackendCapabilities {
  return factory(kind).capabilities;
}

/**
 * A pool of debuggers started ahead of sessions (pool/debuggerPool.ts), with the server's backend
 * settings: `warm` per kind that served a session in the last 10 minutes, 0 for none.
 */
export function createDebuggerPool(options: BackendOptions, warm: number): DebuggerPool {
  const preparers: Partial<Record<BackendKind, Preparer>> = {};
  for (const [kind, f] of Object.entries(FACTORIES) as [BackendKind, BackendFactory][]) {
    const prepare = f.prepare;
    if (prepare) preparers[kind] = (binding) => prepare(options, binding);
  }
  return new DebuggerPool({ warm, preparers });
}

/**
 * A backend of `kind`, started and ready to open `target` (which it may use to pick its binary):
 * from `pool` when it has one ready for such a target, else started now.
 */
export async function createBackend(
  kind: BackendKind,
  options: BackendOptions,
  target: TargetSpec,
  pool?: DebuggerPool,
): Promise<DebuggerBackend> {
  if (pool?.serves(kind) && target.kind !== 'joined' && (await factory(kind).poolable?.(options, target))) {
    const ready = pool.take(kind, { transcript: options.transcript, onSweep: options.onSweep });
    if (ready) return ready;
  }
  return startBackend(kind, options, target);
}

function startBackend(kind: BackendKind, options: BackendOptions, target: TargetSpec): Promise<DebuggerBackend> {
  // A person's debugger is not started here: it is joined, whichever debugger it is.
  if (target.kind === 'joined') {
    return joinShare(target.share, {
      ...(options.commandTimeoutMs !== undefined ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
      ...(options.transcript ? { transcript: options.transcript } : {}),
      ...(options.client !== undefined ? { client: options.client } : {}),
    });
  }
  const f = factory(kind);
  if (!f.capabilities.targets.includes(target.kind)) {
    throw new DebuggerError(
      'backend_unavailable',
      `the ${kind} backend cannot open a ${target.kind} target (it opens: ${f.capabilities.targets.join(', ')})`,
    );
  }
  return f.create(options, target);
}

/** Every backend's doctor lines, run side by side. */
export async function runDoctor(options: DoctorOptions): Promise<DoctorCheck[]> {
  const results = await Promise.all(Object.values(FACTORIES).map((f) => f.doctor(options)));
  return results.flat();
}

/**
 * Services some backends keep for the whole server (winedbg's Wine prefix and its wineserver):
 * ended on the server's orderly end. Nothing to do for a server that never started them.
 */
export function closeBackendServices(): Promise<void> {
  return wineServices.close();
}

// ---- a person's own debugger --------------------------------------------------------------

/** The debuggers people share on this machine (their own user's), and the registry files passed over. */
export function findShares(): Promise<ShareListing> {
  return listShares();
}

/** One share by id, as listed now; undefined when it is not (or no longer) shared. */
export async function findShare(id: string): Promise<{ share?: ShareEntry; listing: ShareListing }> {
  const listing = await listShares();
  const share = listing.shares.find((s) => s.id === id);
  return { ...(share ? { share } : {}), listing };
}

// ---- recording (rr) ---------------------------------------------------------------------

export interface RecordRequest {
  /** argv[0] is the program (an absolute path). */
  argv: readonly string[];
  cwd?: string;
  /** The whole environment of the recorder and the program (already filtered). */
  env: Record<string, string>;
  /** Where recordings go. */
  directory: string;
  stdin?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Vary the threads' scheduling on purpose (rr --chaos), for a race that hides. */
  chaos?: boolean;
}

export type Recording = RrRecording;
export type RecordingEntry = TraceEntry;

/** Records runs for replay (rr): not a session of its own, a service of its backend kind. */
export interface Recorder {
  /** The recorder's executable, or undefined when it is not installed. */
  available(paths: BackendOptions['paths']): string | undefined;
  /** Where recordings go and are listed from by default. */
  defaultDirectory(env: NodeJS.ProcessEnv): string;
  record(paths: BackendOptions['paths'], request: RecordRequest): Promise<Recording>;
  list(paths: BackendOptions['paths'], directory: string, limit: number): Promise<RecordingEntry[]>;
}

export const rrRecorder: Recorder = {
  available: (paths) => rrPath({ paths }),
  defaultDirectory: defaultTraceRoot,
  record(paths, request) {
    const rr = rrPath({ paths });
    if (!rr)
      return Promise.reject(new DebuggerError('backend_unavailable', 'rr is not installed (apt-get install rr)'));
    return recordWithRr({
      rrPath: rr,
      argv: request.argv,
      ...(request.cwd ? { cwd: request.cwd } : {}),
      env: { ...request.env, _RR_TRACE_DIR: request.directory },
      ...(request.stdin !== undefined ? { stdin: request.stdin } : {}),
      timeoutMs: request.timeoutMs,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.chaos ? { chaos: true } : {}),
    });
  },
  list(paths, directory, limit) {
    const rr = rrPath({ paths });
    return listTraces(directory, { ...(rr ? { rrPath: rr } : {}), limit });
  },
};
