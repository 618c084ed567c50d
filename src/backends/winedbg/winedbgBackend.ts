// Windows programs under Wine: the GDB backend, connected to winedbg's gdb proxy, with what Wine
// needs around it (docs/notes/winedbg.md has the measurements behind each step).
//
// A launch: the .exe is checked (a PE image of a machine this Wine runs: a 32-bit one without
// wine32 is refused with the fix), the server's prefix made ready (once), and the program started
// by our launcher, held at its entry point with stdout and stderr on the session's pty and stdin
// on a pipe of ours (a program winedbg starts itself loses its output); winedbg's proxy attaches
// to it by Windows pid, GDB connects (`target remote`), the entry bytes go back, and the program
// waits there, loaded, until `start` runs it. The connect's own stop is not the session's: it is
// swallowed, so the session sees a launch as on Linux (loaded, then running, then a stop).
// An attach: the Windows pid, checked against the attach policy, is attached to the same way and
// its first stop is reported where the process was.
//
// Everything else is the GDB backend's, with these differences: the stop is read in Windows
// terms first (windowsStops.ts), function breakpoints go past the prologue GDB's PE analysis
// sometimes leaves them in, inferior calls are refused (GDB would pass arguments the System V way,
// and get wrong answers), input goes to the launcher's pipe (a pty opened by Wine as a file
// blocks reads until its buffer is full), raw commands may go to winedbg's prompt, and the end
// kills winedbg and every process of the session before GDB quits (GDB's quit would detach and
// let the program run free).

import { randomBytes } from 'node:crypto';
import type { Breakpoint, Thread } from '../../model/model.js';
import { DebuggerError } from '../../util/errors.js';
import { log } from '../../util/log.js';
import type {
  BackendCapabilities,
  BackendEvent,
  BackendInfo,
  BreakpointSpec,
  CommandOptions,
  CommandOutput,
  FrameSelector,
  LaunchSpec,
  Location,
  OpenReport,
  SetBreakpoint,
  StartMode,
  StdinReport,
  TargetRuntime,
  TargetSpec,
  ValueFormat,
} from '../debuggerBackend.js';
import { DelegatingBackend } from '../delegatingBackend.js';
import { GDB_CAPABILITIES, type GdbBackend } from '../gdb/gdbBackend.js';
import { loadProgram } from '../gdb/gdbLaunch.js';
import { connectRemote, setAttached } from '../gdb/gdbTargets.js';
import { windowsRuntime } from '../runtime/windowsRuntime.js';
import { readPeHeader } from './peFile.js';
import { checkProgram } from './programCheck.js';
import { ProgramInput } from './programInput.js';
import { proxyPeerIsOurs } from './proxyPort.js';
import { type AttachPolicySetting, checkAttachPolicy, checkWindowsAttach } from './windowsAttach.js';
import { catchAbort, functionStart } from './windowsBreakpoints.js';
import { WindowsStops } from './windowsStops.js';
import { runCommand } from './winedbgCommands.js';
import { WinedbgProxy } from './winedbgProxy.js';
import { type HeldProgram, launchHeld, stopLauncher } from './wineLauncher.js';
import type { WinePrefix } from './winePrefix.js';
import { isSharedWineProcess, prefixProcesses, sessionProcesses } from './wineProcesses.js';
import type { WineServices } from './wineServices.js';

export const WINEDBG_CAPABILITIES: BackendCapabilities = {
  ...GDB_CAPABILITIES,
  targets: ['launch', 'attach'],
  reverse: 'none',
  record: false,
  // Software watchpoints (the proxy single-steps); hardware ones are not offered: unverified
  // through the proxy, and read/access watchpoints need them.
  watchpoints: ['write'],
  softwareWatchpoints: true,
  hardwareBreakpoints: false,
  // The proxy reports no system calls, forks, library loads or C++ throws as events of their own.
  catchEvents: [],
  logpoints: true,
  forks: false,
  sysroot: false,
  saveCore: false,
  inferiorCalls: false,
  programTerminal: true,
  rawDialect: 'gdb (through winedbg --gdb); "winedbg CMD" for the Wine-dbg> prompt',
  pidSpace: 'windows',
};

const CALLS_REFUSED =
  "calling functions of a Windows program is refused on the winedbg backend: GDB would pass the arguments the Linux (System V) way, not Windows x64's, and the answer would be wrong (square(7) gave 1); read the values the call would use instead";

export interface WinedbgBackendOptions {
  services: WineServices;
  /** The server's --attach-pids, applied to Windows pids (windowsAttach.ts). */
  attachPolicy: AttachPolicySetting;
  /** How long a start may wait for Wine (a cold wineserver and prefix take seconds to a minute). */
  openTimeoutMs: number;
}

interface Running {
  proxy: WinedbgProxy;
  held: HeldProgram | undefined;
  /** A launched program's stdin (an attached one keeps its own). */
  input: ProgramInput | undefined;
}

export class WinedbgBackend extends DelegatingBackend<GdbBackend> {
  readonly capabilities = WINEDBG_CAPABILITIES;
  private readonly stops: WindowsStops;
  private readonly sessionId = `w${randomBytes(8).toString('hex')}`;
  private prefix: WinePrefix | undefined;
  private spec: LaunchSpec | undefined;
  private attached = false;
  /** The Unix pid behind an attached Windows pid, when exactly one process of the prefix runs its image. */
  private attachedUnixPid: number | undefined;
  private current: Running | undefined;
  /** The backend's own breakpoints on the C runtime's raise(SIGABRT): never listed, their stops are SIGABRT. */
  private abortBreakpoints = new Set<string>();
  /** True while GDB connects to a held program: that stop is ours, not the session's. */
  private muted = false;
  private version = 'winedbg';
  private closing: Promise<void> | undefined;

  constructor(
    gdb: GdbBackend,
    private readonly options: WinedbgBackendOptions,
  ) {
    super(gdb);
    this.stops = new WindowsStops(gdb, () => this.current?.proxy.trace);
    gdb.addStopProbe((stop) => this.stops.probe(stop));
    gdb.addStopProbe(async (stop) => {
      if (stop.reason !== 'breakpoint-hit' || stop.breakpoint === undefined) return;
      if (!this.abortBreakpoints.has(stop.breakpoint)) return;
      // As a Linux program's abort() is reported: a SIGABRT stop, for the crash view.
      stop.reason = 'signal-received';
      stop.signal = {
        name: 'SIGABRT',
        meaning: 'Aborted: raise(SIGABRT), by assert() or abort() (going on ends the program, exit code 3)',
      };
      delete stop.breakpoint;
    });
    // The program ends: its winedbg and launcher end with it, and a later start makes new ones.
    gdb.subscribe((e) => {
      if (e.type === 'exited' && this.current && !this.muted) void this.endProgram('the program exited');
    });
  }

  override get info(): BackendInfo {
    return { ...this.inner.info, kind: 'winedbg', version: `${this.inner.info.version} through ${this.version}` };
  }

  override get runtime(): TargetRuntime {
    return windowsRuntime;
  }

  override subscribe(listener: (event: BackendEvent) => void): () => void {
    return this.inner.subscribe((e) => {
      if (this.muted && (e.type === 'running' || e.type === 'stopped')) return;
      if (e.type === 'breakpoint-changed' && this.abortBreakpoints.has(e.breakpoint.number)) return;
      if (e.type === 'breakpoint-deleted' && this.abortBreakpoints.delete(e.number)) return;
      if (e.type === 'inferior-started') {
        // GDB names the process by its Windows pid; the session lists processes of this machine.
        const pid = this.programUnixPid();
        if (pid !== undefined) listener({ ...e, pid });
        return;
      }
      listener(e);
    });
  }

  /** The Unix process of the program: by the session's mark (a launch) or found at the attach. */
  private programUnixPid(): number | undefined {
    if (this.attachedUnixPid !== undefined) return this.attachedUnixPid;
    const program = this.spec?.program;
    if (program === undefined) return undefined;
    const found = sessionProcesses(this.sessionId).filter((p) => sameImage(p.command, program));
    return found.length === 1 ? found[0]?.pid : undefined;
  }

  // ---- opening ------------------------------------------------------------------------------

  async open(target: TargetSpec, signal?: AbortSignal): Promise<OpenReport> {
    this.version = await this.options.services.wineVersion();
    if (target.kind === 'launch' && target.remote === undefined) return this.openLaunch(target.program, signal);
    if (target.kind === 'attach' && target.remote === undefined) return this.openAttach(target.pid, signal);
    throw new DebuggerError(
      'invalid_argument',
      'the winedbg backend launches a Windows program (program) or attaches to one by its Windows pid (attach)',
    );
  }

  private async openLaunch(spec: LaunchSpec, signal?: AbortSignal): Promise<OpenReport> {
    if (spec.stdinFile !== undefined) {
      throw new DebuggerError(
        'invalid_argument',
        "stdin_file: winedbg starts the program on Wine's console, not from a file; give its input with stdin instead",
        { fields: ['stdin_file'] },
      );
    }
    // Not a Windows program at all: said before Wine is asked to do anything.
    const header = readPeHeader(spec.program);
    const prefix = await this.options.services.prefix();
    this.prefix = prefix;
    checkProgram(spec.program, prefix.dir);
    const warnings: string[] = [];
    if (header.subsystem === 2) {
      warnings.push(
        `${spec.program} is a GUI program: Wine runs it without a display here, so it may fail to open windows`,
      );
    }
    this.spec = spec;
    const loaded = await loadProgram(this.inner.context, { program: spec.program, args: [] }, signal);
    warnings.push(...loaded.warnings.map((w) => w.replace(/\(rebuild with -g\)/, '(rebuild with -g -gdwarf-4)')));
    await this.launch(signal);
    return { warnings, program: spec.program, reportsStop: false };
  }

  /** Starts the program held at its entry, attaches winedbg and GDB, puts the entry bytes back. */
  private async launch(signal?: AbortSignal): Promise<void> {
    const spec = this.spec as LaunchSpec;
    const prefix = this.prefix as WinePrefix;
    const outputPath = this.inner.context.terminal?.path;
    if (outputPath === undefined) throw new DebuggerError('internal', 'the program terminal is not open');
    const launcher = await this.options.services.launcher();
    const held = await launchHeld({
      prefix,
      launcher,
      program: spec.program,
      args: spec.args,
      outputPath,
      sessionId: this.sessionId,
      ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
      ...(spec.env ? { env: spec.env } : {}),
      timeoutMs: this.options.openTimeoutMs,
      ...(signal ? { signal } : {}),
    });
    let proxy: WinedbgProxy | undefined;
    try {
      proxy = await WinedbgProxy.start({
        prefix,
        target: { windowsPid: held.windowsPid },
        sessionId: this.sessionId,
        timeoutMs: this.options.openTimeoutMs,
        ...(signal ? { signal } : {}),
      });
      this.current = { proxy, held, input: new ProgramInput(held.stdin) };
      this.stops.reset(proxy.trace);
      await this.connect(proxy, true, signal);
      await this.inner.writeMemory(`0x${held.entry.toString(16)}`, held.originalBytes, signal);
      // The thread spinning at the entry point is the program's main thread.
      const { threads } = await this.inner.threads(signal);
      this.stops.mainThread = threads.find(
        (t) => t.frame?.address !== undefined && BigInt(t.frame.address) === held.entry,
      )?.id;
      // Once: GDB keeps its breakpoints for the next run of the program.
      if (this.abortBreakpoints.size === 0) {
        for (const n of await catchAbort(this.inner, signal)) this.abortBreakpoints.add(n);
      }
    } catch (e) {
      if (this.current) await this.endProgram('the start failed');
      else {
        stopLauncher(held);
        await proxy?.close();
      }
      throw e;
    }
  }

  /**
   * GDB connects to the proxy. A held launch's first stop is ours (muted until it has gone by);
   * an attach's is the session's. The one connection the proxy accepts must be GDB's: winedbg
   * listens on every address, so another process could have taken it first.
   */
  private async connect(proxy: WinedbgProxy, held: boolean, signal?: AbortSignal): Promise<void> {
    // Waited for either way: the stop reader must know, while it reads it, which stop it is.
    const firstStop = this.nextInnerStop();
    firstStop.catch(() => {});
    if (held) this.muted = true;
    try {
      await connectRemote(this.inner.context, `localhost:${proxy.port}`, false, { ...(signal ? { signal } : {}) });
      const gdbPid = this.inner.info.pid;
      if (gdbPid !== undefined && !proxyPeerIsOurs(proxy.port, gdbPid)) {
        throw new DebuggerError(
          'debugger_error',
          `another process took winedbg's one connection on port ${proxy.port} before GDB did`,
        );
      }
      await firstStop;
    } finally {
      this.muted = false;
    }
  }

  /** Resolves at the next stop the GDB backend reports (after its probes), or at a deadline. */
  private nextInnerStop(): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new DebuggerError('timeout', 'winedbg attached but reported no stop'));
      }, this.options.openTimeoutMs);
      timer.unref();
      const off = this.inner.subscribe((e) => {
        if (e.type !== 'stopped' && e.type !== 'died') return;
        clearTimeout(timer);
        off();
        if (e.type === 'died') reject(new DebuggerError('debugger_error', e.reason));
        else resolve();
      });
    });
  }

  private async openAttach(pid: number, signal?: AbortSignal): Promise<OpenReport> {
    checkAttachPolicy(pid, this.options.attachPolicy);
    const services = this.options.services;
    this.prefix = await services.prefix();
    const found = checkWindowsAttach(pid, this.options.attachPolicy, await services.processes(signal));
    const proxy = await WinedbgProxy.start({
      prefix: this.prefix,
      target: { windowsPid: pid },
      sessionId: this.sessionId,
      timeoutMs: this.options.openTimeoutMs,
      ...(signal ? { signal } : {}),
    });
    this.attached = true;
    const image = prefixProcesses(this.prefix.dir).filter(
      (p) => !isSharedWineProcess(p.command) && sameImage(p.command, found.name),
    );
    if (image.length === 1) this.attachedUnixPid = image[0]?.pid;
    this.current = { proxy, held: undefined, input: undefined };
    this.stops.reset(proxy.trace);
    // Closing detaches: the program was running before the session and runs on after it.
    setAttached(this.inner.context, true);
    this.stops.attaching = true;
    try {
      await this.connect(proxy, false, signal);
    } catch (e) {
      await this.endProgram('the attach failed');
      throw e;
    } finally {
      this.stops.attaching = false;
    }
    // The exe's symbols come with its module (the proxy lists it among the libraries).
    const exe = (await this.inner.libraries(signal).catch(() => [])).find((l) => /\.exe$/i.test(l.path));
    return {
      warnings: [],
      reportsStop: true,
      ...(exe ? { program: exe.path } : { program: found.name }),
    };
  }

  // ---- running ------------------------------------------------------------------------------

  /**
   * Runs the held program: to a temporary breakpoint at its entry point or main, or freely. After
   * an exit or a kill the program is started again, held, the same way.
   */
  override async start(mode: StartMode, signal?: AbortSignal): Promise<void> {
    if (this.attached)
      throw new DebuggerError('wrong_state', 'an attached program is already running: dbg_run continue');
    if (!this.current) await this.launch(signal);
    const held = this.current?.held;
    if (mode === 'entry' && held) {
      await this.inner.insertBreakpoint(
        { kind: 'breakpoint', location: { address: `0x${held.entry.toString(16)}` }, temporary: true },
        signal,
      );
    } else if (mode === 'main') {
      const main = await functionStart(this.inner, 'main', signal);
      if (main === undefined) {
        throw new DebuggerError('debugger_error', 'no main in the program to stop at', undefined, {
          reason: 'no-main',
        });
      }
      await this.inner.insertBreakpoint({ kind: 'breakpoint', location: { address: main }, temporary: true }, signal);
    }
    await this.inner.resume('continue', {}, signal);
  }

  override forceInterrupt(step: number): string | undefined {
    // The GDB backend's later steps signal the program's pids, which here are Windows pids (not
    // processes of this machine): only the first, SIGINT to a GDB that did not read the interrupt.
    return step === 1 && !this.inner.state.interruptAnswered ? this.inner.forceInterrupt(step) : undefined;
  }

  override async kill(signal?: AbortSignal): Promise<void> {
    try {
      await this.inner.kill(signal);
    } finally {
      await this.endProgram('killed');
    }
  }

  /** The program's winedbg, launcher and marked processes go (the session's GDB stays). */
  private async endProgram(why: string): Promise<void> {
    const running = this.current;
    if (!running) return;
    this.current = undefined;
    running.input?.close();
    // The launcher first: the sweep of the session's marked processes then waits for it too.
    if (running.held) stopLauncher(running.held);
    const killed = await running.proxy.close();
    log('debug', 'winedbg session program ended', { why, killed });
  }

  // ---- the program's input ------------------------------------------------------------------

  private input(): ProgramInput {
    const input = this.current?.input;
    if (!input) {
      throw new DebuggerError(
        'wrong_state',
        this.attached ? 'an attached program keeps its own input' : 'the program is not running: start it first',
      );
    }
    return input;
  }

  /** Never blocks (programInput.ts): answers by the deadline with what the pipe took and what waits. */
  override writeStdin(data: string | Buffer, deadline: number, signal?: AbortSignal): Promise<StdinReport> {
    return this.input().write(data, deadline, signal);
  }

  /** End of input: the pipe closes behind what was written before it. */
  override sendEof(deadline: number, signal?: AbortSignal): Promise<StdinReport> {
    return this.input().end(deadline, signal);
  }

  // ---- breakpoints --------------------------------------------------------------------------

  private async placed(location: Location, signal?: AbortSignal): Promise<Location> {
    if (!('function' in location)) return location;
    const address = await functionStart(this.inner, location.function, signal);
    return address === undefined ? location : { address };
  }

  override async insertBreakpoint(spec: BreakpointSpec, signal?: AbortSignal): Promise<SetBreakpoint> {
    if (spec.kind === 'watchpoint' && spec.access !== undefined && spec.access !== 'write') {
      throw new DebuggerError(
        'backend_unavailable',
        `${spec.access} watchpoints need the CPU's debug registers, which the winedbg backend does not use: watch writes instead`,
      );
    }
    if (spec.kind === 'breakpoint' && !spec.hardware) {
      return this.inner.insertBreakpoint({ ...spec, location: await this.placed(spec.location, signal) }, signal);
    }
    if (spec.kind === 'dprintf') {
      return this.inner.insertBreakpoint({ ...spec, location: await this.placed(spec.location, signal) }, signal);
    }
    return this.inner.insertBreakpoint(spec, signal);
  }

  override async listBreakpoints(signal?: AbortSignal): Promise<Breakpoint[]> {
    return (await this.inner.listBreakpoints(signal)).filter((b) => !this.abortBreakpoints.has(b.number));
  }

  // ---- inspection ---------------------------------------------------------------------------

  /** The program's threads, with their Windows thread ids; winedbg's break-in thread left out. */
  override async threads(signal?: AbortSignal): Promise<{ threads: Thread[]; currentThreadId?: number }> {
    const listed = await this.inner.threads(signal);
    const threads = listed.threads
      .filter((t) => !this.stops.breakIns.has(t.id))
      .map((t) => {
        // The proxy's target id is "Thread <Windows tid, decimal>"; lock owners are named by it.
        const tid = /^Thread (\d+)$/.exec(t.targetId ?? '')?.[1];
        return tid === undefined ? t : { ...t, osThreadId: Number(tid) };
      });
    const current =
      listed.currentThreadId !== undefined && !this.stops.breakIns.has(listed.currentThreadId)
        ? listed.currentThreadId
        : undefined;
    return { threads, ...(current !== undefined ? { currentThreadId: current } : {}) };
  }

  override async evaluate(
    expression: string,
    selector: FrameSelector & { format?: ValueFormat },
    signal?: AbortSignal,
  ): Promise<string> {
    try {
      return await this.inner.evaluate(expression, selector, signal);
    } catch (e) {
      throw refuseCalls(e);
    }
  }

  override async assign(target: string, value: string, selector: FrameSelector, signal?: AbortSignal): Promise<string> {
    try {
      return await this.inner.assign(target, value, selector, signal);
    } catch (e) {
      throw refuseCalls(e);
    }
  }

  // ---- raw commands -------------------------------------------------------------------------

  override command(text: string, options: CommandOptions, signal?: AbortSignal): Promise<CommandOutput> {
    const running = this.current;
    return runCommand(
      {
        gdb: this.inner,
        services: this.options.services,
        attachPolicy: this.options.attachPolicy,
        trace: running?.proxy.trace,
        ownPids: [running?.held?.windowsPid, running?.proxy.trace.debuggeePid].filter(
          (p): p is number => p !== undefined,
        ),
      },
      text,
      options,
      signal,
    );
  }

  // ---- the end ------------------------------------------------------------------------------

  override close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    if (this.attached) {
      // GDB detaches (winedbg lets the process go and exits), then winedbg's group is made sure of.
      await this.inner.close();
      await this.endProgram('closed');
      return;
    }
    // Killing winedbg kills the program it debugs; GDB's quit would have detached it instead.
    await this.endProgram('closed');
    await this.inner.close();
  }
}

/**
 * Whether a process's command line (Wine writes the Windows one over argv: "C:\\x\\hang.exe a b")
 * runs `program` (a Unix or Windows path): its file name, case aside, at a path boundary.
 */
function sameImage(command: string, program: string): boolean {
  const name = (program.split(/[\\/]/).pop() ?? program).toLowerCase();
  const at = command.toLowerCase().indexOf(name);
  if (at < 0 || name === '') return false;
  const before = at === 0 ? '' : (command[at - 1] ?? '');
  const after = command[at + name.length] ?? '';
  return (before === '' || /[\\/"]/.test(before)) && (after === '' || /["\s]/.test(after));
}

function refuseCalls(e: unknown): unknown {
  if (e instanceof DebuggerError && e.reason === 'side-effect' && /calling functions/.test(e.message)) {
    return new DebuggerError('invalid_argument', CALLS_REFUSED, e.details, { cause: e, reason: 'side-effect' });
  }
  return e;
}
