// Raw GDB CLI commands (dbg_command) and the policy they run under.
//
// `read` (the default): only the read-only inspection commands of gdbRawPolicy.ts, parsed as GDB
// looks commands up; and around each one GDB itself refuses memory writes and calls into the
// program and prints no source text (observer settings, restored afterwards).
//
// `full`: every command with the server's authority, but for those that would break the session
// itself: end or detach the debugger behind the session's back, speak on the debugger's own input
// and output (which carry the MI protocol), read further lines from that input, or change the
// settings the backend depends on. That list protects the session, not the machine: no other
// policy binds a `full` session. Resuming commands run in the background so an interrupt can
// still reach GDB.

import { gdbSet } from '../../protocols/mi/commands/gdb.js';
import { DebuggerError } from '../../util/errors.js';
import type { CommandOptions, CommandOutput } from '../debuggerBackend.js';
import type { GdbContext } from './gdbContext.js';
import { classifyGdbCommand } from './gdbRawPolicy.js';

interface Rule {
  /** The command's full name. */
  name: string;
  /** Its shortest abbreviation GDB accepts (measured on GDB 13 with `help PREFIX`). */
  min: string;
  /** Other names GDB knows it by. */
  aliases?: readonly string[];
  /** Refused only when nothing follows the name (the bare form reads further lines). */
  bareOnly?: boolean;
  why: string;
}

const ENDS = 'would end the debugger under the session: use dbg_close';
const LEAVES = 'would let the program go on outside the session: use dbg_close';
const CHANNEL = "runs on the debugger's own input and output, which carry the MI protocol";
const READS = "reads more lines from the debugger's input, which is the MI protocol channel";
const TERMINAL = "the program's output must stay on its own terminal (dbg_io reads it)";
const SETTING = 'the server depends on this setting';

const COMMANDS: readonly Rule[] = [
  { name: 'quit', min: 'q', aliases: ['exit'], why: ENDS },
  { name: 'detach', min: 'det', why: LEAVES },
  { name: 'disconnect', min: 'disc', why: LEAVES },
  { name: 'kill', min: 'k', why: 'use dbg_run action=kill, so the session knows the program is gone' },
  { name: 'attach', min: 'at', why: 'a session debugs one target: start another session for another process' },
  { name: 'shell', min: 'she', aliases: ['!'], why: CHANNEL },
  { name: 'pipe', min: 'pip', aliases: ['|'], why: CHANNEL },
  { name: 'make', min: 'mak', why: CHANNEL },
  { name: 'edit', min: 'ed', why: CHANNEL },
  { name: 'interpreter-exec', min: 'interp', why: CHANNEL },
  { name: 'new-ui', min: 'new', why: CHANNEL },
  { name: 'tty', min: 'tt', why: TERMINAL },
  { name: 'python', min: 'py', bareOnly: true, why: `${READS}: give the code on the same line` },
  { name: 'python-interactive', min: 'python-', aliases: ['pi'], bareOnly: true, why: READS },
  { name: 'guile', min: 'gu', bareOnly: true, why: `${READS}: give the code on the same line` },
  { name: 'guile-repl', min: 'guile-', aliases: ['gr'], why: READS },
  { name: 'define', min: 'define', why: READS },
  { name: 'document', min: 'doc', why: READS },
  { name: 'while', min: 'while', why: READS },
  { name: 'if', min: 'if', why: READS },
  { name: 'commands', min: 'comm', why: `${READS}: use dbg_breakpoints (condition, dprintf)` },
];

const SETTINGS: readonly Rule[] = [
  { name: 'pagination', min: 'pa', why: SETTING },
  { name: 'height', min: 'he', why: SETTING },
  { name: 'width', min: 'wi', why: SETTING },
  { name: 'confirm', min: 'con', why: SETTING },
  { name: 'mi-async', min: 'mi', why: SETTING },
  { name: 'target-async', min: 'target-a', why: SETTING },
  { name: 'non-stop', min: 'n', why: SETTING },
  { name: 'logging', min: 'lo', why: 'it would divert the console output this tool returns' },
  { name: 'inferior-tty', min: 'inf', why: TERMINAL },
  { name: 'may-call-functions', min: 'may-c', why: 'the server operator sets it (--inferior-calls)' },
  { name: 'startup-with-shell', min: 'startup-w', why: 'program arguments stay literal, with no shell' },
];

/**
 * Commands that resume the program. GDB reads no more MI input while one of them runs in the
 * foreground (measured: -exec-interrupt waited until the program stopped by itself), so they are
 * sent with `&` to run in the background, where dbg_run action=interrupt can still stop them.
 */
const RESUMING: readonly Rule[] = [
  { name: 'run', min: 'r', why: '' },
  { name: 'start', min: 'start', why: '' },
  { name: 'starti', min: 'starti', why: '' },
  { name: 'continue', min: 'c', aliases: ['fg'], why: '' },
  { name: 'next', min: 'n', why: '' },
  { name: 'step', min: 's', why: '' },
  { name: 'stepi', min: 'stepi', aliases: ['si'], why: '' },
  { name: 'nexti', min: 'nexti', aliases: ['ni'], why: '' },
  { name: 'until', min: 'u', why: '' },
  { name: 'advance', min: 'adv', why: '' },
  { name: 'finish', min: 'fin', why: '' },
  { name: 'jump', min: 'j', why: '' },
  { name: 'signal', min: 'sig', why: '' },
  { name: 'reverse-step', min: 'reverse-step', aliases: ['rs'], why: '' },
  { name: 'reverse-next', min: 'reverse-next', aliases: ['rn'], why: '' },
  { name: 'reverse-stepi', min: 'reverse-stepi', aliases: ['rsi'], why: '' },
  { name: 'reverse-nexti', min: 'reverse-nexti', aliases: ['rni'], why: '' },
  { name: 'reverse-continue', min: 'reverse-c', aliases: ['rc'], why: '' },
  { name: 'reverse-finish', min: 'reverse-f', why: '' },
];

/** GDB's command-name characters; `!` and `|` are commands of one character. */
const WORD = /^\s*([!|]|[A-Za-z0-9_.-]+)/;

function matches(rule: Rule, word: string): boolean {
  return (
    rule.aliases?.includes(word) === true ||
    (word.length >= rule.min.length && rule.name.startsWith(word) && word.startsWith(rule.min))
  );
}

/** Why `command` is refused, or undefined when it may run. */
export function refusal(command: string): string | undefined {
  const first = WORD.exec(command);
  if (!first?.[1]) return undefined;
  const word = first[1];
  const rest = command.slice(first[0].length);
  if (word === 'set') {
    const second = WORD.exec(rest)?.[1];
    const rule = second === undefined ? undefined : SETTINGS.find((r) => matches(r, second));
    return rule ? `set ${rule.name}: ${rule.why} (to assign a variable: set var NAME = VALUE)` : undefined;
  }
  const rule = COMMANDS.find((r) => matches(r, word));
  if (!rule) return undefined;
  if (rule.bareOnly && rest.trim() !== '') return undefined;
  return `${rule.name}: ${rule.why}`;
}

/** `command` as sent: a resuming command runs in the background (see RESUMING). */
export function backgrounded(command: string): string {
  const word = WORD.exec(command)?.[1];
  const trimmed = command.trimEnd();
  if (word === undefined || trimmed.endsWith('&') || !RESUMING.some((r) => matches(r, word))) return command;
  return `${trimmed} &`;
}

/** Runs one raw command under the policy; its console output back. */
export async function runCommand(
  g: GdbContext,
  text: string,
  options: CommandOptions,
  signal?: AbortSignal,
  running = false,
): Promise<CommandOutput> {
  if (options.policy === 'read') {
    const verdict = classifyGdbCommand(text, options.dialect === 'rr' ? 'rr' : 'gdb');
    if (!verdict.allowed) throw refused(verdict.reason);
    // No allowed command resumes the program: nothing to send to the background. While it runs,
    // GDB (all-stop) reads nothing of it, and turning may-write-memory off would fail the
    // breakpoints it re-inserts at each internal stop (software watchpoints step all the time).
    // Source text stays closed all the same (`disassemble /s` reads any file the debug info names).
    if (running) return sourceClosed(g, signal, () => capture(g, text, options, signal));
    return observed(g, signal, () => capture(g, text, options, signal));
  }
  const why = refusal(text);
  if (why) throw refused(`${why}`);
  return capture(g, backgrounded(text), options, signal);
}

function refused(why: string): DebuggerError {
  return new DebuggerError('invalid_argument', `refused: ${why}`, { fields: ['command'] }, { reason: 'policy' });
}

const CAPTURE_LIMIT = 256 * 1024;

async function capture(g: GdbContext, text: string, options: CommandOptions, signal?: AbortSignal) {
  const r = await g.cli(
    text,
    { signal, timeoutMs: options.timeoutMs, captureConsole: true, captureLimit: CAPTURE_LIMIT },
    { threadId: options.threadId, frame: options.frame },
  );
  const output = r.console + (r.log && !r.log.startsWith(text) ? r.log : '');
  return { output, truncated: r.console.length >= CAPTURE_LIMIT, resumed: r.class === 'running' };
}

/** Runs `task` with GDB printing no source text, restored afterwards: the one observer setting
 * that may change while the program runs. */
async function sourceClosed<T>(g: GdbContext, signal: AbortSignal | undefined, task: () => Promise<T>): Promise<T> {
  await gdbSet(g.mi, 'source open off', { signal });
  try {
    return await task();
  } finally {
    await gdbSet(g.mi, 'source open on').catch(() => {});
  }
}

/**
 * Runs `task` with GDB refusing memory writes and calls into the program and printing no source
 * text (a crafted program's debug info may name any file), then restores the three settings,
 * whatever happens. Measured on GDB 13.1: these can change while the program lives (unlike
 * may-write-registers, so the policy refuses writing operators itself), and may-write-memory must
 * be on again before the program runs, or GDB cannot insert breakpoints.
 */
async function observed<T>(g: GdbContext, signal: AbortSignal | undefined, task: () => Promise<T>): Promise<T> {
  const set = (setting: string) => gdbSet(g.mi, setting, { signal });
  await Promise.all([set('may-write-memory off'), set('may-call-functions off'), set('source open off')]);
  try {
    return await task();
  } finally {
    const calls = g.options.allowInferiorCalls ? 'on' : 'off';
    // Not bound to the caller's signal: a cancelled call must still leave GDB as it was.
    await Promise.all(
      ['may-write-memory on', `may-call-functions ${calls}`, 'source open on'].map((setting) =>
        gdbSet(g.mi, setting).catch(() => {}),
      ),
    );
  }
}
