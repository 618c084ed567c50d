// A person at their own debugger: gdb or lldb running interactively on a pseudo-terminal, typed
// into line by line, its screen read back (terminal codes removed). The tests of joining drive
// it exactly as a person would, and check afterwards that what the person types still works.

import { createRequire } from 'node:module';
import { afterEach } from 'vitest';
import { descendants } from './procfs.js';

const require = createRequire(import.meta.url);
const pty = require('@lydell/node-pty') as {
  spawn(
    file: string,
    args: string[],
    options: { cols: number; rows: number; cwd?: string; env: Record<string, string> },
  ): {
    pid: number;
    write(data: string): void;
    onData(cb: (d: string) => void): void;
    onExit(cb: (e: { exitCode: number; signal?: number }) => void): void;
    kill(signal?: string): void;
  };
};

/** Colours, cursor moves and the bracketed-paste switches readline and editline write. */
const CODES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[78=>]|\x1b\][^\x07]*\x07|\r/g;

const open: Person[] = [];

afterEach(() => {
  for (const p of open.splice(0)) p.close();
});

export class Person {
  private screen = '';
  /** Where the last `expect` matched: later waits look only at what came after. */
  private mark = 0;
  exited = false;
  readonly pid: number;
  private readonly term: ReturnType<typeof pty.spawn>;

  constructor(file: string, args: string[], env: Record<string, string>, cwd?: string) {
    this.term = pty.spawn(file, args, {
      cols: 200,
      rows: 50,
      ...(cwd ? { cwd } : {}),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color', ...env },
    });
    this.pid = this.term.pid;
    this.term.onData((d) => {
      this.screen += d.replace(CODES, '');
    });
    this.term.onExit(() => {
      this.exited = true;
    });
    open.push(this);
  }

  /** Everything the terminal showed so far. */
  get text(): string {
    return this.screen;
  }

  /** What the terminal showed since the last match. */
  get recent(): string {
    return this.screen.slice(this.mark);
  }

  type(line: string): void {
    this.term.write(`${line}\r`);
  }

  /** A key as typed, with no Enter after it (\x03 is Ctrl-C). */
  press(key: string): void {
    this.term.write(key);
  }

  /**
   * Waits until the screen, after the last match, shows `pattern`; returns the match. Fails
   * naming what the screen shows; the deadline only catches a hang.
   */
  async expect(pattern: RegExp, timeoutMs = 20_000): Promise<RegExpExecArray> {
    const started = Date.now();
    for (;;) {
      const m = pattern.exec(this.screen.slice(this.mark));
      if (m) {
        this.mark += m.index + m[0].length;
        return m;
      }
      if (this.exited)
        throw new Error(`the debugger exited before showing ${pattern}; screen:\n${this.recent.slice(-2000)}`);
      if (Date.now() - started > timeoutMs) {
        throw new Error(
          `the screen did not show ${pattern} within ${timeoutMs} ms; it shows:\n${this.recent.slice(-2000)}`,
        );
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** Types a command and waits for what it should print. */
  async run(line: string, pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray> {
    this.type(line);
    return this.expect(pattern, timeoutMs);
  }

  /**
   * Ends the person's debugger and everything it started: a program LLDB runs through
   * lldb-server outlives a SIGKILLed lldb (measured: a `spin` left running at full CPU).
   */
  close(): void {
    if (this.exited) return;
    for (const p of descendants(this.pid)) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    try {
      this.term.kill('SIGKILL');
    } catch {
      // gone
    }
  }
}
