// Raw LLDB commands (dbg_command), run through lldb-dap's REPL, and the rules they run under.
//
// `read` is an allowlist of inspection commands, decided by LLDB's own lookup: a word is a
// command or alias by its exact name, else by a prefix only when no other command or alias of
// LLDB 22 starts with it (lldbCommandTable.ts holds both lists, checked against `help`). Their
// arguments may not reach further than reading:
// - no backtick (LLDB replaces `…` in any argument by the value of the expression inside);
// - no assignment, ++, -- and no call (LLDB evaluates an address or a count given as an
//   expression, with JIT: `memory read (char *)malloc(9)` would run malloc);
// - no output file (`memory read --outfile`), no object description (`frame variable -O` runs the
//   object's description method) and no dynamic types that run the target.
// `expression`, `print`, `po`, `call` are left out: an expression may write or call, and LLDB has
// no setting that forbids either; dbg_evaluate reads the same values under its own checks.
//
// `full` runs anything except what would break the session: end or detach the debugger or the
// program behind the session's back, open another target, speak on lldb-dap's own channel
// (`lldb-dap send-event` can forge a stop), or start an interactive interpreter that would read
// the protocol's input.

import { DebuggerError } from '../../util/errors.js';
import type { CommandOptions, CommandOutput } from '../debuggerBackend.js';
import { ALIASES, COMMANDS, SUBCOMMANDS } from './lldbCommandTable.js';
import type { LldbContext } from './lldbContext.js';
import { callsFunction, writesProgram } from './lldbValues.js';

const OUTPUT_LIMIT = 256 * 1024;

/** What each alias stands for, as the words of a command (`bt` → thread backtrace). */
const ALIAS_TARGETS: Readonly<Record<string, readonly string[]>> = {
  bt: ['thread', 'backtrace'],
  v: ['frame', 'variable'],
  var: ['frame', 'variable'],
  x: ['memory', 'read'],
  di: ['disassemble'],
  dis: ['disassemble'],
  f: ['frame', 'select'],
  up: ['up'],
  down: ['down'],
  image: ['target', 'modules'],
  h: ['help'],
};

/** Commands (as words) that only read, for `--raw read`. */
const READ_ONLY: readonly (readonly string[])[] = [
  ['frame', 'info'],
  ['frame', 'select'],
  ['frame', 'variable'],
  ['up'],
  ['down'],
  ['thread', 'backtrace'],
  ['thread', 'info'],
  ['thread', 'list'],
  ['thread', 'select'],
  ['thread', 'siginfo'],
  ['register', 'read'],
  ['register', 'info'],
  ['memory', 'read'],
  ['memory', 'region'],
  ['disassemble'],
  ['target', 'modules', 'list'],
  ['target', 'modules', 'lookup'],
  ['breakpoint', 'list'],
  ['watchpoint', 'list'],
  ['process', 'status'],
  ['type', 'lookup'],
  ['settings', 'show'],
  ['settings', 'list'],
  ['statistics', 'dump'],
  ['help'],
  ['apropos'],
  ['version'],
];

const ENDS = 'would end the debugger or the program under the session: use dbg_close';
const KILLS = 'use dbg_run action=kill, so the session knows the program is gone';
const TARGETS = 'a session debugs one target: start another session for another program, process or core';
const CHANNEL = "speaks on lldb-dap's own channel, which carries the protocol";

/** Refused under every policy: (words, why). */
const NEVER: readonly [readonly string[], string][] = [
  [['quit'], ENDS],
  [['process', 'detach'], ENDS],
  [['process', 'kill'], KILLS],
  [['process', 'launch'], 'use dbg_run action=run or restart, so the session knows the program restarted'],
  [['process', 'attach'], TARGETS],
  [['process', 'connect'], TARGETS],
  [['gdb-remote'], TARGETS],
  [['kdp-remote'], TARGETS],
  [['target', 'create'], TARGETS],
  [['target', 'delete'], TARGETS],
  [['target', 'select'], TARGETS],
  [['gui'], CHANNEL],
  [['lldb-dap'], CHANNEL],
  [['protocol-server'], CHANNEL],
];

/** Aliases of refused commands, by name (LLDB's own: `help command alias` lists them). */
const NEVER_ALIASES: Readonly<Record<string, string>> = {
  q: ENDS,
  exit: ENDS,
  detach: ENDS,
  kill: KILLS,
  r: 'use dbg_run action=run or restart, so the session knows the program restarted',
  run: 'use dbg_run action=run or restart, so the session knows the program restarted',
  attach: TARGETS,
  file: TARGETS,
};

/** Commands that resume the program: the session then waits for where it went. */
const RESUMING_ALIASES = new Set([
  'c',
  'continue',
  'n',
  'next',
  's',
  'step',
  'si',
  'stepi',
  'ni',
  'nexti',
  'finish',
  'sif',
]);
const RESUMING: readonly (readonly string[])[] = [
  ['thread', 'continue'],
  ['thread', 'step-in'],
  ['thread', 'step-over'],
  ['thread', 'step-out'],
  ['thread', 'step-inst'],
  ['thread', 'step-inst-over'],
  ['thread', 'step-scripted'],
  ['thread', 'until'],
  ['process', 'continue'],
  ['process', 'signal'],
];

/** One word as LLDB resolves it among `names`: its exact name, else the only name it begins. */
function resolve(word: string, names: readonly string[]): string | undefined {
  if (names.includes(word)) return word;
  const matches = names.filter((n) => n.startsWith(word));
  return matches.length === 1 ? matches[0] : undefined;
}

interface Parsed {
  /** The command's words as LLDB resolves them (`fr v` → frame variable), or undefined when LLDB would not know it. */
  words: string[] | undefined;
  /** The alias used, when the first word is one. */
  alias: string | undefined;
  /** The text after the command words. */
  rest: string;
}

/** The command words of a line, resolved as LLDB's command interpreter does. */
export function parseCommand(line: string): Parsed {
  const tokens = line.trim().split(/\s+/);
  // A command word is letters, digits, _ and -; `x/4xw` is `x` with a GDB-style format after it.
  const word = /^[\w-]+/.exec(tokens[0] ?? '')?.[0] ?? '';
  if (word !== tokens[0]) tokens.splice(0, 1, word, (tokens[0] ?? '').slice(word.length));
  const first = word;
  const top = resolve(first, [...COMMANDS, ...ALIASES]);
  if (top === undefined) return { words: undefined, alias: undefined, rest: '' };
  let words: string[];
  let alias: string | undefined;
  let used = 1;
  if (ALIASES.includes(top) && !COMMANDS.includes(top)) {
    alias = top;
    words = [...(ALIAS_TARGETS[top] ?? [top])];
  } else {
    words = [top];
  }
  // Subcommands: as many words as the table knows below the command so far.
  for (;;) {
    const subs = SUBCOMMANDS[words.join(' ')];
    const next = tokens[used];
    if (!subs || next === undefined || next.startsWith('-')) break;
    const sub = resolve(next, subs);
    if (sub === undefined) break;
    words.push(sub);
    used++;
  }
  const rest = tokens.slice(used).join(' ');
  return { words, alias, rest };
}

function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.every((w, i) => words[i] === w);
}

/**
 * A command's arguments without the names of its options. LLDB reads a word that starts with `-`
 * as an option (`--format`, `-c`) until a lone `--`, after which every word is an argument: an
 * option's name is not a decrement (`memory region --all` was refused as one), while `x--` after
 * `--` is, and an option's value stays to be checked (`-cf(x)` is `-c` with the call `f(x)`).
 */
export function withoutOptionNames(rest: string | readonly string[]): string {
  const out: string[] = [];
  let options = true;
  for (const word of typeof rest === 'string' ? rest.split(/\s+/) : rest) {
    if (options && word === '--') options = false;
    else if (options && /^--[A-Za-z]/.test(word)) out.push(word.replace(/^--[A-Za-z][\w-]*=?/, ''));
    else if (options && /^-[A-Za-z]/.test(word)) out.push(word.slice(2));
    else out.push(word);
  }
  return out.join(' ');
}

/** Why a line is refused under `policy`, or undefined when it may run. */
export function refusal(line: string, policy: CommandOptions['policy']): string | undefined {
  const trimmed = line.trim();
  if (trimmed === '') return 'the command is empty';
  const parsed = parseCommand(trimmed);
  const first = trimmed.split(/\s+/)[0] ?? '';
  if (parsed.alias !== undefined && NEVER_ALIASES[parsed.alias])
    return `${parsed.alias}: ${NEVER_ALIASES[parsed.alias]}`;
  if (parsed.words) {
    for (const [words, why] of NEVER) {
      if (startsWith(parsed.words, words)) return `${words.join(' ')}: ${why}`;
    }
    // A bare `script` starts Python's interactive prompt, which would read lldb-dap's input.
    const code = parsed.rest
      .replace(/^(-l|--language)\s+\S+\s*/, '')
      .replace(/^--\s*/, '')
      .trim();
    if ((parsed.alias === 'script' || parsed.words[0] === 'scripting') && code === '') {
      return `${first}: the interactive interpreter would read the protocol's input: give the code on the same line`;
    }
  }
  if (policy === 'full') return undefined;
  const allowed =
    'frame variable/info/select, up, down, bt, thread list/info/siginfo, register read, memory read/region, disassemble, image list/lookup, breakpoint list, watchpoint list, process status, type lookup, settings show, help';
  if (
    !parsed.words ||
    !READ_ONLY.some(
      (w) => startsWith(parsed.words ?? [], w) && (w.length === parsed.words?.length || !SUBCOMMANDS[w.join(' ')]),
    )
  ) {
    const what = parsed.words ? parsed.words.join(' ') : first;
    const hint =
      /^(expression|dwim-print)$/.test(parsed.words?.[0] ?? '') || /^(p|print|po|e|call|vo)$/.test(parsed.alias ?? '')
        ? ' (dbg_evaluate reads expressions without side effects)'
        : '';
    return `${what} is not an inspection command this server allows (--raw read allows: ${allowed})${hint}`;
  }
  if (trimmed.includes('`'))
    return 'a backtick makes LLDB evaluate an expression inside the command: not under --raw read';
  const rest = parsed.rest;
  if (/(^|\s)(-o|--outfile|--append-outfile|-O|--object-description)(\s|=|$)/.test(rest)) {
    return 'writing an output file or running an object description is not reading: not under --raw read';
  }
  if (/run-target/.test(rest)) return 'dynamic types that run the target are not reading: not under --raw read';
  // LLDB caps a memory read at 1024 bytes and a disassembly's range unless forced: forced, one
  // command can make lldb-dap build hundreds of megabytes of text for one answer.
  const memoryRead = startsWith(parsed.words ?? [], ['memory', 'read']);
  if (/(^|\s)--force(\s|=|$)/.test(rest) || (memoryRead && /(^|\s)-[A-Za-z]*r[A-Za-z]*(\s|$)/.test(rest))) {
    return "--force lifts LLDB's own size limit (read in pages with dbg_memory): not under --raw read";
  }
  const words = lldbWords(rest);
  if (words === undefined) return 'a quote is left open: not under --raw read';
  const args = withoutOptionNames(words);
  if (writesProgram(args))
    return 'an assignment, ++ or -- in an argument would change the program: not under --raw read';
  if (callsFunction(args)) return 'a function call in an argument would run code in the program: not under --raw read';
  return addressRefusal(parsed.words ?? [], words);
}

/**
 * A command's argument words as LLDB's Args splits them: `'…'` takes everything literally,
 * `"…"` honours backslash before `"`, `\\`, `` ` `` and `$`, outside quotes a backslash escapes the next
 * character, and quoted and bare parts next to each other make one word. The quotes are LLDB's,
 * not the expression's: `memory read -- 'counter = 4242'` gives LLDB the expression
 * `counter = 4242`, so that is what is checked. Undefined when a quote is left open.
 */
export function lldbWords(text: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      continue;
    }
    word ??= '';
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return undefined;
      word += text.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\' && /["\\`$]/.test(text[j + 1] ?? '')) j++;
        word += text[j];
      }
      if (j >= text.length) return undefined;
      i = j;
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[++i];
    } else {
      word += c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/**
 * An address LLDB evaluates as an expression, given plainly: a number, a register, a name with
 * `&` or `*`, members and constant indexes, an offset. Anything else (a parenthesis, a comma, an
 * operator) is refused: LLDB's evaluator runs it with the program's authority.
 */
const PLAIN_ADDRESS =
  /^[&*]?(0x[0-9a-fA-F]+|\d+|\$[A-Za-z_]\w*|[A-Za-z_]\w*((\.|->)[A-Za-z_]\w*|\[\d+\])*)(\s*[+-]\s*(0x[0-9a-fA-F]+|\d+))?$/;

/** The options each command takes whose value LLDB evaluates as an address expression. */
const ADDRESS_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  disassemble: ['-s', '--start-address', '-e', '--end-address', '-a', '--address'],
  'target modules lookup': ['-a', '--address'],
  'source info': ['-a', '--address'],
  'breakpoint list': [],
};

/** Commands whose positional arguments are address expressions. */
const ADDRESS_POSITIONALS = new Set(['memory read', 'memory region']);

function addressRefusal(command: readonly string[], words: readonly string[]): string | undefined {
  const name = command.join(' ');
  const options = ADDRESS_OPTIONS[name] ?? [];
  const plain = (what: string, value: string) =>
    PLAIN_ADDRESS.test(value.trim())
      ? undefined
      : `${name} ${what} takes a plain number or address (LLDB evaluates it as an expression, which may write or run code): ${JSON.stringify(value)} is not one; compute the address with dbg_evaluate first`;
  let afterOptions = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    if (!afterOptions && w === '--') {
      afterOptions = true;
      continue;
    }
    if (!afterOptions && w.startsWith('-') && w.length > 1 && !/^-\d/.test(w)) {
      const eq = w.startsWith('--') ? w.indexOf('=') : -1;
      const option = eq > 0 ? w.slice(0, eq) : w.startsWith('--') ? w : w.slice(0, 2);
      if (options.includes(option)) {
        const glued = eq > 0 ? w.slice(eq + 1) : !w.startsWith('--') && w.length > 2 ? w.slice(2) : undefined;
        const value = glued ?? words[++i];
        if (value === undefined) return undefined;
        const why = plain(option, value);
        if (why) return why;
      } else if (!w.startsWith('--') && w.length === 2 && VALUED_SHORT[name]?.includes(w)) {
        i++;
      }
      continue;
    }
    if (ADDRESS_POSITIONALS.has(name) && !(i === 0 && /^\/\w*$/.test(w))) {
      const why = plain('address', w);
      if (why) return why;
    }
  }
  return undefined;
}

/** Short options that take a separate value, per command with address positionals. */
const VALUED_SHORT: Readonly<Record<string, readonly string[]>> = {
  'memory read': ['-c', '-s', '-f', '-l', '-t', '-E', '-x', '-o', '-L'],
};

function resumes(line: string): boolean {
  const parsed = parseCommand(line);
  if (parsed.alias !== undefined && RESUMING_ALIASES.has(parsed.alias)) return true;
  return parsed.words !== undefined && RESUMING.some((w) => startsWith(parsed.words ?? [], w));
}

/** Runs one raw command under the policy; its output back. */
export async function runCommand(
  g: LldbContext,
  text: string,
  options: CommandOptions,
  signal?: AbortSignal,
): Promise<CommandOutput> {
  const why = refusal(text, options.policy);
  if (why)
    throw new DebuggerError('invalid_argument', `refused: ${why}`, { fields: ['command'] }, { reason: 'policy' });
  const resumed = resumes(text);
  const selector =
    g.state.stopThread === undefined || !g.state.live
      ? undefined
      : {
          ...(options.threadId !== undefined ? { threadId: options.threadId } : {}),
          ...(options.frame !== undefined ? { frame: options.frame } : {}),
        };
  const output = await g.repl(text, selector, {
    signal,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
  const truncated = output.length > OUTPUT_LIMIT;
  return {
    output: truncated ? output.slice(0, OUTPUT_LIMIT) : output,
    truncated,
    ...(resumed ? { resumed: true } : {}),
  };
}
