// Raw LLDB commands on a person's LLDB: an allowlist of reading commands, whatever the server's
// --raw policy says, because the session is the person's. Measured hazards this keeps out:
// `protocol-server stop MCP` sent through the protocol server itself aborted LLDB ("Resource
// deadlock avoided"); `expression` without -j false may call functions (which corrupted the
// person's LLDB heap after a few calls); LLDB evaluates anything in backticks, and the address of
// `memory read`, `disassemble -s` or `image lookup -a` as an expression, so those must be numbers;
// `frame select`, `up` and `down` move the person's own selection. What passes is sent in LLDB's
// full words (canonicalLldbCommand): `bt`, `v`, `x` or `image` are aliases a person's ~/.lldbinit
// may redefine, while a built-in command's full words cannot be.

const NUMBER = /^(0x[0-9a-fA-F]+|\d+)$/;
const WORD = /^[\w.:+-]+$/;

interface Rule {
  /** The command's words as LLDB spells them in full ("thread backtrace"). */
  words: string;
  /** Shorter spellings a person types ("bt"), mapped to the same rule. */
  aliases?: readonly string[];
  /** Options that take a value, and what the value may be. */
  valued?: Readonly<Record<string, RegExp>>;
  /** Options that stand alone. */
  flags?: readonly string[];
  /** What a positional argument may be. */
  positional?: RegExp;
  /** The most positional arguments. */
  maxPositional?: number;
}

const ANY = /^[^`]*$/;

const RULES: readonly Rule[] = [
  {
    words: 'thread backtrace',
    aliases: ['bt'],
    valued: { '-c': NUMBER, '--count': NUMBER, '-s': NUMBER, '--start': NUMBER, '-e': /^(true|false)$/ },
    positional: /^(\d+|all)$/,
  },
  { words: 'thread list' },
  { words: 'thread info', flags: ['-j', '--json', '-s', '--stop-info'], positional: /^(\d+|all)$/ },
  {
    words: 'frame variable',
    aliases: ['v', 'var'],
    // -O asks the language runtime for a description, which runs code in the program.
    valued: { '-f': WORD, '--format': WORD, '-D': NUMBER, '--depth': NUMBER, '-P': NUMBER, '-Z': NUMBER },
    flags: [
      '-s',
      '--scope',
      '-T',
      '--show-types',
      '-L',
      '--location',
      '-a',
      '--no-args',
      '-l',
      '--no-locals',
      '-g',
      '-R',
      '--raw-output',
      '-F',
      '--flat',
    ],
    positional: /^[*&]*[A-Za-z_$][\w$]*((\.|->)[A-Za-z_]\w*|\[\d+\])*$/,
  },
  { words: 'frame info' },
  {
    words: 'register read',
    valued: { '-f': WORD, '--format': WORD, '-s': NUMBER, '--set': NUMBER },
    flags: ['-a', '--all'],
    positional: /^[A-Za-z_]\w*$/,
  },
  {
    words: 'memory read',
    aliases: ['x'],
    valued: {
      '-s': NUMBER,
      '--size': NUMBER,
      '-c': NUMBER,
      '--count': NUMBER,
      '-f': WORD,
      '--format': WORD,
      '-l': NUMBER,
      '--num-per-line': NUMBER,
    },
    flags: ['--force', '-r'],
    positional: NUMBER,
    maxPositional: 2,
  },
  {
    words: 'disassemble',
    aliases: ['di', 'dis'],
    valued: {
      '-c': NUMBER,
      '--count': NUMBER,
      '-n': /^[\w:~<>,.]+$/,
      '--name': /^[\w:~<>,.]+$/,
      '-s': NUMBER,
      '--start-address': NUMBER,
      '-e': NUMBER,
      '--end-address': NUMBER,
      '-a': NUMBER,
      '--address': NUMBER,
      '-F': WORD,
      '--flavor': WORD,
    },
    flags: ['-p', '--pc', '-f', '--frame', '-b', '--bytes', '-m', '--mixed', '-l', '--line', '-r', '--raw'],
    maxPositional: 0,
  },
  {
    words: 'breakpoint list',
    flags: ['-b', '--brief', '-f', '--full', '-v', '--verbose', '-i', '--internal'],
    positional: /^\d+(\.\d+)?$/,
  },
  { words: 'watchpoint list', flags: ['-b', '-f', '-v'], positional: /^\d+$/ },
  { words: 'target list' },
  { words: 'process status', flags: ['-v', '--verbose'] },
  {
    words: 'target modules list',
    flags: ['-f', '-b', '-h', '-u', '-o', '-t', '-A', '-g', '-s', '-S'],
    positional: WORD,
  },
  {
    words: 'target modules lookup',
    valued: {
      '-a': NUMBER,
      '--address': NUMBER,
      '-n': /^[\w:~<>,.]+$/,
      '--name': /^[\w:~<>,.]+$/,
      '-s': /^[\w:~<>,.]+$/,
      '--symbol': /^[\w:~<>,.]+$/,
      '-f': /^[\w./+-]+$/,
      '--file': /^[\w./+-]+$/,
      '-l': NUMBER,
      '--line': NUMBER,
      '-t': /^[\w:~<>,.]+$/,
      '--type': /^[\w:~<>,.]+$/,
    },
    flags: ['-v', '--verbose', '-r', '--regex'],
    maxPositional: 0,
  },
  {
    words: 'source info',
    valued: { '-a': NUMBER, '--address': NUMBER, '-f': /^[\w./+-]+$/, '-l': NUMBER, '-c': NUMBER },
  },
  { words: 'settings show', positional: /^[\w.-]+$/ },
  { words: 'help', positional: /^[\w-]+$/ },
  { words: 'version' },
];

/** What dbg_command may run on a person's LLDB, for the refusal message. */
export const ALLOWED_COMMANDS = RULES.map((r) => r.words).join(', ');

/** Splits a command line into words (LLDB's quoting: '…' and "…"). */
export function splitCommand(text: string): string[] {
  const words: string[] = [];
  for (const m of text.matchAll(/"((?:\\.|[^"\\])*)"|'([^']*)'|(\S+)/g)) words.push(m[1] ?? m[2] ?? m[3] ?? '');
  return words;
}

function ruleFor(words: readonly string[]): { rule: Rule; args: string[] } | undefined {
  for (const rule of RULES) {
    const full = rule.words.split(' ');
    if (full.every((w, i) => words[i] === w)) return { rule, args: words.slice(full.length) };
    if (rule.aliases?.includes(words[0] ?? '')) return { rule, args: words.slice(1) };
  }
  // `image` is `target modules`; `br` and `b` are not: `b` sets a breakpoint.
  if (words[0] === 'image') return ruleFor(['target', 'modules', ...words.slice(1)]);
  if (words[0] === 'br' && words[1] === 'list') return ruleFor(['breakpoint', 'list', ...words.slice(2)]);
  return undefined;
}

/** Why a raw command may not run on a person's LLDB, or undefined when it may. */
export function lldbShareRefusal(text: string): string | undefined {
  if (text.includes('`')) return 'LLDB evaluates text in backticks as an expression, which may run code in the program';
  const words = splitCommand(text.trim());
  const found = ruleFor(words);
  if (!found) {
    return `"${words.slice(0, 2).join(' ')}" is not one of the reading commands allowed on a person's LLDB (${ALLOWED_COMMANDS})`;
  }
  const { rule, args } = found;
  let positional = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--') continue;
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    const valued = rule.valued?.[name];
    if (valued) {
      const value = eq > 0 ? a.slice(eq + 1) : args[++i];
      if (value === undefined || !valued.test(value)) {
        return `${rule.words} ${name} needs ${valued === NUMBER ? 'a number (an address as an expression could run code: compute it with dbg_evaluate first)' : 'a plain value'}`;
      }
      continue;
    }
    if (rule.flags?.includes(a)) continue;
    if (a.startsWith('-')) return `${rule.words} ${a} is not allowed on a person's LLDB`;
    positional++;
    if (!(rule.positional ?? ANY).test(a) || positional > (rule.maxPositional ?? 64)) {
      return `${rule.words} does not take ${JSON.stringify(a)} here${rule.positional === NUMBER ? ' (addresses must be numbers: compute one with dbg_evaluate)' : ''}`;
    }
  }
  if (rule.positional === undefined && rule.maxPositional === undefined && positional > 0) {
    return `${rule.words} takes no arguments here`;
  }
  return undefined;
}

/**
 * An allowed command (lldbShareRefusal said so) in LLDB's full words, as it is sent. Measured
 * with LLDB 22: after `command unalias bt` and `command alias bt version`, `bt` printed the
 * version; `command alias thread version` is refused ("'thread' is a permanent debugger command
 * and cannot be redefined"). So the person's aliases never decide what the agent's command does.
 */
export function canonicalLldbCommand(text: string): string {
  const words = splitCommand(text.trim());
  const found = ruleFor(words);
  if (!found) throw new Error(`canonicalLldbCommand: "${text}" is not an allowed command`);
  const { rule, args } = found;
  // LLDB's own `bt N` is `thread backtrace -c N` (its _regexp-bt); `thread backtrace N` names thread N.
  const viaBt = words[0] === 'bt';
  const sent: string[] = [rule.words];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (rule.valued?.[a] !== undefined) {
      sent.push(a, args[++i] as string);
    } else if (viaBt && NUMBER.test(a)) {
      sent.push('-c', a);
    } else {
      sent.push(a);
    }
  }
  return sent.join(' ');
}
