// The debugged program's own pseudo-terminal. GDB is told its path (-inferior-tty-set), so the
// program's output never enters the MI stream and nothing written to GDB can reach the program.
//
// The pty is opened without spawning anything: node-pty's open() hands us both ends. Measured
// here: reusing the pty of a spawned process makes gdb warn about the controlling terminal,
// while a bare pty gives the program a clean one. We keep the slave end open ourselves, without
// reading it, so the master never sees EIO between two runs of the program.

import { execFile } from 'node:child_process';
import { closeSync } from 'node:fs';
import { createRequire } from 'node:module';
import tty from 'node:tty';
import { promisify } from 'node:util';
import { OutputRing } from './outputRing.js';

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

export interface ProgramTerminalOptions {
  /** Bytes of output kept for reading by cursor. */
  capacity?: number;
}

export class ProgramTerminal {
  readonly path: string;
  readonly output: OutputRing;
  private readonly master: tty.ReadStream;
  private readonly slaveFd: number;
  private closed = false;
  /** Whether bytes written since the last newline are waiting in the terminal's line buffer. */
  private partialLine = false;

  private constructor(path: string, masterFd: number, slaveFd: number, capacity: number) {
    this.path = path;
    this.slaveFd = slaveFd;
    this.output = new OutputRing(capacity);
    this.master = new tty.ReadStream(masterFd);
    this.master.on('data', (chunk: Buffer | string) => {
      this.output.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    });
    // EIO arrives when no process holds the slave open; we hold it, so this is a real fault,
    // and losing the terminal must not take the server down.
    this.master.on('error', () => {});
  }

  /**
   * Opens a pty with echo off (what the agent writes is not mixed into the program's output) and
   * without CR/LF translation of output; canonical mode stays on so EOF (^D) works.
   */
  static async open(options: ProgramTerminalOptions = {}): Promise<ProgramTerminal> {
    const { master, slave, pty } = ptyBinding().open(120, 40);
    try {
      await execFileAsync('stty', ['-F', pty, '-echo', '-onlcr', 'cols', '120', 'rows', '40'], { timeout: 5000 });
    } catch (e) {
      closeSync(master);
      closeSync(slave);
      throw e;
    }
    return new ProgramTerminal(pty, master, slave, options.capacity ?? 1024 * 1024);
  }

  /** Writes to the program's stdin. Resolves once the bytes are handed to the terminal. */
  write(data: string | Buffer): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the program terminal is closed'));
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    if (bytes.length > 0) {
      const last = bytes[bytes.length - 1];
      this.partialLine = last !== 0x0a && last !== 0x04;
    }
    return new Promise((resolve, reject) => {
      // tty.ReadStream is a net.Socket over the master fd, so it writes too.
      (this.master as unknown as NodeJS.WritableStream).write(bytes, (err?: Error | null) => {
        if (err) reject(err);
        else resolve();
      });
    });
  }

  /**
   * End of input: a reader blocked in read() gets 0 bytes. In canonical mode ^D first hands over a
   * pending partial line, so one more is needed then for the reader to see end-of-file.
   */
  sendEof(): Promise<void> {
    return this.write(this.partialLine ? EOF_CHAR + EOF_CHAR : EOF_CHAR);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.master.destroy();
    try {
      closeSync(this.slaveFd);
    } catch {
      // already closed
    }
  }
}
