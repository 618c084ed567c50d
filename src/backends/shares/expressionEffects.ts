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
