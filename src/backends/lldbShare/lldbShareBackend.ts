// A person's LLDB, joined through its MCP protocol server: reading only, always. LLDB 22's
// registry file holds nothing but the address, so there is no way for the person to say they
// allow more; and measured here, a few function calls through that server corrupted the person's
// LLDB heap. Every read leaves the session as it was: `frame variable` rather than `expression`
// (no $N history), `expression -j false --persistent-result false` for the rest (no JIT, so no
// calls; no history), and the person's selected thread and frame put back after each read.
//
// The server sends no events, so what the program did meanwhile is read on demand, when a read
// begins (lldbShareChannel.ts): `target list` for the state, and LLDB's stop counter
// (`statistics dump`) to tell a new stop at the same place from the old one.

import { realpath } from 'node:fs/promises';
import { basename, isAbsolute } from 'node:path';
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
import { DebuggerError } from '../../util/errors.js';
import { readFileLines } from '../../util/fileLines.js';
import { log } from '../../util/log.js';
import type {
  BackendCapabilities,
  BackendEvent,
  BackendInfo,
  CommandOptions,
  CommandOutput,
  DebuggerBackend,
  DisassembleRequest,
  Disassembly,
  FrameSelector,
  OpenReport,
  SetBreakpoint,
  ShareEntry,
  StdinReport,
  TargetRuntime,
  TargetSpec,
  ValueFormat,
} from '../debuggerBackend.js';
import { glibcRuntime } from '../runtime/glibcRuntime.js';
import { readOnlyRefusal } from '../shares/expressionEffects.js';
import { tellPerson } from '../shares/personTerminal.js';
import { processAlive } from '../shares/shareFiles.js';
import { theirTerminal } from '../shares/theirTerminal.js';
import { LldbMcpClient } from './lldbMcpClient.js';
import { LldbShareChannel, SYSTEM_LIBRARY } from './lldbShareChannel.js';
import { canonicalLldbCommand, lldbShareRefusal } from './lldbSharePolicy.js';
import { isLldbProcess, listenerDistrust } from './lldbShareRegistry.js';
import {
  errorText,
  narrowBacktrace,
  narrowBreakpoints,
  narrowDisassembly,
  narrowImages,
  narrowMemory,
  narrowRegisters,
  narrowThreadList,
  narrowValue,
  narrowVariables,
} from './lldbShareText.js';

export const LLDB_SHARE_CAPABILITIES: BackendCapabilities = {
  targets: ['joined'],
  reverse: 'none',
  record: false,
  watchpoints: [],
  softwareWatchpoints: false,
  hardwareBreakpoints: false,
  catchEvents: [],
  logpoints: false,
  forks: false,
  sysroot: false,
  saveCore: false,
  inferiorCalls: false,
  programTerminal: false,
  rawDialect: 'lldb',
  access: 'read',
};

const OUTPUT_LIMIT = 256 * 1024;

export interface LldbShareOptions {
  commandTimeoutMs?: number;
  transcript?: (direction: 'send' | 'recv', line: string) => void;
}

/** What the person can do about a refusal, said once for every refusal of a change. */
function readOnly(doing: string, owner: string): DebuggerError {
  return new DebuggerError(
    'wrong_state',
    `cannot ${doing}: this is ${owner}'s own LLDB, joined for reading only (LLDB's protocol server cannot say that a person allows more, so dbg-mcp never runs, stops or changes their program). Ask them to do it in their LLDB, then read again`,
    { state: 'joined' },
    { reason: 'policy' },
  );
}

export class LldbShareBackend implements DebuggerBackend {
  readonly info: BackendInfo;
  readonly capabilities = LLDB_SHARE_CAPABILITIES;
  readonly runtime: TargetRuntime = {
    ...glibcRuntime,
    isSystemFrame: (f) => glibcRuntime.isSystemFrame(f) || SYSTEM_LIBRARY.test(f.library ?? ''),
  };
  readonly output = undefined;
  readonly console = undefined;
  private readonly listeners = new Set<(event: BackendEvent) => void>();
  private closed = false;
  private died = false;
  private readonly channel: LldbShareChannel;

  private constructor(
    private readonly client: LldbMcpClient,
    private readonly share: ShareEntry,
    options: LldbShareOptions,
  ) {
    this.channel = new LldbShareChannel(
      client,
      options.commandTimeoutMs ?? 30_000,
      (e) => this.emit(e),
      () => this.closed || this.died,
    );
    this.info = { kind: 'lldb', version: 'LLDB (joined)', protocol: 'lldb-mcp', pid: share.debuggerPid };
  }

  /** Connects to the person's LLDB, after checking that the port is really their LLDB's. */
  static async join(share: ShareEntry, options: LldbShareOptions, signal?: AbortSignal): Promise<LldbShareBackend> {
    const pid = share.debuggerPid;
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(share.address);
    if (pid === undefined || !m?.[1] || !m[2])
      throw new DebuggerError('invalid_argument', `share ${share.id} names no LLDB`);
    if (!processAlive(pid) || !isLldbProcess(pid)) {
      throw new DebuggerError('wrong_state', `share ${share.id} is gone: LLDB process ${pid} has exited`);
    }
    const distrust = listenerDistrust(Number(m[2]), pid);
    if (distrust) throw new DebuggerError('backend_unavailable', `share ${share.id}: ${distrust}`);
    let backend: LldbShareBackend | undefined;
    const client = await LldbMcpClient.connect(m[1], Number(m[2]), {
      timeoutMs: Math.min(options.commandTimeoutMs ?? 30_000, 10_000),
      ...(signal ? { signal } : {}),
      ...(options.transcript ? { transcript: options.transcript } : {}),
      onClose: (reason) => backend?.lost(reason),
    });
    backend = new LldbShareBackend(client, share, options);
    return backend;
  }

  stderrTail(): string[] {
    return [];
  }

  subscribe(listener: (event: BackendEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: BackendEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (e) {
        log('error', 'backend event listener failed', { error: String(e) });
      }
    }
  }

  private lost(reason: string): void {
    if (this.closed || this.died) return;
    this.died = true;
    const pid = this.share.debuggerPid;
    const why =
      pid !== undefined && !processAlive(pid)
        ? "the person's LLDB exited"
        : 'the person stopped sharing their LLDB (protocol-server stop MCP)';
    this.emit({ type: 'died', reason: `${why}; ${reason}` });
  }

  // ---- opening ----------------------------------------------------------------------------

  async open(target: TargetSpec, signal?: AbortSignal): Promise<OpenReport> {
    if (target.kind !== 'joined') throw new DebuggerError('invalid_argument', 'this backend joins a shared LLDB');
    const version = await this.channel.run('version', signal);
    if (!version.isError) this.info.version = version.text.split('\n')[0]?.trim() || this.info.version;
    await this.channel.refresh(signal, true);
    tellPerson(
      this.share.debuggerPid,
      'an agent joined this LLDB, reading only: it never runs, stops or changes your program. End it any time: protocol-server stop MCP',
    );
    const warnings = [
      `this is ${this.share.owner}'s own LLDB (pid ${this.share.debuggerPid}): joined for reading only; LLDB's listener is unauthenticated TCP on loopback, which any local user can reach while it is open`,
    ];
    if (this.channel.status.state === 'none') warnings.push('the person has no process running in LLDB yet');
    return {
      warnings,
      ...(this.channel.status.program ? { program: this.channel.status.program } : {}),
      reportsStop: this.channel.status.state === 'stopped' || this.channel.status.state === 'exited',
    };
  }

  // ---- what a read-only session refuses --------------------------------------------------

  start(): Promise<void> {
    return Promise.reject(readOnly('start the program', this.share.owner));
  }
  resume(): Promise<void> {
    return Promise.reject(readOnly('resume the program', this.share.owner));
  }
  interrupt(): Promise<void> {
    return Promise.reject(readOnly('interrupt the program', this.share.owner));
  }
  forceInterrupt(): string | undefined {
    return undefined;
  }
  kill(): Promise<void> {
    return Promise.reject(readOnly('kill the program', this.share.owner));
  }
  writeStdin(): Promise<StdinReport> {
    return theirTerminal();
  }
  sendEof(): Promise<StdinReport> {
    return theirTerminal();
  }
  insertBreakpoint(): Promise<SetBreakpoint> {
    return Promise.reject(readOnly('set a breakpoint', this.share.owner));
  }
  changeBreakpoints(): Promise<void> {
    return Promise.reject(readOnly('change breakpoints', this.share.owner));
  }
  assign(): Promise<string> {
    return Promise.reject(readOnly('assign a value', this.share.owner));
  }
  writeMemory(): Promise<void> {
    return Promise.reject(readOnly('write memory', this.share.owner));
  }

  // ---- reading ----------------------------------------------------------------------------

  async listBreakpoints(signal?: AbortSignal): Promise<Breakpoint[]> {
    await this.channel.refresh(signal);
    return narrowBreakpoints(await this.channel.must('breakpoint list', signal));
  }

  async stack(
    options: { threadId?: number; from?: number; to?: number; withArgs?: boolean },
    signal?: AbortSignal,
  ): Promise<Frame[]> {
    await this.channel.refresh(signal);
    const thread = options.threadId ?? this.channel.stopThread;
    const from = options.from ?? 0;
    // An unbounded backtrace of a runaway recursion would be megabytes of text: a page at most.
    const count = options.to !== undefined ? options.to - from + 1 : 1000;
    const text = await this.channel.must(
      `thread backtrace -s ${from} -c ${count}${thread !== undefined ? ` ${thread}` : ''}`,
      signal,
    );
    const frames: Frame[] = [];
    for (const f of narrowBacktrace(text)) {
      const frame = await this.channel.withSource(f, signal);
      if (!options.withArgs) delete frame.args;
      frames.push(frame);
    }
    return frames;
  }

  async stackDepth(threadId: number | undefined, max: number, signal?: AbortSignal): Promise<number> {
    await this.channel.refresh(signal);
    const thread = threadId ?? this.channel.stopThread;
    const text = await this.channel.must(
      `thread backtrace -c ${max}${thread !== undefined ? ` ${thread}` : ''}`,
      signal,
    );
    return narrowBacktrace(text).length;
  }

  async threads(signal?: AbortSignal): Promise<{ threads: Thread[]; currentThreadId?: number }> {
    await this.channel.refresh(signal);
    const list = narrowThreadList(await this.channel.must('thread list', signal));
    return {
      threads: list.threads,
      ...(list.currentThreadId !== undefined ? { currentThreadId: list.currentThreadId } : {}),
    };
  }

  async variables(
    which: 'locals' | 'args' | 'all',
    selector: FrameSelector,
    _options: { types?: boolean },
    signal?: AbortSignal,
  ): Promise<Variable[]> {
    await this.channel.refresh(signal);
    const vars = await this.channel.withSelection(
      selector,
      async () => narrowVariables(await this.channel.must('frame variable -s', signal)),
      signal,
    );
    if (which === 'locals') return vars.filter((v) => !v.isArg);
    if (which === 'args') return vars.filter((v) => v.isArg);
    return vars;
  }

  async evaluate(
    expression: string,
    selector: FrameSelector & { format?: ValueFormat },
    signal?: AbortSignal,
  ): Promise<string> {
    // Calls are left to the person's LLDB, which cannot make them (no JIT on a share).
    const why = readOnlyRefusal(expression, 'lldb', { programCalls: true });
    if (why !== undefined) {
      throw new DebuggerError(
        'invalid_argument',
        `${why}: it would change ${this.share.owner}'s program, and this shared LLDB is joined for reading only`,
        undefined,
        { reason: 'side-effect' },
      );
    }
    await this.channel.refresh(signal);
    const format = lldbFormat(selector.format);
    // A variable path is read by `frame variable`, which runs no code and keeps no history.
    const path = /^[*&]*[A-Za-z_][\w]*((\.|->)[A-Za-z_]\w*|\[\d+\])*$/.test(expression.trim());
    const text = path
      ? `frame variable${format ? ` -f ${format}` : ''} -- ${expression.trim()}`
      : `expression -j false --persistent-result false${format ? ` -f ${format}` : ''} -- ${expression}`;
    const said = await this.channel.withSelection(selector, () => this.channel.run(text, signal), signal);
    if (said.isError) {
      const why = errorText(said.text);
      if (/Interpreter doesn't handle one of the expression's opcodes|can't be interpreted|JIT/i.test(why)) {
        throw new DebuggerError(
          'invalid_argument',
          `this expression needs code to run in ${this.share.owner}'s program (a function call, most likely), which a shared LLDB never does: read the values it would use instead`,
          undefined,
          { reason: 'side-effect' },
        );
      }
      throw new DebuggerError('debugger_error', why);
    }
    return narrowValue(said.text);
  }

  async registers(
    selector: FrameSelector & { names?: readonly string[]; format?: ValueFormat },
    signal?: AbortSignal,
  ): Promise<Register[]> {
    await this.channel.refresh(signal);
    const names = selector.names ?? [];
    for (const n of names) {
      if (!/^[A-Za-z_]\w*$/.test(n))
        throw new DebuggerError('invalid_argument', `no register named ${JSON.stringify(n)}`);
    }
    const format = lldbFormat(selector.format ?? 'hex');
    const text = `register read${format ? ` -f ${format}` : ''}${names.length ? ` ${names.join(' ')}` : ''}`;
    return this.channel.withSelection(
      selector,
      async () => narrowRegisters(await this.channel.must(text, signal)),
      signal,
    );
  }

  async stackPointer(selector: FrameSelector, signal?: AbortSignal): Promise<bigint | undefined> {
    const [sp] = await this.registers({ ...selector, names: ['sp'], format: 'hex' }, signal);
    const m = /0x[0-9a-fA-F]+/.exec(sp?.value ?? '');
    return m ? BigInt(m[0]) : undefined;
  }

  async symbolAt(address: bigint, signal?: AbortSignal): Promise<string | undefined> {
    const said = await this.channel.run(`target modules lookup -a 0x${address.toString(16)}`, signal);
    return /Summary: (?:[^`\s]+`)?([\w.$]+)/.exec(said.text)?.[1];
  }

  /** An address as a number: given as one, or read from an expression (safely, as evaluate reads). */
  private async addressOf(expression: string, signal?: AbortSignal): Promise<string> {
    const text = expression.trim();
    if (/^(0x[0-9a-fA-F]+|\d+)$/.test(text)) return text;
    const value = await this.evaluate(text, { format: 'hex' }, signal);
    const m = /0x[0-9a-fA-F]+/.exec(value);
    if (!m) throw new DebuggerError('invalid_argument', `${JSON.stringify(text)} is not an address (it is ${value})`);
    return m[0];
  }

  async readMemory(address: string, count: number, signal?: AbortSignal): Promise<MemoryBlock[]> {
    await this.channel.refresh(signal);
    const at = await this.addressOf(address, signal);
    const said = await this.channel.run(
      `memory read --force --size 1 --format x --num-per-line 32 --count ${count} ${at}`,
      signal,
    );
    const read = narrowMemory(said.text);
    const got = read.hex.length / 2;
    if (said.isError && got === 0) {
      throw new DebuggerError('debugger_error', `Cannot access memory at address ${at}`, undefined, {
        reason: 'unreadable',
      });
    }
    const start = read.address ?? at;
    return [{ address: start, hex: read.hex, ...(got < count ? { unreadable: count - got } : {}) }];
  }

  async disassemble(request: DisassembleRequest, signal?: AbortSignal): Promise<Disassembly> {
    await this.channel.refresh(signal);
    const bytes = request.withOpcodes ? ' --bytes' : '';
    const span = request.span;
    if ('around' in span) {
      const [frame] = await this.stack(
        {
          ...(request.threadId !== undefined ? { threadId: request.threadId } : {}),
          from: request.frame ?? 0,
          to: request.frame ?? 0,
        },
        signal,
      );
      const pc = frame?.address;
      if (!pc) throw new DebuggerError('debugger_error', 'no frame to disassemble around');
      const all = narrowDisassembly(
        await this.channel.must(`disassemble -a ${pc}${bytes}`, signal),
        request.withOpcodes === true,
      );
      const at = all.instructions.findIndex((i) => BigInt(i.address) === BigInt(pc));
      if (at < 0) return { instructions: [], pc };
      return { instructions: all.instructions.slice(Math.max(0, at - span.before), at + span.after + 1), pc };
    }
    if ('function' in span) {
      if (!/^[\w:~<>,.]+$/.test(span.function))
        throw new DebuggerError('invalid_argument', `not a function name: ${span.function}`);
      return narrowDisassembly(
        await this.channel.must(`disassemble -n ${span.function}${bytes}`, signal),
        request.withOpcodes === true,
      );
    }
    const start = await this.addressOf(span.start, signal);
    const end = await this.addressOf(span.end, signal);
    return narrowDisassembly(
      await this.channel.must(`disassemble -s ${start} -e ${end}${bytes}`, signal),
      request.withOpcodes === true,
    );
  }

  /** Lines of a source file LLDB named for a frame, read from disk (never through LLDB's `source list`, which moves the person's place). */
  async sourceLines(file: string, from: number, to: number): Promise<SourceLine[]> {
    const named = [...this.channel.sources.values()].find(
      (full) => full === file || (full !== '' && basename(full) === file && !isAbsolute(file)),
    );
    if (!named) {
      throw new DebuggerError(
        'invalid_argument',
        `source of ${file} is not shown: LLDB named no such file for a frame of this session`,
      );
    }
    const real = await realpath(named).catch(() => named);
    return (await readFileLines(real, from, to)) ?? [];
  }

  async libraries(signal?: AbortSignal): Promise<Library[]> {
    return narrowImages(await this.channel.must('target modules list -f', signal));
  }

  async command(text: string, _options: CommandOptions, signal?: AbortSignal): Promise<CommandOutput> {
    const why = lldbShareRefusal(text);
    if (why) {
      throw new DebuggerError(
        'invalid_argument',
        `refused on ${this.share.owner}'s shared LLDB: ${why}`,
        { fields: ['command'] },
        { reason: 'policy' },
      );
    }
    await this.channel.refresh(signal);
    const said = await this.channel.run(canonicalLldbCommand(text), signal);
    const truncated = said.text.length > OUTPUT_LIMIT;
    return { output: truncated ? said.text.slice(0, OUTPUT_LIMIT) : said.text, truncated };
  }

  // ---- the end ----------------------------------------------------------------------------

  /** Leaves: the person's LLDB, its selection and its program stay exactly as they are. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.channel.settle();
    if (!this.died) tellPerson(this.share.debuggerPid, 'the agent left this LLDB; nothing of yours was changed');
    this.client.close();
  }
}

/** LLDB's -f letter for a value format; undefined for the natural one. */
function lldbFormat(format: ValueFormat | undefined): string | undefined {
  switch (format) {
    case 'hex':
      return 'x';
    case 'decimal':
      return 'd';
    case 'octal':
      return 'o';
    case 'binary':
      return 'b';
    default:
      return undefined;
  }
}
