// What a C-family expression does beyond reading, decided from its tokens: the one analysis every
// checker uses (the server's GDB policy and dbg_evaluate, the LLDB values and raw policy, both
// shares). A regular expression over the text cannot hold: a quote inside a comment ended the old
// checker's view of the text (`/*'*/ counter = 4242` wrote a person's LLDB variable), and calls
// hid behind parentheses, `?:` and value history (`($_shell)("…")`, `(1?$_shell:0)(…)`,
// `print $_strlen` then `print $("abc")`).
//
// The text is read twice, and refused when either reading finds an effect or cannot finish:
// - as clang reads it (LLDB): `/* … */` and `// …` comments, raw strings `R"d(…)d"`, digit
//   separators (`1'000`);
// - as GDB 13's C parser reads it: no comments, no raw strings, `'` always a quote.
// Whichever the debugger is, what it sees as code is code in one of the two readings. A literal
// or comment left open is refused: the two readings would disagree on where code resumes.
//
// Effects refused:
// - a write: `=`, a compound assignment (`+=`, `<<=`…), `++`, `--`, and C++'s `new`/`delete`;
// - a debugger function as a value anywhere (`$_shell`, `$_strlen` not called): stored in the
//   value history it could be called later through `$`, `$$n` or `$N`;
// - a call whose callee is not a bare, known read-only `$_name` (GDB only): a call through
//   anything holding a `$` (history, convenience variables, `($_shell)`, `(c?$_shell:0)`) is
//   refused always; a call of the program's own functions is a program call, which the caller
//   allows only when the operator allowed inferior calls.

export type ExpressionDialect = 'gdb' | 'lldb';

export type EffectKind = 'write' | 'debugger-function' | 'program-call' | 'unreadable';

export interface Effect {
  kind: EffectKind;
  /** The text that has the effect (`+=`, `$_shell`, `f(`). */
  what: string;
  /** Why, in words for a refusal. */
  reason: string;
}

/**
 * GDB's convenience functions that only read (GDB 13 `help function`, and GDB 14/15's, less
 * `$_shell`). The others reach past the program: GDB 14's `$_shell("…")` runs a shell command,
 * and a person's Python may define any; neither is an inferior call, so may-call-functions off
 * does not stop them. The one copy: every checker asks this module.
 */
export const READ_ONLY_FUNCTIONS: ReadonlySet<string> = new Set([
  '_any_caller_is',
  '_any_caller_matches',
  '_as_string',
  '_caller_is',
  '_caller_matches',
  '_cimag',
  '_creal',
  '_gdb_maint_setting',
  '_gdb_maint_setting_str',
  '_gdb_setting',
  '_gdb_setting_str',
  '_isvoid',
  '_memeq',
  '_regex',
  '_streq',
  '_strlen',
]);

/** Debugger functions known not to be read-only: refused wherever they appear. */
const KNOWN_FUNCTIONS = new Set([...READ_ONLY_FUNCTIONS, '_shell']);

const WRITING = new Set(['=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '>>=', '++', '--']);

/** Operators by maximal munch, longest first. */
const OPERATORS = [
  '<<=',
  '>>=',
  '<=>',
  '->*',
  '...',
  '->',
  '++',
  '--',
  '<<',
  '>>',
  '<=',
  '>=',
  '==',
  '!=',
  '&&',
  '||',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '::',
  '.*',
];

/** Words before `(` that are no call: operators spelled as words, and type names (casts). */
const NOT_CALLEES = new Set([
  'sizeof',
  'alignof',
  '_Alignof',
  '__alignof__',
  '__alignof',
  'typeof',
  '__typeof__',
  '__typeof',
  'decltype',
  'offsetof',
  '__builtin_offsetof',
  'if',
  'while',
  'for',
  'return',
]);

/** Type words: a parenthesised group of only these (and `*`, `&`, names after struct…) is a cast. */
const TYPE_WORDS = new Set([
  'void',
  'char',
  'short',
  'int',
  'long',
  'float',
  'double',
  'signed',
  'unsigned',
  'const',
  'volatile',
  'restrict',
  '__restrict',
  '_Bool',
  'bool',
  'wchar_t',
  'char8_t',
  'char16_t',
  'char32_t',
  'size_t',
  'ssize_t',
  'ptrdiff_t',
  'intptr_t',
  'uintptr_t',
  'int8_t',
  'int16_t',
  'int32_t',
  'int64_t',
  'uint8_t',
  'uint16_t',
  'uint32_t',
  'uint64_t',
  'struct',
  'union',
  'enum',
  'class',
]);

type Kind = 'word' | 'dollar' | 'number' | 'literal' | 'op';

interface Token {
  kind: Kind;
  text: string;
}

interface Reading {
  comments: boolean;
}

type Lexed = { tokens: Token[] } | { open: string };

/** The tokens of `s` under one reading, or what was left open. */
function lex(s: string, reading: Reading): Lexed {
  const tokens: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (reading.comments && s.startsWith('/*', i)) {
      const end = s.indexOf('*/', i + 2);
      if (end < 0) return { open: 'a /* comment' };
      i = end + 2;
      continue;
    }
    if (reading.comments && s.startsWith('//', i)) {
      const end = s.indexOf('\n', i);
      i = end < 0 ? s.length : end + 1;
      continue;
    }
    if (c === '"' || c === "'") {
      const prev = tokens[tokens.length - 1];
      // clang's raw string: R"delim( … )delim", no escapes inside.
      if (reading.comments && c === '"' && prev?.kind === 'word' && /^(u8|u|U|L)?R$/.test(prev.text)) {
        const open = s.indexOf('(', i + 1);
        const delimiter = open < 0 ? '' : s.slice(i + 1, open);
        if (open < 0 || !/^[^\s()\\]{0,16}$/.test(delimiter)) return { open: 'a raw string' };
        const end = s.indexOf(`)${delimiter}"`, open + 1);
        if (end < 0) return { open: 'a raw string' };
        tokens.pop();
        tokens.push({ kind: 'literal', text: s.slice(i - prev.text.length, end + delimiter.length + 2) });
        i = end + delimiter.length + 2;
        continue;
      }
      let j = i + 1;
      while (j < s.length && s[j] !== c) j += s[j] === '\\' ? 2 : 1;
      if (j >= s.length) return { open: c === '"' ? 'a string literal' : 'a character literal or quoted name' };
      tokens.push({ kind: 'literal', text: s.slice(i, j + 1) });
      i = j + 1;
      continue;
    }
    if (c === '$') {
      const m = /^\$[\w$]*/.exec(s.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'dollar', text: m[0] });
      i += m[0].length;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_]\w*/.exec(s.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'word', text: m[0] });
      i += m[0].length;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(s[i + 1] ?? ''))) {
      // A preprocessing number: digits, letters, `.`, exponent signs; clang adds `'` separators.
      const m = (reading.comments ? /^\.?[0-9](?:[eEpP][+-]|'[\w]|[\w.])*/ : /^\.?[0-9](?:[eEpP][+-]|[\w.])*/).exec(
        s.slice(i),
      ) as RegExpExecArray;
      tokens.push({ kind: 'number', text: m[0] });
      i += m[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => s.startsWith(o, i)) ?? c;
    tokens.push({ kind: 'op', text: op });
    i += op.length;
  }
  return { tokens };
}

/** The bare name of a `$` token (`$_shell` → `_shell`, `$$2` → `$2`... only `$`s stripped). */
function dollarName(text: string): string {
  return text.replace(/^\$+/, '');
}

function endsValue(t: Token | undefined): boolean {
  if (t === undefined) return false;
  if (t.kind === 'word') return !NOT_CALLEES.has(t.text) && !TYPE_WORDS.has(t.text);
  if (t.kind === 'dollar' || t.kind === 'literal') return true;
  return t.kind === 'op' && (t.text === ')' || t.text === ']' || t.text === '}');
}

/** The index of the bracket that opens the group closed at `close`, or -1. */
function opening(tokens: readonly Token[], close: number): number {
  const pair: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  const want = pair[(tokens[close] as Token).text] as string;
  const shut = (tokens[close] as Token).text;
  let depth = 0;
  for (let k = close; k >= 0; k--) {
    const t = tokens[k] as Token;
    if (t.kind !== 'op') continue;
    if (t.text === shut) depth++;
    else if (t.text === want && --depth === 0) return k;
  }
  return -1;
}

/** A parenthesised group that only names a type: `(int)`, `(struct rec *)`, `(char const **)`. */
function isCast(group: readonly Token[]): boolean {
  if (group.length === 0) return false;
  let typed = false;
  for (let k = 0; k < group.length; k++) {
    const t = group[k] as Token;
    if (t.kind === 'word' && TYPE_WORDS.has(t.text)) {
      typed = true;
      // struct/union/enum/class take a name after them.
      if (/^(struct|union|enum|class)$/.test(t.text) && group[k + 1]?.kind === 'word') k++;
      continue;
    }
    if (t.kind === 'op' && (t.text === '*' || t.text === '&')) {
      typed ||= k === group.length - 1;
      continue;
    }
    return false;
  }
  return typed;
}

/** The first token of the callee that ends at `end` (a postfix chain: names, members, groups). */
function calleeStart(tokens: readonly Token[], end: number): number {
  let k = end;
  for (;;) {
    const t = tokens[k] as Token;
    if (t.kind === 'op' && (t.text === ')' || t.text === ']' || t.text === '}')) {
      const open = opening(tokens, k);
      if (open < 0) return 0;
      k = open;
    }
    const before = tokens[k - 1];
    if (
      before?.kind === 'op' &&
      ['.', '->', '::'].includes(before.text) &&
      (tokens[k - 2]?.kind === 'word' || tokens[k - 2]?.kind === 'dollar' || /[)\]}]/.test(tokens[k - 2]?.text ?? ''))
    ) {
      k -= 2;
      continue;
    }
    if ((t.text === '[' || t.text === '(') && endsValue(before)) {
      // `a[1]`, `f(1)` before: part of the same chain.
      k -= 1;
      continue;
    }
    return k;
  }
}

function effectsOf(tokens: readonly Token[], dialect: ExpressionDialect): Effect[] {
  const found: Effect[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k] as Token;
    const next = tokens[k + 1];
    if (t.kind === 'op' && WRITING.has(t.text)) {
      found.push({ kind: 'write', what: t.text, reason: `\`${t.text}\` writes (an assignment or an increment)` });
      continue;
    }
    if (t.kind === 'word' && (t.text === 'new' || t.text === 'delete')) {
      found.push({ kind: 'write', what: t.text, reason: `\`${t.text}\` allocates or frees the program's memory` });
      continue;
    }
    if (t.kind === 'dollar' && dialect === 'gdb') {
      const name = dollarName(t.text);
      const called = next?.kind === 'op' && next.text === '(';
      if (KNOWN_FUNCTIONS.has(name) && (!called || !READ_ONLY_FUNCTIONS.has(name) || t.text !== `$${name}`)) {
        found.push({
          kind: 'debugger-function',
          what: t.text,
          reason: called
            ? `\`${t.text}(…)\` is not one of GDB's read-only convenience functions (newer GDBs add ones such as $_shell that run commands)`
            : `\`${t.text}\` is one of GDB's functions used as a value: only calling a read-only one by its name is allowed (a stored function could be called back through the value history)`,
        });
        continue;
      }
    }
    if (t.kind === 'op' && t.text === '(' && endsValue(tokens[k - 1])) {
      const end = k - 1;
      const before = tokens[end] as Token;
      if (before.kind === 'op' && before.text === ')') {
        const open = opening(tokens, end);
        if (open >= 0 && isCast(tokens.slice(open + 1, end)) && !endsValue(tokens[open - 1])) continue;
      }
      const start = calleeStart(tokens, end);
      const callee = tokens.slice(start, end + 1);
      const bare = callee.length === 1 && before.kind === 'dollar';
      if (dialect === 'gdb' && bare && READ_ONLY_FUNCTIONS.has(before.text.slice(1))) continue;
      if (dialect === 'gdb' && callee.some((c) => c.kind === 'dollar')) {
        const text = callee.map((c) => c.text).join('');
        found.push({
          kind: 'debugger-function',
          what: text,
          reason: bare
            ? `\`${text}(…)\` is not one of GDB's read-only convenience functions (newer GDBs add ones such as $_shell that run commands; the value history may hold one)`
            : `\`${text}(…)\` calls through a debugger value (history, a convenience variable or function): only a read-only convenience function called by its name is allowed`,
        });
        continue;
      }
      const text = callee.map((c) => c.text).join('');
      found.push({
        kind: 'program-call',
        what: `${text}(`,
        reason: `\`${text}(…)\` calls a function of the program`,
      });
      continue;
    }
    if (dialect === 'lldb' && t.kind === 'op' && t.text === '[' && !endsValue(tokens[k - 1])) {
      // Objective-C's message send ([obj msg]) or C++'s lambda: both run code.
      found.push({ kind: 'program-call', what: '[', reason: 'a message send or a lambda runs code in the program' });
    }
  }
  return found;
}

/**
 * Every effect `expression` may have beyond reading, under both readings (see the top), first
 * found first; empty when it only reads.
 */
export function expressionEffects(expression: string, dialect: ExpressionDialect): Effect[] {
  const out: Effect[] = [];
  for (const reading of [{ comments: true }, { comments: false }]) {
    const lexed = lex(expression, reading);
    if ('open' in lexed) {
      out.push({
        kind: 'unreadable',
        what: lexed.open,
        reason: `${lexed.open} is left open, so where code resumes cannot be known`,
      });
      continue;
    }
    for (const e of effectsOf(lexed.tokens, dialect)) {
      if (!out.some((o) => o.kind === e.kind && o.what === e.what)) out.push(e);
    }
  }
  return out;
}

/**
 * Why `expression` may not be evaluated where only reading is allowed, or undefined. Program calls
 * pass only with `programCalls` (the operator's --inferior-calls, where the debugger makes them).
 */
export function readOnlyRefusal(
  expression: string,
  dialect: ExpressionDialect,
  options: { programCalls?: boolean } = {},
): string | undefined {
  const effect = expressionEffects(expression, dialect).find(
    (e) => e.kind !== 'program-call' || options.programCalls !== true,
  );
  return effect?.reason;
}

/** The operator that makes `expression` write, or undefined when it writes nothing. */
export function writingOperator(expression: string, dialect: ExpressionDialect = 'gdb'): string | undefined {
  return expressionEffects(expression, dialect).find((e) => e.kind === 'write')?.what;
}
