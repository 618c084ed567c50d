// The raw-command policy of GDB's CLI under `--raw read`: an allowlist of read-only inspection
// commands, decided by parsing the line the way GDB's own command lookup does, never by matching a
// prefix. A denylist cannot hold: `eval` builds a command from text (also from `%c`), `alias` renames
// one, `with … --` and `frame apply`/`thread apply`/`taas`/`faas` run one, so any refused command
// comes back under another name. Here a line is allowed only when GDB will run one of the commands
// below with it, and those commands run no other command.
//
// How GDB 13 finds a command (cli/cli-decode.c, lookup_cmd_1 and find_cmd): leading blanks are
// skipped; the name is `!` or `|` alone, or the run of [A-Za-z0-9_.+<>$-] (so `p/x` is `p` then
// `/x`); a name equal to a command's name or alias is that command, else the one command or alias
// the name begins, else ambiguous (two aliases of the same command count twice). Case counts:
// `PRINT 1` is "Undefined command" in GDB 13. A prefix command (`info`, `frame`, `thread`)
// looks the next word up among its subcommands; `frame` and `thread` run themselves when it names
// none. The names come from `help all` (gdbCommandTable.ts); rr sessions add rr's own commands,
// which change what an abbreviation means there (`back` is rr's, not `backtrace`).
//
// Expressions: GDB 13 can refuse memory writes itself (`may-write-memory off`, which may be
// changed while the program lives), but not register writes (`may-write-registers` cannot change
// once the program runs, and off from the start it breaks every stop at a breakpoint: "Writing to
// registers is not allowed (regno 16)"). So this policy refuses the operators that write (`=` and
// its compound forms, `++`, `--`) outside string and character literals, whatever the command; the
// backend also turns may-write-memory and may-call-functions off around each raw command, should
// a language's syntax slip past. Convenience functions are the one way an expression reaches
// further (GDB 14's `$_shell` runs a shell command): the one analysis of shares/expressionEffects.ts
// decides (comments, literals, calls through history or parentheses).

import { readOnlyRefusal } from '../shares/expressionEffects.js';
import { GDB_COMMANDS } from './gdbCommandTable.js';

export type GdbDialect = 'gdb' | 'rr';

export type RawVerdict = { allowed: true; command: string } | { allowed: false; reason: string };

/** Commands rr's gdbinit defines (`rr gdbinit`, rr 5.x): Python commands and user-defined ones. */
const RR_COMMANDS: readonly string[] = [
  'back',
  'checkpoint',
  'elapsed-time',
  'forward',
  'hook-run',
  'hookpost-back',
  'hookpost-continue',
  'hookpost-finish',
  'hookpost-forward',
  'hookpost-next',
  'hookpost-nexti',
  'hookpost-reverse-continue',
  'hookpost-reverse-finish',
  'hookpost-reverse-step',
  'hookpost-reverse-stepi',
  'hookpost-run',
  'hookpost-step',
  'hookpost-stepi',
  'jump',
  'restart',
  'rr-denied',
  'rr-history-push',
  'rr-hook-run',
  'rr-set-suppress-run-hook',
  'rr-where',
  'seek-ticks',
  'when',
  'when-ticks',
  'when-tid',
];

/** Top-level commands that print and change nothing (their arguments are expressions or options). */
const READ_ONLY = new Set([
  'print',
  'output',
  'x',
  'ptype',
  'whatis',
  'backtrace',
  'up',
  'down',
  'up-silently',
  'down-silently',
  'disassemble',
  'help',
  'apropos',
  'show',
]);

/**
 * `info` subcommands allowed. Left out: `info os` (every process, socket and file of the machine,
 * not the target's), `info win` (TUI), `info guile` (Guile).
 */
const INFO_ALLOWED = new Set(
  [
    'address',
    'all-registers',
    'args',
    'auto-load',
    'auxv',
    'bookmarks',
    'breakpoints',
    'checkpoints',
    'classes',
    'common',
    'connections',
    'copying',
    'dcache',
    'display',
    'exceptions',
    'extensions',
    'files',
    'float',
    'frame',
    'frame-filter',
    'functions',
    'inferiors',
    'line',
    'locals',
    'macro',
    'macros',
    'mem',
    'module',
    'modules',
    'pretty-printer',
    'probes',
    'proc',
    'program',
    'record',
    'registers',
    'scope',
    'selectors',
    'sharedlibrary',
    'signals',
    'skip',
    'source',
    'sources',
    'stack',
    'static-tracepoint-markers',
    'symbol',
    'target',
    'tasks',
    'terminal',
    'threads',
    'tracepoints',
    'tvariables',
    'type-printers',
    'types',
    'unwinder',
    'variables',
    'vector',
    'vtbl',
    'warranty',
    'watchpoints',
    'xmethod',
  ].map((s) => `info ${s}`),
);

const FULL = 'ask the operator for --raw full';

/** Why a command GDB knows is refused, by its canonical name; the fallback names the allowlist. */
function reasonFor(canonical: string, dialect: GdbDialect): string {
  const name = `\`${canonical}\``;
  const first = canonical.split(' ')[0] ?? canonical;
  if (canonical === 'eval')
    return `${name} builds a command from text: refused under --raw read; ${FULL}, or use dbg_evaluate`;
  if (['alias', 'define', 'define-prefix', 'document', 'if', 'while'].includes(canonical)) {
    return `${name} defines or runs commands of its own, so any refused command could come back under another name: refused under --raw read; ${FULL}`;
  }
  if (canonical === 'with') {
    return `${name} changes settings and runs another command: refused under --raw read; ${FULL}`;
  }
  if (/ apply$/.test(canonical) || ['taas', 'faas', 'tfaas'].includes(canonical)) {
    return `${name} runs a command on frames or threads: refused under --raw read; use dbg_inspect (view=stack, view=threads) or dbg_batch, or ${FULL}`;
  }
  if (['python', 'python-interactive', 'guile', 'guile-repl', 'compile', 'jit-reader-load'].includes(canonical)) {
    return `${name} runs code in the debugger or the program with the server's authority: refused under --raw read; ${FULL}`;
  }
  if (['shell', 'pipe', 'make', 'edit'].includes(canonical)) {
    return `${name} runs a shell command: refused under --raw read; ${FULL}`;
  }
  if (canonical === 'call') {
    return `${name} calls a function in the program: refused under --raw read; use dbg_evaluate (calls need --inferior-calls)`;
  }
  if (first === 'set' || canonical === 'tty') {
    return `\`set\` changes the debugger or the program: refused under --raw read; to assign a variable use dbg_evaluate with assign, or ${FULL}`;
  }
  if (canonical === 'list') {
    return `${name} reads source files by name, past the source roots: refused under --raw read; use dbg_inspect view=source`;
  }
  if (['dump', 'append', 'restore', 'save', 'generate-core-file', 'source', 'core-file', 'load'].includes(first)) {
    return `${name} reads or writes files of its choosing: refused under --raw read; ${FULL}`;
  }
  if (
    [
      'file',
      'exec-file',
      'symbol-file',
      'add-symbol-file',
      'add-symbol-file-from-memory',
      'remove-symbol-file',
      'target',
      'attach',
      'detach',
      'disconnect',
      'cd',
      'path',
      'directory',
      'kill',
      'quit',
      'monitor',
      'inferior',
      'add-inferior',
      'remove-inferiors',
      'clone-inferior',
    ].includes(first) ||
    first.startsWith('add-auto-load')
  ) {
    return `${name} changes what is debugged, or where: refused under --raw read; use dbg_start and dbg_close`;
  }
  if (['checkpoint', 'restart'].includes(canonical) && dialect === 'gdb') {
    return `${name} on a live program forks it by a call into it: refused under --raw read; use dbg_record for time travel`;
  }
  if (
    [
      'run',
      'start',
      'starti',
      'continue',
      'next',
      'step',
      'stepi',
      'nexti',
      'until',
      'advance',
      'finish',
      'jump',
      'signal',
      'queue-signal',
      'interrupt',
      'record',
      'back',
      'forward',
      'seek-ticks',
    ].includes(first) ||
    first.startsWith('reverse-')
  ) {
    return `${name} controls the program's execution, which is dbg_run's: refused under --raw read`;
  }
  if (['maintenance', 'tui', 'new-ui', 'interpreter-exec', 'layout', 'focus', 'winheight'].includes(first)) {
    return `${name} reaches into the debugger itself (its interpreters, terminal or internals): refused under --raw read; ${FULL}`;
  }
  if (canonical === 'echo' || canonical === 'printf') {
    return `${name} prints text of the caller's choosing that would read as the debugger's: refused under --raw read; use print`;
  }
  return `${name} is not one of the read-only inspection commands allowed under --raw read (${allowedSummary(dialect)}); ${FULL}`;
}

function allowedSummary(dialect: GdbDialect): string {
  const base =
    'print, output, x, ptype, whatis, backtrace, frame, up, down, select-frame, thread N, thread find, info …, show, disassemble, help, apropos';
  return dialect === 'rr' ? `${base}, when, when-ticks, when-tid, checkpoint, restart N` : base;
}

// ---- lookup, as GDB's ----------------------------------------------------------------------

/** One level of GDB's command tree: each word (name or alias) and the command it names. */
type Level = ReadonlyMap<string, string>;

function levelOf(prefix: string, extra: readonly string[] = []): Level {
  const words = new Map<string, string>();
  for (const entry of GDB_COMMANDS[prefix] ?? []) {
    const [canonical, ...names] = entry.split('\t');
    for (const name of names) if (canonical !== undefined) words.set(name, canonical);
  }
  for (const name of extra) words.set(name, name);
  return words;
}

const LEVELS = {
  gdb: levelOf(''),
  rr: levelOf('', RR_COMMANDS),
  info: levelOf('info'),
  frame: levelOf('frame'),
  'select-frame': levelOf('select-frame'),
  thread: levelOf('thread'),
  'info proc': levelOf('info proc'),
};

type Lookup = { found: string } | { ambiguous: string[] } | { unknown: true };

function lookup(level: Level, word: string): Lookup {
  const exact = level.get(word);
  if (exact !== undefined) return { found: exact };
  const matches = [...level.keys()].filter((name) => name.startsWith(word));
  if (matches.length === 1) return { found: level.get(matches[0] as string) as string };
  if (matches.length > 1) return { ambiguous: matches.sort() };
  return { unknown: true };
}

/** GDB's find_command_name_length: `!` or `|` alone, else the run of command-name characters. */
function nameAt(text: string, at: number): string {
  const c = text[at];
  if (c === '!' || c === '|') return c;
  let end = at;
  while (end < text.length && /[A-Za-z0-9_.+<>$-]/.test(text[end] as string)) end++;
  return text.slice(at, end);
}

function skipBlanks(text: string, at: number): number {
  let i = at;
  while (text[i] === ' ' || text[i] === '\t') i++;
  return i;
}

/** The next word and what follows it, blanks skipped. */
function wordAt(text: string, at: number): { word: string; rest: number } {
  const start = skipBlanks(text, at);
  const word = nameAt(text, start);
  return { word, rest: start + word.length };
}

function refused(reason: string): RawVerdict {
  return { allowed: false, reason };
}

function ambiguity(what: string, word: string, matches: readonly string[]): RawVerdict {
  return refused(
    `\`${what}${word}\` is ambiguous in GDB (${matches.slice(0, 8).join(', ')}${matches.length > 8 ? ', …' : ''}): write the command out`,
  );
}

// ---- the policy ------------------------------------------------------------------------------

/**
 * Whether `text` (one CLI line) may run under `--raw read` on a session of `dialect`, and as
 * which command. Pure: the same line gets the same answer, and nothing is sent anywhere.
 */
export function classifyGdbCommand(text: string, dialect: GdbDialect): RawVerdict {
  if (/[\r\n]/.test(text)) return refused('one line only: a line break would start a second command');
  const { word, rest } = wordAt(text, 0);
  if (word === '') {
    return text.trim() === ''
      ? refused('the command is empty')
      : refused(`\`${text.trim().slice(0, 20)}\` does not start with a GDB command name`);
  }
  const top = lookup(LEVELS[dialect], word);
  if ('ambiguous' in top) return ambiguity('', word, top.ambiguous);
  if ('unknown' in top) return refused(`\`${word}\` is not a GDB command: ${allowedSummary(dialect)} are allowed`);
  const command = top.found;
  if (command === 'show') {
    const sub = wordAt(text, rest).word;
    if (sub.length >= 4 && 'commands'.startsWith(sub)) {
      return refused(
        "`show commands` prints the command history, which on a person's gdb is theirs (command history): refused under --raw read",
      );
    }
  }
  const verdict = classifyArguments(command, text, rest, dialect);
  if (!verdict.allowed) return verdict;
  if (!NO_EXPRESSIONS.has(command)) {
    // Calls of the program's functions are GDB's to refuse (may-call-functions is off around every
    // raw command); calls through debugger values ($_shell, the history) are refused here.
    const why = readOnlyRefusal(expressionText(text.slice(rest)), 'gdb', { programCalls: true });
    if (why !== undefined) {
      return refused(
        `${why}: under --raw read expressions only read; ${/writes/.test(why) ? 'use dbg_evaluate with assign' : FULL}`,
      );
    }
  }
  return verdict;
}

/** Commands whose arguments are names, settings or regular expressions, never evaluated. */
const NO_EXPRESSIONS = new Set(['show', 'help', 'apropos']);

/**
 * The expression part of a command's arguments: GDB's options (`print -pretty -elements 2 -- x`)
 * end at a lone `--`, which is no decrement there. Only words that are options or their plain
 * values may come before it; otherwise the whole text is the expression.
 */
function expressionText(args: string): string {
  const m = /^\s*((?:-[A-Za-z][\w-]*|[\w.]+)\s+)*?--(\s|$)/.exec(args);
  return m ? args.slice(m[0].length) : args;
}

/**
 * Why evaluating `expression` (dbg_evaluate) would change the program, or reach past it (the one
 * analysis in shares/expressionEffects.ts). Calls of the program's functions pass only with
 * `programCalls` (--inferior-calls on: may-call-functions then makes them).
 */
export function expressionEffect(expression: string, programCalls = false): string | undefined {
  return readOnlyRefusal(expression, 'gdb', { programCalls });
}

function classifyArguments(command: string, text: string, rest: number, dialect: GdbDialect): RawVerdict {
  const ok: RawVerdict = { allowed: true, command };
  const args = text.slice(rest).trim();
  if (READ_ONLY.has(command)) return ok;
  switch (command) {
    case 'info':
      return classifyInfo(text, rest);
    case 'frame':
    case 'select-frame':
      return classifySelection(command, text, rest);
    case 'thread': {
      const next = wordAt(text, rest);
      if (next.word === '') return args === '' ? ok : refused(`\`thread ${args}\`: give a thread number`);
      const sub = lookup(LEVELS.thread, next.word);
      if ('found' in sub) {
        if (sub.found === 'thread find') return { allowed: true, command: sub.found };
        return refused(reasonFor(sub.found, dialect));
      }
      if ('ambiguous' in sub) return ambiguity('thread ', next.word, sub.ambiguous);
      // Not a subcommand: the thread command selects the thread it names.
      return /^\d+(\.\d+)?$/.test(args)
        ? ok
        : refused(`\`thread ${args}\`: only selecting one thread by its number (thread 2, thread 1.2) is allowed`);
    }
  }
  if (dialect === 'rr') {
    if (['when', 'when-ticks', 'when-tid', 'checkpoint'].includes(command)) {
      return args === '' ? ok : refused(`\`${command}\` takes no arguments`);
    }
    if (command === 'restart') {
      return /^\d+$/.test(args)
        ? ok
        : refused('`restart` takes the number of a checkpoint (info checkpoints lists them)');
    }
  }
  return refused(reasonFor(command, dialect));
}

function classifyInfo(text: string, rest: number): RawVerdict {
  const next = wordAt(text, rest);
  if (next.word === '') return { allowed: true, command: 'info' };
  const sub = lookup(LEVELS.info, next.word);
  if ('ambiguous' in sub) return ambiguity('info ', next.word, sub.ambiguous);
  if ('unknown' in sub) return refused(`\`info ${next.word}\` is not an info subcommand of GDB`);
  if (sub.found === 'info proc') return classifyInfoProc(text, next.rest);
  if (sub.found === 'info os') {
    return refused(
      '`info os` lists every process, socket and file of the machine, not only the target: refused under --raw read; use info proc for the program',
    );
  }
  if (!INFO_ALLOWED.has(sub.found)) {
    return refused(`\`${sub.found}\` is not among the read-only info subcommands allowed under --raw read; ${FULL}`);
  }
  return { allowed: true, command: sub.found };
}

/** `info proc [WHAT]` of the current inferior only: a pid would read any process on the machine. */
function classifyInfoProc(text: string, rest: number): RawVerdict {
  const next = wordAt(text, rest);
  const tail = (n: number) => text.slice(n).trim();
  const noPid = refused(
    '`info proc` with a process id reads another process than the program: only the current one is allowed (info proc, info proc mappings…)',
  );
  if (next.word === '') return tail(rest) === '' ? { allowed: true, command: 'info proc' } : noPid;
  const sub = lookup(LEVELS['info proc'], next.word);
  if ('ambiguous' in sub) return ambiguity('info proc ', next.word, sub.ambiguous);
  if ('unknown' in sub) return noPid;
  return tail(next.rest) === '' ? { allowed: true, command: sub.found } : noPid;
}

/** `frame`/`select-frame`: selecting by level, address, function or view; not `frame apply`. */
function classifySelection(command: 'frame' | 'select-frame', text: string, rest: number): RawVerdict {
  const next = wordAt(text, rest);
  if (next.word === '') return { allowed: true, command };
  const sub = lookup(LEVELS[command], next.word);
  if ('ambiguous' in sub) return ambiguity(`${command} `, next.word, sub.ambiguous);
  if ('found' in sub) {
    return / apply$/.test(sub.found) ? refused(reasonFor(sub.found, 'gdb')) : { allowed: true, command: sub.found };
  }
  // No subcommand: the prefix command itself takes the words (a level, an address).
  return { allowed: true, command };
}
