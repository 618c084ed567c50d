// A person's gdb, joined through a share (gdbShareHolder.ts): the GDB backend's job modules
// (inspection, memory, breakpoints, events, run control) over an MI connection that is a unix
// socket to the share, not a gdb of our own. Nothing here starts, kills, detaches or ends gdb or
// the program; closing only closes the socket, and the share takes back what the agent added.
// Refusals are decided by the same policy the share enforces, before anything is sent, so they
// say what the person can type to allow more.

import { lstatSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import type {
  Breakpoint,
  Frame,
  Library,
  MemoryBlock,
  Register,
  SourceLine,
  Thread,
  Variable,
} from '../../model/model.js';
import { OutputRing } from '../../process/outputRing.js';
import { consoleCommand, gdbVersion } from '../../protocols/mi/commands/gdb.js';
import type { MiFrameOptions, MiSender } from '../../protocols/mi/commands/miSender.js';
import { fileListSharedLibraries, threadInfo } from '../../protocols/mi/commands/target.js';
import {
  type MiCommandResult,
  MiConnection,
  type MiSendOptions,
  type TranscriptWriter,
} from '../../protocols/mi/miConnection.js';
import { parseMiInput } from '../../protocols/mi/miInputParser.js';
import { parseMiLine } from '../../protocols/mi/miParser.js';
import type { MiRecord, MiTuple } from '../../protocols/mi/miRecords.js';
import { DebuggerError } from '../../util/errors.js';
import { readFileLines } from '../../util/fileLines.js';
import { log } from '../../util/log.js';
import type {
  BackendCapabilities,
  BackendEvent,
  BackendInfo,
  BreakpointChange,
  BreakpointSpec,
  CommandOptions,
  CommandOutput,
  DebuggerBackend,
  DisassembleRequest,
  Disassembly,
  FrameSelector,
  OpenReport,
  ResumeAction,
  ResumeOptions,
  SetBreakpoint,
  ShareAccess,
  ShareEntry,
  StackOptions,
  StdinReport,
  TargetRuntime,
  TargetSpec,
  ValueFormat,
} from '../debuggerBackend.js';
import * as breakpoints from '../gdb/gdbBreakpoints.js';
import { type GdbContext, type GdbState, initialState } from '../gdb/gdbContext.js';
import { handleRecord } from '../gdb/gdbEvents.js';
import * as inspection from '../gdb/gdbInspection.js';
import * as memory from '../gdb/gdbMemory.js';
import { narrowLibraries, narrowThreads } from '../gdb/gdbNarrow.js';
import * as run from '../gdb/gdbRunControl.js';
import { noteSources } from '../gdb/gdbSource.js';
import { glibcRuntime } from '../runtime/glibcRuntime.js';
import { readOnlyRefusal } from '../shares/expressionEffects.js';
import { directoryDistrust, ownUid } from '../shares/shareFiles.js';
import { theirTerminal } from '../shares/theirTerminal.js';
import type { JoinHello, JoinReply } from './gdbShareHolder.js';
import { allowControlHint, gdbShareRefusal } from './gdbSharePolicy.js';

const CONSOLE_TAIL_BYTES = 64 * 1024;
const GROUP = 'i1';

function capabilitiesFor(access: ShareAccess): BackendCapabilities {
  return {
    targets: ['joined'],
    reverse: 'none',
    record: false,
    watchpoints: access === 'control' ? ['write', 'read', 'access'] : [],
    softwareWatchpoints: access === 'control',
    hardwareBreakpoints: false,
    catchEvents: [],
    logpoints: false,
    forks: false,
    sysroot: false,
    saveCore: false,
    inferiorCalls: false,
    programTerminal: false,
    rawDialect: 'gdb',
    access,
  };
}

export interface JoinedGdbOptions {
  commandTimeoutMs?: number;
  transcript?: TranscriptWriter;
  /** Who joins, for the share's log line ("stdio", a token's name). */
  client?: string;
}

/** "It stopped with signal SIGSEGV, Segmentation fault." and its kin, from `info program`. */
function stopFromProgramInfo(said: string): MiTuple {
  const signal = /It stopped (?:with|at) signal (SIG\w+), ([^.\n]+)\./.exec(said);
  if (signal?.[1] && signal[2])
    return { reason: 'signal-received', 'signal-name': signal[1], 'signal-meaning': signal[2] };
  const bp = /It stopped at breakpoint (\d+)\./.exec(said);
  if (bp?.[1]) return { reason: 'breakpoint-hit', bkptno: bp[1] };
  if (/It stopped after being stepped\./.test(said)) return { reason: 'end-stepping-range' };
  return {};
}

export class JoinedGdbBackend implements DebuggerBackend {
  readonly info: BackendInfo;
  capabilities: BackendCapabilities;
  readonly runtime: TargetRuntime = glibcRuntime;
  readonly console = new OutputRing(CONSOLE_TAIL_BYTES);
  readonly output = undefined;
  readonly state: GdbState = { ...initialState(), attached: true };
  readonly context: GdbContext;
  private readonly listeners = new Set<(event: BackendEvent) => void>();
  private eventChain: Promise<void> = Promise.resolve();
  private endedReason: string | undefined;
  private closed = false;
  private readonly own = new Set<string>();

  private constructor(
    private readonly socket: Socket,
    private readonly connection: MiConnection,
    private readonly share: ShareEntry,
    private readonly hello: JoinReply,
  ) {
    this.capabilities = capabilitiesFor(hello.access ?? 'read');
    this.info = {
      kind: 'gdb',
      version: 'gdb (joined)',
      protocol: 'mi3 (shared)',
      pid: hello.gdbPid ?? share.debuggerPid,
    };
    const mi: MiSender = { send: (operation, args, o) => this.send(operation, args, o) };
    this.context = {
      options: { env: {} },
      state: this.state,
      mi,
      cli: (text, o, sel) => consoleCommand(mi, { ...this.frame(sel ?? {}), command: text }, o),
      frame: (sel) => this.frame(sel),
      emit: (event) => this.emit(event),
      console: this.console,
      terminal: undefined,
      noteSources: (frames) => noteSources(this.state, frames),
    };
  }

  /** Connects to the share's socket and asks to join; the share answers before any MI flows. */
  static async join(share: ShareEntry, options: JoinedGdbOptions, signal?: AbortSignal): Promise<JoinedGdbBackend> {
    const path = share.address;
    // The socket lives in the owner-only share directory; it must be a socket of this user.
    const dirWhy = directoryDistrust(path.slice(0, path.lastIndexOf('/')), true);
    if (dirWhy) throw new DebuggerError('backend_unavailable', `share ${share.id}: its directory ${dirWhy}`);
    try {
      const st = lstatSync(path);
      if (!st.isSocket() || st.uid !== ownUid()) throw new Error('not a socket of this user');
    } catch (e) {
      throw new DebuggerError('backend_unavailable', `share ${share.id} cannot be reached: ${(e as Error).message}`);
    }
    const socket = connect(path);
    socket.setEncoding('utf8');
    let backend: JoinedGdbBackend | undefined;
    let early = '';
    const connection = new MiConnection(
      { write: (chunk) => socket.write(chunk) },
      {
        defaultTimeoutMs: options.commandTimeoutMs ?? 30_000,
        transcript: options.transcript,
        onRecord: (record, captured) => backend?.onRecord(record, captured),
        onUnmatched: (record) => log('debug', 'late or unmatched MI result dropped', { record }),
      },
    );
    const reply = await new Promise<JoinReply>((resolve, reject) => {
      const timer = setTimeout(() => reject(new DebuggerError('timeout', `share ${share.id} did not answer`)), 10_000);
      timer.unref();
      const abort = (): void => reject(new DebuggerError('timeout', 'the join was cancelled'));
      signal?.addEventListener('abort', abort, { once: true });
      const onData = (text: string): void => {
        early += text;
        const nl = early.indexOf('\n');
        if (nl < 0) return;
        clearTimeout(timer);
        socket.off('data', onData);
        signal?.removeEventListener('abort', abort);
        const first = early.slice(0, nl);
        early = early.slice(nl + 1);
        try {
          resolve(JSON.parse(first) as JoinReply);
        } catch {
          reject(new DebuggerError('backend_unavailable', `share ${share.id} answered something else than a share`));
        }
      };
      socket.on('data', onData);
      socket.once('error', (e) => {
        clearTimeout(timer);
        reject(new DebuggerError('backend_unavailable', `share ${share.id} cannot be reached: ${e.message}`));
      });
      socket.once('connect', () => {
        const hello: JoinHello = { join: { client: options.client ?? 'dbg-mcp', server: process.pid } };
        socket.write(`${JSON.stringify(hello)}\n`);
      });
    }).catch((e: unknown) => {
      socket.destroy();
      throw e;
    });
    if (!reply.ok) {
      socket.destroy();
      throw new DebuggerError(
        'backend_unavailable',
        `share ${share.id} refused to be joined: ${reply.error ?? 'no reason given'}`,
      );
    }
    backend = new JoinedGdbBackend(socket, connection, share, reply);
    const self = backend;
    socket.on('data', (text: string) => connection.receive(Buffer.from(text)));
    socket.on('error', () => {});
    socket.on('close', () => self.lost());
    if (early !== '') connection.receive(Buffer.from(early));
    return backend;
  }

  stderrTail(): string[] {
    return [];
  }

  subscribe(listener: (event: BackendEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: BackendEvent | Promise<BackendEvent | undefined>): void {
    this.eventChain = this.eventChain
      .then(() => event)
      .then((e) => {
        if (!e) return;
        for (const l of this.listeners) {
          try {
            l(e);
          } catch (err) {
            log('error', 'backend event listener failed', { error: String(err) });
          }
        }
      })
      .catch(() => {});
  }

  private onRecord(record: MiRecord, captured: boolean): void {
    // The share's own notices: what the person changed, and why the share ended.
    if (record.kind === 'notify' && record.class === 'dbg-mcp-access') {
      const access = record.results['access'] === 'control' ? 'control' : 'read';
      this.capabilities = capabilitiesFor(access);
      return;
    }
    if (record.kind === 'notify' && record.class === 'dbg-mcp-ended') {
      const reason = record.results['reason'];
      this.endedReason = typeof reason === 'string' ? reason : 'the share ended';
      return;
    }
    handleRecord(this.context, record, captured);
  }

  private lost(): void {
    this.state.exited = true;
    const reason = this.closed
      ? 'the session left the shared gdb'
      : (this.endedReason ?? 'the share ended (the person stopped it, or their gdb exited)');
    this.connection.fail(reason);
    if (!this.closed) this.emit({ type: 'died', reason });
  }

  private send(
    operation: string,
    args: readonly string[] | { raw: string } = [],
    options: MiSendOptions = {},
  ): Promise<MiCommandResult> {
    return this.connection.send(operation, args, options);
  }

  private frame(sel: FrameSelector): MiFrameOptions {
    const thread = sel.threadId ?? (sel.frame !== undefined ? this.state.stopThread : undefined);
    return { thread, frame: sel.frame };
  }

  private get access(): ShareAccess {
    return this.capabilities.access ?? 'read';
  }

  /** Refuses what the share would refuse, before sending it, in the same words. */
  private check(operation: string, args: string[]): void {
    const input = parseMiInput(`1-${operation}${args.map((a) => ` ${JSON.stringify(a)}`).join('')}`);
    if (typeof input === 'string') return;
    const why = gdbShareRefusal(input, { access: this.access, own: this.own, id: this.share.id });
    if (why) {
      throw new DebuggerError(
        'wrong_state',
        `cannot do this on ${this.share.owner}'s shared gdb: ${why}`,
        { state: 'joined' },
        { reason: 'policy' },
      );
    }
  }

  private needControl(doing: string): void {
    if (this.access !== 'control') {
      throw new DebuggerError(
        'wrong_state',
        `cannot ${doing}: ${this.share.owner} shared this gdb for reading only; ${allowControlHint(this.share.id)}`,
        { state: 'joined' },
        { reason: 'policy' },
      );
    }
  }

  private never(doing: string): DebuggerError {
    return new DebuggerError(
      'wrong_state',
      `cannot ${doing}: this is ${this.share.owner}'s own gdb and program; a joined session never starts, kills, writes to or calls into them (they can do it themselves in their gdb)`,
      { state: 'joined' },
      { reason: 'policy' },
    );
  }

  // ---- opening ----------------------------------------------------------------------------

  /** Reads where the person's program stands and reports it as the first stop (or its run, or nothing). */
  async open(target: TargetSpec, signal?: AbortSignal): Promise<OpenReport> {
    if (target.kind !== 'joined') throw new DebuggerError('invalid_argument', 'this backend joins a shared gdb');
    const version = await gdbVersion(this.context.mi, { signal, captureConsole: true });
    const first = version.console.split('\n')[0]?.trim();
    if (first) this.info.version = first;
    const warnings = [
      `this is ${this.share.owner}'s own gdb (pid ${this.info.pid ?? '?'}), shared ${this.access === 'control' ? 'for reading and running the program' : 'for reading only'}: the workspace roots do not apply, and closing leaves it as it is`,
    ];
    const pid = this.hello.pid;
    if (pid === undefined) {
      warnings.push('the person has no process running in gdb yet');
      return { warnings, ...(this.hello.program ? { program: this.hello.program } : {}), reportsStop: false };
    }
    this.state.inferiorPids.set(GROUP, pid);
    this.emit({ type: 'inferior-started', group: GROUP, pid });
    const { threads, currentThreadId } = narrowThreads((await threadInfo(this.context.mi, { signal })).results);
    for (const t of threads) this.emit({ type: 'thread-created', id: t.id, group: GROUP });
    if (threads.some((t) => t.state === 'running')) {
      this.emit({ type: 'running', threadId: 'all' });
      return { warnings, ...(this.hello.program ? { program: this.hello.program } : {}), reportsStop: false };
    }
    let stopped: MiTuple | undefined;
    const last = this.hello.lastStop ? parseMiLine(this.hello.lastStop) : undefined;
    if (last?.kind === 'exec' && last.class === 'stopped') {
      stopped = last.results;
    } else {
      // Stopped before the share began: `info program` still says why.
      const said = await this.context.cli('info program', { signal, captureConsole: true });
      const current = threads.find((t) => t.id === currentThreadId) ?? threads[0];
      stopped = {
        ...stopFromProgramInfo(said.console),
        'stopped-threads': 'all',
        ...(current ? { 'thread-id': String(current.id) } : {}),
        ...(current?.frame ? { frame: frameTuple(current.frame) } : {}),
      };
    }
    handleRecord(this.context, { kind: 'exec', class: 'stopped', token: undefined, results: stopped }, false);
    return { warnings, ...(this.hello.program ? { program: this.hello.program } : {}), reportsStop: true };
  }

  // ---- run control: with the person's leave only ---------------------------------------------

  start(_mode: unknown): Promise<void> {
    return Promise.reject(this.never('start the program'));
  }

  async resume(action: ResumeAction, options: ResumeOptions, signal?: AbortSignal): Promise<void> {
    this.needControl(`${action} the program`);
    if (options.reverse) throw new DebuggerError('wrong_state', "running backwards is not offered on a person's gdb");
    if (action === 'jump') throw this.never('jump elsewhere in the program');
    await run.resume(this.context, action, options, signal);
  }

  async interrupt(): Promise<void> {
    this.needControl('interrupt the program');
    // The share turns it into SIGINT to the program: the shared MI channel does not read while it runs.
    await run.interrupt(this.context);
  }

  forceInterrupt(): string | undefined {
    return undefined;
  }

  kill(): Promise<void> {
    return Promise.reject(this.never('kill the program'));
  }

  writeStdin(): Promise<StdinReport> {
    return theirTerminal();
  }

  sendEof(): Promise<StdinReport> {
    return theirTerminal();
  }

  // ---- breakpoints: the agent's own, with control ------------------------------------------

  async insertBreakpoint(spec: BreakpointSpec, signal?: AbortSignal): Promise<SetBreakpoint> {
    this.needControl('set a breakpoint');
    if (spec.kind === 'catchpoint' || spec.kind === 'dprintf' || (spec.kind === 'watchpoint' && spec.location)) {
      throw new DebuggerError(
        'wrong_state',
        `a ${spec.kind} is not offered on a person's gdb: plain breakpoints and watchpoints are`,
      );
    }
    const conditionWhy = 'condition' in spec && spec.condition ? readOnlyRefusal(spec.condition, 'gdb') : undefined;
    if (conditionWhy !== undefined) {
      throw new DebuggerError('invalid_argument', `the condition may not run on the person's gdb: ${conditionWhy}`, {
        fields: ['condition'],
      });
    }
    const set = await breakpoints.insertBreakpoint(this.context, spec, signal);
    this.own.add(set.breakpoint.number.split('.')[0] ?? set.breakpoint.number);
    return set;
  }

  async changeBreakpoints(change: BreakpointChange, signal?: AbortSignal): Promise<void> {
    this.needControl('change breakpoints');
    const numbers = 'numbers' in change ? change.numbers : [change.number];
    const theirs = numbers.filter((n) => !this.own.has(n.split('.')[0] ?? n));
    if (theirs.length > 0) {
      throw new DebuggerError(
        'wrong_state',
        `breakpoint ${theirs.join(', ')} is ${this.share.owner}'s, not this session's: it stays as they set it`,
      );
    }
    await breakpoints.changeBreakpoints(this.context, change, signal);
    if (change.op === 'delete') for (const n of numbers) this.own.delete(n);
  }

  listBreakpoints(signal?: AbortSignal): Promise<Breakpoint[]> {
    return breakpoints.listBreakpoints(this.context, signal);
  }

  // ---- reading ----------------------------------------------------------------------------

  stack(options: StackOptions, signal?: AbortSignal): Promise<Frame[]> {
    return inspection.stack(this.context, options, signal);
  }

  stackDepth(threadId: number | undefined, max: number, signal?: AbortSignal): Promise<number> {
    return inspection.stackDepth(this.context, threadId, max, signal);
  }

  threads(signal?: AbortSignal): Promise<{ threads: Thread[]; currentThreadId?: number }> {
    return inspection.threads(this.context, signal);
  }

  variables(
    which: 'locals' | 'args' | 'all',
    selector: FrameSelector,
    options: { types?: boolean },
    signal?: AbortSignal,
  ): Promise<Variable[]> {
    return inspection.variables(this.context, which, selector, options, signal);
  }

  async evaluate(
    expression: string,
    selector: FrameSelector & { format?: ValueFormat },
    signal?: AbortSignal,
  ): Promise<string> {
    const why = readOnlyRefusal(expression, 'gdb', { programCalls: true });
    if (why !== undefined) {
      throw new DebuggerError(
        'invalid_argument',
        `${why}: it would change ${this.share.owner}'s program or reach past it; a shared gdb is only read`,
        undefined,
        {
          reason: 'side-effect',
        },
      );
    }
    try {
      return await inspection.evaluate(this.context, expression, selector, signal);
    } catch (e) {
      if (
        e instanceof DebuggerError &&
        /may-call-functions is off|Cannot call functions/.test(e.message + String(e.cause ?? ''))
      ) {
        throw new DebuggerError(
          'invalid_argument',
          `this expression calls a function of ${this.share.owner}'s program, which a shared gdb never does: read the values the call would use instead`,
          undefined,
          { reason: 'side-effect', cause: e },
        );
      }
      throw e;
    }
  }

  assign(): Promise<string> {
    return Promise.reject(this.never('assign a value'));
  }

  registers(
    selector: FrameSelector & { names?: readonly string[]; format?: ValueFormat },
    signal?: AbortSignal,
  ): Promise<Register[]> {
    return inspection.registers(this.context, selector, signal);
  }

  stackPointer(selector: FrameSelector, signal?: AbortSignal): Promise<bigint | undefined> {
    return inspection.stackPointer(this.context, selector, signal);
  }

  symbolAt(address: bigint, signal?: AbortSignal): Promise<string | undefined> {
    return inspection.symbolAt(this.context, address, signal);
  }

  readMemory(address: string, count: number, signal?: AbortSignal): Promise<MemoryBlock[]> {
    if (readOnlyRefusal(address, 'gdb') !== undefined)
      return Promise.reject(this.never('write through an address expression'));
    return memory.readMemory(this.context, address, count, signal);
  }

  writeMemory(): Promise<void> {
    return Promise.reject(this.never('write memory'));
  }

  disassemble(request: DisassembleRequest, signal?: AbortSignal): Promise<Disassembly> {
    return memory.disassemble(this.context, request, signal);
  }

  /** Files gdb named for frames, read from disk: never `list`, which would move the person's listing. */
  async sourceLines(file: string, from: number, to: number): Promise<SourceLine[]> {
    if (!this.state.sourceFiles.has(file)) {
      throw new DebuggerError(
        'invalid_argument',
        `source of ${file} is not shown: gdb named no such file for a frame of this session`,
      );
    }
    return (await readFileLines(file, from, to)) ?? [];
  }

  async libraries(signal?: AbortSignal): Promise<Library[]> {
    return narrowLibraries((await fileListSharedLibraries(this.context.mi, { signal })).results);
  }

  async command(text: string, options: CommandOptions, signal?: AbortSignal): Promise<CommandOutput> {
    this.check('interpreter-exec', ['console', text]);
    const limit = 256 * 1024;
    const r = await this.context.cli(
      text,
      { signal, timeoutMs: options.timeoutMs, captureConsole: true, captureLimit: limit },
      { threadId: options.threadId, frame: options.frame },
    );
    return {
      output: r.console + (r.log && !r.log.startsWith(text) ? r.log : ''),
      truncated: r.console.length >= limit,
    };
  }

  // ---- the end ----------------------------------------------------------------------------

  /** Leaves: the socket closes; the share deletes the agent's breakpoints and tells the person. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.socket.end();
    this.socket.destroy();
    this.connection.fail('the session left the shared gdb');
    await this.eventChain;
  }
}

/** A model frame back into the MI tuple a *stopped record carries (for the first stop of a join). */
function frameTuple(f: Frame): MiTuple {
  const t: MiTuple = { level: String(f.level) };
  if (f.address) t['addr'] = f.address;
  if (f.function) t['func'] = f.function;
  if (f.file) t['file'] = f.file;
  if (f.fullname) t['fullname'] = f.fullname;
  if (f.line !== undefined) t['line'] = String(f.line);
  if (f.args) t['args'] = f.args.map((a) => ({ name: a.name, ...(a.value !== undefined ? { value: a.value } : {}) }));
  return t;
}
