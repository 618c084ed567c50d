// The debugged program's own pseudo-terminal. GDB is told its path (-inferior-tty-set), so the
// program's output never enters the MI stream and nothing written to GDB can reach the program.
//
// The pty is opened without spawning anything: node-pty's open() hands us both ends. Measured
// here: reusing the pty of a spawned process makes gdb warn about the controlling terminal,
// while a bare pty gives the program a clean one. We keep the slave end open ourselves, without
// reading it, so the master never sees EIO between two runs of the program.

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import tty from 'node:tty';
import { promisify } from 'node:util';
import { DebuggerError } from '../util/errors.js';
import { OutputRing } from './outputRing.js';
import { StdinQueue, type StdinReport, type StdinWaitOptions } from './stdinQueue.js';

export { type StdinReport, type StdinWaitOptions, waitUntil } from './stdinQueue.js';

interface PtyBinding {
  open(cols: number, rows: number): { master: number; slave: number; pty: string };
}

let binding: PtyBinding | undefined;

function ptyBinding(): PtyBinding {
  if (binding === undefined) {
    const require = createRequire(import.meta.url);
    const loader = require('@lydell/node-pty/requireBinary.js') as { requireBinary(file: string): PtyBinding };
    binding = loader.requireBinary('pty.node');
  }
  return binding;
}

const execFileAsync = promisify(execFile);

/** ASCII EOT: at the start of a line, the terminal's end-of-file for a reader in canonical mode. */
const EOF_CHAR = '\x04';

/**
 * The longest line a reader in canonical mode receives whole: the kernel's line buffer is 4,096
 * bytes and keeps the last for the newline. Measured: 4,095 bytes and a newline arrive as sent;
 * 4,096 or 5,000 arrive as 4,095 and the newline, the rest dropped without a word.
 */
export const CANONICAL_LINE_MAX = 4095;

/** Sync marks written but not yet seen; older ones are given up (their bytes would show). */
const MAX_MARKS = 8;

interface SyncMark {
  bytes: Buffer;
  /** Set until the sync() call that wrote the mark has been answered. */
  settle: ((seen: boolean) => void) | undefined;
}

export interface ProgramTerminalOptions {
  /** Bytes of output kept for reading by cursor. */
  capacity?: number;
}

export class ProgramTerminal {
  readonly path: string;
  readonly output: OutputRing;
  private readonly master: tty.ReadStream;
  private readonly masterFd: number;
  private readonly slaveFd: number;
  private closed = false;
  /** Bytes queued since the last newline or EOF: the line the terminal is still gathering. */
  private lineLength = 0;
  private readonly stdin: StdinQueue;
  /** Writes are admitted one after another, so each checks its line against the ones before. */
  private admitted: Promise<unknown> = Promise.resolve();
  /**
   * Sync marks (see sync()): an APC escape with a per-terminal nonce the program cannot guess.
   * Only ESC, '_', '-', '\\', upper case and digits, which no output-processing flag (olcuc,
   * onlcr, xtabs…) rewrites, whatever the program did to its terminal's modes.
   */
  private readonly markPrefix = `\x1b_DBGMCP-${randomBytes(8).toString('hex').toUpperCase()}-`;
  private nextMark = 1;
  private readonly marks: SyncMark[] = [];
  /** The end of the last chunk, held back while it could be the start of a mark. */
  private carry: Buffer = Buffer.alloc(0);

  private constructor(path: string, masterFd: number, slaveFd: number, capacity: number) {
    this.path = path;
    this.masterFd = masterFd;
    this.slaveFd = slaveFd;
    this.stdin = new StdinQueue((bytes) => this.writeSome(bytes));
    this.output = new OutputRing(capacity);
    this.master = new tty.ReadStream(masterFd);
    this.master.on('data', (chunk: Buffer | string) => {
      this.receive(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    });
    // EIO arrives when no process holds the slave open; we hold it, so this is a real fault,
    // and losing the terminal must not take the server down.
    this.master.on('error', () => {});
  }

  /**
   * Opens a pty with echo off (what the agent writes is not mixed into the program's output),
   * without CR/LF translation of output, and without signals from control characters (only the
   * debugger interrupts the program). Canonical mode stays on so EOF (^D) works.
   */
  static async open(options: ProgramTerminalOptions = {}): Promise<ProgramTerminal> {
    const { master, slave, pty } = ptyBinding().open(120, 40);
    try {
      await execFileAsync('stty', ['-F', pty, '-echo', '-onlcr', '-isig', 'cols', '120', 'rows', '40'], {
        timeout: 5000,
      });
    } catch (e) {
      closeSync(master);
      closeSync(slave);
      throw e;
    }
    return new ProgramTerminal(pty, master, slave, options.capacity ?? 1024 * 1024);
  }

  /** Program output into the ring, with sync marks cut out and their sync() calls answered. */
  private receive(chunk: Buffer): void {
    let data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = Buffer.alloc(0);
    while (this.marks.length > 0) {
      let at = -1;
      let which = -1;
      this.marks.forEach((m, i) => {
        const found = data.indexOf(m.bytes);
        if (found >= 0 && (at < 0 || found < at)) {
          at = found;
          which = i;
        }
      });
      if (which < 0) {
        const keep = this.markStartAtEnd(data);
        this.output.write(data.subarray(0, data.length - keep));
        this.carry = Buffer.from(data.subarray(data.length - keep));
        return;
      }
      const [mark] = this.marks.splice(which, 1);
      this.output.write(data.subarray(0, at));
      data = data.subarray(at + (mark?.bytes.length ?? 0));
      mark?.settle?.(true);
    }
    this.output.write(data);
  }

  /** How many bytes at the end of `data` could begin a pending mark (cut across two reads). */
  private markStartAtEnd(data: Buffer): number {
    let longest = 0;
    for (const { bytes } of this.marks) {
      for (let n = Math.min(bytes.length - 1, data.length); n > longest; n--) {
        if (data.subarray(data.length - n).equals(bytes.subarray(0, n))) {
          longest = n;
          break;
        }
      }
    }
    return longest;
  }

  /**
   * Resolves once every byte the program wrote before this call is in the ring (true), or at the
   * deadline (false). The pty hands the slave's bytes to the master through a kernel work queue,
   * so a program's last words can reach us after gdb reported its exit (measured: 1-40 ms, in
   * about one run in twenty). A mark written to the slave now travels the same queue behind them.
   */
  sync(timeoutMs = 250): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    const mark: SyncMark = { bytes: Buffer.from(`${this.markPrefix}${this.nextMark++}\x1b\\`), settle: undefined };
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        mark.settle?.(false);
        // Nothing more may come; don't sit on the program's bytes.
        if (this.carry.length > 0) {
          this.output.write(this.carry);
          this.carry = Buffer.alloc(0);
        }
      }, timeoutMs);
      timer.unref();
      mark.settle = (seen) => {
        clearTimeout(timer);
        mark.settle = undefined;
        resolve(seen);
      };
      this.marks.push(mark);
      if (this.marks.length > MAX_MARKS) this.marks.shift()?.settle?.(false);
      try {
        // Synchronous and non-blocking (node-pty opens the slave O_NONBLOCK): an async write
        // could land on a recycled fd number after close().
        writeSync(this.slaveFd, mark.bytes);
      } catch {
        this.marks.splice(this.marks.indexOf(mark), 1);
        mark.settle(false);
      }
    });
  }

  /**
   * Types `data` into the program's stdin. Resolves when the terminal has taken every byte, or at
   * the deadline (default 1 s) or abort with what it has taken; the rest stays queued in order and
   * is written as the program reads (dropped if the terminal closes first). Never blocks.
   * Refuses, before queuing anything, a line longer than the terminal passes whole.
   */
  writeStdin(data: string | Buffer, options: StdinWaitOptions = {}): Promise<StdinReport> {
    return this.admit(typeof data === 'string' ? Buffer.from(data) : data, options);
  }

  /**
   * End of input: a reader blocked in read() gets 0 bytes. In canonical mode ^D first hands over a
   * pending partial line, so one more is needed then for the reader to see end-of-file.
   */
  sendEofReport(options: StdinWaitOptions = {}): Promise<StdinReport> {
    return this.admit('eof', options);
  }

  /** Bytes written earlier that the program has not read yet (they wait in this process). */
  get stdinWaiting(): number {
    return this.stdin.waiting;
  }

  private admit(data: Buffer | 'eof', options: StdinWaitOptions): Promise<StdinReport> {
    const turn = this.admitted.then(async () => {
      if (this.closed) throw new DebuggerError('wrong_state', 'the program terminal is closed');
      const bytes = data === 'eof' ? Buffer.from(this.lineLength > 0 ? EOF_CHAR + EOF_CHAR : EOF_CHAR) : data;
      const lines = measureLines(bytes, this.lineLength);
      if (lines.longest > CANONICAL_LINE_MAX && (await this.canonical())) throw longLineError(lines.longest, 'data');
      this.lineLength = lines.after;
      // push() queues synchronously; only its wait is handed back, so the next write need not wait.
      return { report: this.stdin.push(bytes, options) };
    });
    this.admitted = turn.catch(() => {});
    return turn.then((t) => t.report);
  }

  /** Whether the program's terminal is in canonical (line) mode; assumed when stty cannot tell. */
  private async canonical(): Promise<boolean> {
    try {
      const { stdout } = await execFileAsync('stty', ['-F', this.path, '-a'], { timeout: 5000 });
      return !/(^|\s)-icanon(\s|$)/.test(stdout);
    } catch {
      return true;
    }
  }

  /** One non-blocking write to the master (libuv made the fd O_NONBLOCK): 0 when it is full. */
  private writeSome(bytes: Buffer): number {
    if (this.closed) return 0;
    try {
      return writeSync(this.masterFd, bytes);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') return 0;
      throw e;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const mark of this.marks.splice(0)) mark.settle?.(false);
    // Before the fd closes: its number could be reused by the next open().
    this.stdin.close();
    this.master.destroy();
    try {
      closeSync(this.slaveFd);
    } catch {
      // already closed
    }
  }
}

/** The longest line `bytes` makes, after `pending` bytes of an unfinished line, and what is left unfinished. */
export function measureLines(bytes: Buffer, pending: number): { longest: number; after: number } {
  let current = pending;
  let longest = pending;
  for (const byte of bytes) {
    // A newline ends a line; so does ^D, which hands the partial line over as it is.
    if (byte === 0x0a || byte === 0x04) current = 0;
    else if (++current > longest) longest = current;
  }
  return { longest, after: current };
}

function longLineError(longest: number, field: string): DebuggerError {
  return new DebuggerError(
    'invalid_argument',
    `a line of ${longest} bytes before its newline is longer than the terminal takes whole ` +
      `(${CANONICAL_LINE_MAX} bytes in canonical mode): the kernel would keep ${CANONICAL_LINE_MAX} and drop the rest ` +
      'without a word. Nothing was written: split the input into shorter lines',
    { fields: [field], limit: CANONICAL_LINE_MAX },
  );
}

/**
 * Refuses, before a program starts, stdin with a line its terminal would cut (the terminal starts
 * in canonical mode): the same refusal as writeStdin's, for input given with the launch.
 */
export function assertStdinLinesFit(text: string | Buffer, field = 'stdin'): void {
  const { longest } = measureLines(typeof text === 'string' ? Buffer.from(text) : text, 0);
  if (longest > CANONICAL_LINE_MAX) throw longLineError(longest, field);
}
