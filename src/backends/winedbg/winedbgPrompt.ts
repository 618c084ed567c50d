// A driver for winedbg's interactive prompt, for what GDB through the proxy cannot do: list the
// prefix's Windows processes (info process), the modules and threads of a process (info share,
// info thread, after attach), and Windows exception records in winedbg's words (info exception).
//
// The protocol (measured, Wine 8.0, stdin and stdout pipes): winedbg prints "Wine-dbg>" with no
// newline after it and reads one line per command; its output is written unbuffered, so a reply is
// complete when the next prompt comes (1-50 ms a command here; the first prompt 200-900 ms after
// the start). But the prompt text can also appear inside a reply (a string in the program's
// memory, a symbol name), so the end of a reply is not taken from a prompt alone: after each
// command the driver sends `echo <nonce>` and the reply ends where
// "Wine-dbg><line holding the nonce>\nWine-dbg>" ends the stream. (`echo` needs a loaded
// process; without one winedbg's error "cannot execute 'echo <nonce>'" quotes it just as well.)
//
// The rules kept from winedbg-mcp: a command is one line (\n, \r, VT, FF, NEL, U+2028, U+2029 and
// NUL refused, checked on the way in and again right before the write); one command at a time;
// after a timeout the late reply is drained (by its nonce) before the next command is sent, or
// that command is refused; a reply is capped, oldest text dropped with a notice.

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import { guardSession, releaseSession } from '../../process/orphanGuard.js';
import { identify } from '../../process/processTree.js';
import { signalGroup, spawnInGroup, waitForExit } from '../../process/spawnGroup.js';
import { DebuggerError } from '../../util/errors.js';
import { CappedText } from './cappedText.js';
import type { WinePrefix } from './winePrefix.js';

export const PROMPT = 'Wine-dbg>';
export const MAX_COMMAND = 4096;
const DEFAULT_CAP = 1 << 20;
const LINE_BREAK = /[\n\r\v\f\u0085\u2028\u2029\0]/;

/** Refuses a command that is not exactly one line under every reader's idea of a line. */
export function assertOneLine(command: string): void {
  if (LINE_BREAK.test(command)) {
    throw new DebuggerError(
      'invalid_argument',
      'a winedbg command is one line: it may not hold \\n, \\r, VT, FF, NEL, U+2028, U+2029 or NUL',
    );
  }
  if (command.length > MAX_COMMAND) {
    throw new DebuggerError('invalid_argument', `a winedbg command is at most ${MAX_COMMAND} characters`);
  }
}

export interface PromptOptions {
  prefix: WinePrefix;
  /** winedbg's arguments: none for a bare prompt, a program, or a Windows pid to attach to. */
  args?: readonly string[];
  /** Extra environment (the session's mark). */
  env?: Record<string, string>;
  /** UTF-16 code units kept of one reply. */
  cap?: number;
  startTimeoutMs?: number;
  /** The winedbg to run (tests point it at a stand-in). */
  winedbg?: string;
}

export interface PromptReply {
  text: string;
  /** Code points dropped from the start of the reply at the cap (the text then opens with a notice). */
  dropped: number;
  /** From the write of the command to the end of its reply. */
  ms: number;
}

export interface ExecuteOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface Waiter {
  nonce: string;
  resolve: () => void;
}

export class WinedbgPrompt {
  private readonly decoder = new StringDecoder('utf8');
  private readonly reply: CappedText;
  private waiter: Waiter | undefined;
  /** The nonce of a command that timed out, whose reply has not come in yet. */
  private late: { nonce: string; command: string } | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private exited: string | undefined;
  /** What winedbg printed before its first prompt (the attach or start banner). */
  banner = '';

  private constructor(
    readonly child: ChildProcessWithoutNullStreams,
    cap: number,
  ) {
    // Room for the end of a reply (prompt, nonce line, prompt) at any cap.
    this.reply = new CappedText(Math.max(cap, 4096));
    child.stdout.on('data', (chunk: Buffer) => this.receive(this.decoder.write(chunk)));
    child.stderr.resume();
    child.stdin.on('error', () => {}); // a dead winedbg shows up as 'exit'
    child.once('exit', (code, signal) => {
      this.exited = `winedbg exited (${signal ?? `code ${code}`})`;
      this.waiter?.resolve();
    });
  }

  static async start(options: PromptOptions): Promise<WinedbgPrompt> {
    const { prefix } = options;
    const child = spawnInGroup(options.winedbg ?? prefix.wineTools.winedbg, [...(options.args ?? [])], {
      env: prefix.environment(options.env ?? {}),
    });
    if (child.pid === undefined) throw new DebuggerError('backend_unavailable', 'winedbg did not start');
    guardSession(identify(child.pid));
    const prompt = new WinedbgPrompt(child, options.cap ?? DEFAULT_CAP);
    try {
      // The banner ends at the first prompt; the sync command proves we are at a real one.
      const first = await prompt.run('', { timeoutMs: options.startTimeoutMs ?? 60_000 }, true);
      prompt.banner = first.text;
      return prompt;
    } catch (e) {
      await prompt.close();
      throw e;
    }
  }

  get alive(): boolean {
    return this.exited === undefined;
  }

  /** Runs one command and resolves with its reply. Commands queue: one runs at a time. */
  execute(command: string, options: ExecuteOptions = {}): Promise<PromptReply> {
    try {
      assertOneLine(command);
    } catch (e) {
      return Promise.reject(e);
    }
    const run = this.chain.then(() => this.run(command, options, false));
    this.chain = run.catch(() => {});
    return run;
  }

  private async run(command: string, options: ExecuteOptions, startup: boolean): Promise<PromptReply> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    if (this.exited) throw new DebuggerError('debugger_error', this.exited);
    const deadline = Date.now() + timeoutMs;
    if (this.late) {
      // The reply of a command that timed out may still come: it must not pass for this one's.
      const late = this.late;
      if (!(await this.waitForTail(late.nonce, timeoutMs, options.signal))) {
        throw new DebuggerError(
          'timeout',
          `winedbg has not come back to its prompt since \`${late.command}\` timed out; the session must be restarted if it never does`,
        );
      }
      this.late = undefined;
    }
    const nonce = `dbgmcp-${randomBytes(8).toString('hex')}`;
    if (!startup) this.reply.clear();
    // Checked again right before the write, whatever path led here.
    assertOneLine(command);
    const started = process.hrtime.bigint();
    if (!startup) this.child.stdin.write(`${command}\n`);
    this.child.stdin.write(`echo ${nonce}\n`);
    const remaining = Math.max(0, deadline - Date.now());
    if (!(await this.waitForTail(nonce, remaining, options.signal))) {
      if (this.exited) throw new DebuggerError('debugger_error', `${this.exited} while running \`${command}\``);
      this.late = { nonce, command: startup ? '(start)' : command };
      throw new DebuggerError('timeout', `winedbg gave no reply to \`${command}\` within ${timeoutMs} ms`);
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const text = this.cutTail(nonce);
    const dropped = this.reply.dropped;
    const rendered = dropped > 0 ? `[${dropped} characters of earlier output dropped: buffer limit]\n${text}` : text;
    this.reply.clear();
    return { text: rendered, dropped, ms };
  }

  private receive(text: string): void {
    if (!text) return;
    this.reply.append(text);
    const w = this.waiter;
    if (w && this.tailAt(w.nonce) >= 0) w.resolve();
  }

  /** Where "Wine-dbg><nonce line>\nWine-dbg>" starts, when the kept text ends with it; else -1. */
  private tailAt(nonce: string): number {
    const text = this.reply.value;
    if (!text.endsWith(`\n${PROMPT}`)) return -1;
    const at = text.lastIndexOf(nonce);
    if (at < 0) return -1;
    const lineEnd = text.indexOf('\n', at);
    if (lineEnd !== text.length - 1 - PROMPT.length) return -1;
    const before = text.lastIndexOf(PROMPT, at);
    // The prompt that ended the command must be on the nonce's line, before the nonce.
    if (before < 0 || text.slice(before + PROMPT.length, at).includes('\n')) return -1;
    return before;
  }

  private cutTail(nonce: string): string {
    const at = this.tailAt(nonce);
    return at < 0 ? this.reply.value : this.reply.value.slice(0, at);
  }

  private waitForTail(nonce: string, ms: number, signal?: AbortSignal): Promise<boolean> {
    if (this.tailAt(nonce) >= 0) {
      // A late reply found whole: drop it with its tail.
      return Promise.resolve(true);
    }
    if (this.exited) return Promise.resolve(false);
    return new Promise((resolve) => {
      const finish = (ok: boolean): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (this.waiter === waiter) this.waiter = undefined;
        resolve(ok);
      };
      const waiter: Waiter = { nonce, resolve: () => finish(this.tailAt(nonce) >= 0) };
      const onAbort = (): void => finish(false);
      const timer = setTimeout(() => finish(false), ms);
      timer.unref();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiter = waiter;
    });
  }

  /** Ends winedbg: `quit`, then its group is killed. Killing a winedbg that is attached kills the
   * process it debugs (the wineserver's kill-on-exit): detach first to leave it running. */
  async close(): Promise<void> {
    const pgid = this.child.pid;
    if (this.alive) {
      try {
        this.child.stdin.write('quit\n');
      } catch {
        // its stdin is gone
      }
      await waitForExit(this.child, 1000);
    }
    if (pgid !== undefined) {
      signalGroup(pgid, 'SIGKILL');
      await waitForExit(this.child, 1000);
      releaseSession(pgid);
    }
  }
}
