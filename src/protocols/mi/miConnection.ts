// The MI connection: owns tokens, the pending map, per-command deadlines and cancellation, and
// the opt-in transcript. It neither parses (miParser does) nor knows what the commands mean.
//
// Every command carries a fresh token, and a result record is matched to its command by that
// token alone. A reply that arrives after its command timed out finds no pending entry and is
// dropped: it can never be read as the next command's answer.

import { DebuggerError } from '../../util/errors.js';
import { assertSingleLine, buildMiCommand } from './miCommand.js';
import { MiLineSplitter } from './miLineSplitter.js';
import { parseMiLine } from './miParser.js';
import type { MiRecord, MiResultClass, MiTuple } from './miRecords.js';

export interface MiWritable {
  write(chunk: string): boolean;
}

export interface MiCommandResult {
  class: Exclude<MiResultClass, 'error'>;
  results: MiTuple;
  /** Console (`~`) text printed while the command ran, when asked for. */
  console: string;
  /** Log (`&`) text printed while the command ran (CLI errors land here), when asked for. */
  log: string;
}

export interface MiSendOptions {
  /** Milliseconds to wait for the result record; default from the connection. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Collect the console and log stream text that arrives while the command is pending. */
  captureConsole?: boolean;
  /** Bytes of captured text kept; the rest is counted and dropped. */
  captureLimit?: number;
}

export type TranscriptWriter = (direction: 'send' | 'recv', line: string) => void;

export interface MiConnectionOptions {
  defaultTimeoutMs?: number;
  transcript?: TranscriptWriter;
  /**
   * Called for each line that is not a result matched to a pending command. `captured` is true
   * for console and log text that a pending command collected as its answer.
   */
  onRecord?: (record: MiRecord, captured: boolean) => void;
  /** Called when a result arrives for no pending command (late, or never ours). */
  onUnmatched?: (record: MiRecord) => void;
}

interface Pending {
  token: number;
  operation: string;
  resolve: (result: MiCommandResult) => void;
  reject: (error: DebuggerError) => void;
  /** The caller's stack, captured when the command was sent: errors point at who asked. */
  origin: Error;
  timer: NodeJS.Timeout | undefined;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  capture: { console: string[]; log: string[]; bytes: number; limit: number; dropped: number } | undefined;
}

export class MiConnection {
  private readonly splitter = new MiLineSplitter();
  private readonly pending = new Map<number, Pending>();
  /** Tokens sent and not yet answered by GDB, oldest first (timed-out commands included). */
  private readonly inFlight: number[] = [];
  private nextToken = 1;
  private failure: DebuggerError | undefined;
  private readonly defaultTimeoutMs: number;
  private readonly transcript: TranscriptWriter | undefined;
  private readonly onRecord: (record: MiRecord, captured: boolean) => void;
  private readonly onUnmatched: (record: MiRecord) => void;

  constructor(
    private readonly input: MiWritable,
    options: MiConnectionOptions = {},
  ) {
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? 30_000;
    this.transcript = options.transcript;
    this.onRecord = options.onRecord ?? (() => {});
    this.onUnmatched = options.onUnmatched ?? (() => {});
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  get closed(): boolean {
    return this.failure !== undefined;
  }

  /** Feed bytes read from the debugger's stdout. */
  receive(chunk: Buffer): void {
    for (const line of this.splitter.push(chunk)) this.handleLine(line);
  }

  /** The debugger's stdout ended: flush a last unterminated line. */
  receiveEnd(): void {
    for (const line of this.splitter.end()) this.handleLine(line);
  }

  /**
   * Sends `-operation args…` and resolves with its result record. `^error` rejects with a
   * `debugger_error` carrying GDB's message. Arguments are quoted here; a line break or NUL in
   * any of them is refused before anything is written.
   *
   * `{ raw }` is for the MI commands GDB implements as CLI wrappers (-gdb-set, -exec-arguments):
   * GDB hands their argument text to the CLI unparsed, so quotes would arrive as quotes.
   */
  send(
    operation: string,
    args: readonly string[] | { raw: string } = [],
    options: MiSendOptions = {},
  ): Promise<MiCommandResult> {
    const origin = new Error(`-${operation}`);
    if (this.failure) return Promise.reject(this.withOrigin(this.failure, origin));
    if (options.signal?.aborted) {
      return Promise.reject(new DebuggerError('timeout', `-${operation} was cancelled before it was sent`));
    }
    const token = this.nextToken++;
    let line: string;
    try {
      if ('raw' in args) {
        const base = buildMiCommand(token, operation, []);
        assertSingleLine(args.raw, `-${operation} arguments`);
        line = args.raw === '' ? base : `${base} ${args.raw}`;
      } else {
        line = buildMiCommand(token, operation, args);
      }
    } catch (e) {
      return Promise.reject(new DebuggerError('invalid_argument', (e as Error).message, undefined, { cause: e }));
    }
    return new Promise<MiCommandResult>((resolve, reject) => {
      const entry: Pending = {
        token,
        operation,
        resolve,
        reject,
        origin,
        timer: undefined,
        signal: options.signal,
        onAbort: undefined,
        capture: options.captureConsole
          ? { console: [], log: [], bytes: 0, limit: options.captureLimit ?? 1024 * 1024, dropped: 0 }
          : undefined,
      };
      const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
      if (Number.isFinite(timeoutMs)) {
        entry.timer = setTimeout(() => {
          this.settle(
            token,
            new DebuggerError('timeout', `-${operation} got no answer from the debugger within ${timeoutMs} ms`),
          );
        }, timeoutMs);
        entry.timer.unref();
      }
      if (options.signal) {
        const signal = options.signal;
        entry.onAbort = () => {
          const reason: unknown = signal.reason;
          this.settle(
            token,
            reason instanceof DebuggerError ? reason : new DebuggerError('timeout', `-${operation} was cancelled`),
          );
        };
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      this.pending.set(token, entry);
      this.inFlight.push(token);
      this.transcript?.('send', line);
      try {
        this.input.write(`${line}\n`);
      } catch (e) {
        this.settle(
          token,
          new DebuggerError('debugger_error', `could not write to the debugger: ${(e as Error).message}`),
        );
      }
    });
  }

  /**
   * The debugger is gone (exited, killed, its pipe broke): every pending command fails at once
   * with the reason, and every later send fails the same way.
   */
  fail(reason: string): void {
    if (this.failure) return;
    this.failure = new DebuggerError('debugger_error', reason);
    this.inFlight.length = 0;
    for (const token of [...this.pending.keys()]) this.settle(token, this.failure);
  }

  private handleLine(line: string): void {
    this.transcript?.('recv', line);
    const record = parseMiLine(line);
    if (record.kind === 'result') {
      // Answers come in order: this one closes its command and any older one left unanswered.
      if (record.token !== undefined) {
        const at = this.inFlight.indexOf(record.token);
        if (at >= 0) this.inFlight.splice(0, at + 1);
      }
      const entry = record.token === undefined ? undefined : this.pending.get(record.token);
      if (entry === undefined) {
        this.onUnmatched(record);
        return;
      }
      if (record.class === 'error') {
        const msg = record.results['msg'];
        const code = record.results['code'];
        this.settle(
          entry.token,
          new DebuggerError('debugger_error', typeof msg === 'string' ? msg : 'the debugger reported an error', {
            operation: entry.operation,
            ...(typeof code === 'string' ? { miCode: code } : {}),
          }),
        );
      } else {
        const cap = entry.capture;
        let consoleText = cap ? cap.console.join('') : '';
        if (cap && cap.dropped > 0) consoleText += `\n[${cap.dropped} more bytes of output not kept]`;
        this.settle(entry.token, {
          class: record.class,
          results: record.results,
          console: consoleText,
          log: cap ? cap.log.join('') : '',
        });
      }
      return;
    }
    let captured = false;
    if (record.kind === 'console' || record.kind === 'log') {
      // GDB runs commands one after another, so what it prints belongs to the oldest command it
      // has not answered yet — even one whose caller gave up waiting (then it is kept by nobody).
      const oldest = this.inFlight[0];
      const cap = oldest === undefined ? undefined : this.pending.get(oldest)?.capture;
      if (cap) {
        captured = true;
        const room = cap.limit - cap.bytes;
        const text = record.text.length <= room ? record.text : record.text.slice(0, Math.max(0, room));
        cap.dropped += record.text.length - text.length;
        cap.bytes += text.length;
        (record.kind === 'console' ? cap.console : cap.log).push(text);
      }
    }
    this.onRecord(record, captured);
  }

  private settle(token: number, outcome: MiCommandResult | DebuggerError): void {
    const entry = this.pending.get(token);
    if (!entry) return;
    this.pending.delete(token);
    if (entry.timer) clearTimeout(entry.timer);
    if (entry.signal && entry.onAbort) entry.signal.removeEventListener('abort', entry.onAbort);
    if (outcome instanceof DebuggerError) entry.reject(this.withOrigin(outcome, entry.origin));
    else entry.resolve(outcome);
  }

  private withOrigin(error: DebuggerError, origin: Error): DebuggerError {
    const copy = new DebuggerError(error.code, error.message, error.details, { cause: error.cause });
    copy.stack = `${copy.name}: ${copy.message}\n${(origin.stack ?? '').split('\n').slice(1).join('\n')}`;
    return copy;
  }
}
