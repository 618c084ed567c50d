// Whether a C-like expression writes: an assignment (=, +=, <<=, …) or an increment or decrement.
// On a person's session the debugger itself refuses calls (GDB: may-call-functions off) or cannot
// make them (LLDB: the IR interpreter without JIT), but neither refuses a plain store: measured,
// LLDB's `expression -j false -- value = 3` wrote 3 into the person's variable, and GDB writes a
// register through `$rax = 1` whatever may-write-memory says. So the text is read first.
//
// Tokens are read by maximal munch, outside string and character literals, so `==`, `<=`, `>=`,
// `!=` and `->` are comparisons and members, and `a<<=1` is an assignment.

const WRITING = new Set(['=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '>>=', '++', '--']);
const OPERATORS = [
  '<<=',
  '>>=',
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
];

/** The operator that makes `expression` write, or undefined when it only reads. */
export function writingOperator(expression: string): string | undefined {
  const s = expression;
  for (let i = 0; i < s.length; ) {
    const c = s[i] as string;
    if (c === '"' || c === "'") {
      // A literal: skip to its closing quote, honouring backslash escapes.
      i++;
      while (i < s.length && s[i] !== c) i += s[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    const op = OPERATORS.find((o) => s.startsWith(o, i)) ?? c;
    if (WRITING.has(op)) return op;
    i += op.length;
  }
  return undefined;
}

/**
 * GDB's convenience functions that only read. The others reach past the program: GDB 14's
 * `$_shell("…")` runs a shell command, and a person's Python may define any; neither is an
 * inferior call, so may-call-functions off does not stop them.
 */
const READING_FUNCTIONS = new Set([
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

/** The first `$name(` in `text` that is not a reading convenience function, outside literals. */
export function unknownConvenienceCall(text: string): string | undefined {
  const bare = text.replace(/"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'/g, '""');
  for (const m of bare.matchAll(/\$([A-Za-z_]\w*)\s*\(/g)) {
    if (!READING_FUNCTIONS.has(m[1] as string)) return `$${m[1]}`;
  }
  return undefined;
}
