// The program's own words for the value a stop is about: the lvalue expressions of a source
// line (`s->cache->size` gives `s->cache->size`, `s->cache`, `s`), among which the origin search
// picks the one whose address is the memory it found (debug info decides, not the text), and
// the operands of a failed assert's condition.

const KEYWORDS = new Set([
  'return',
  'if',
  'else',
  'while',
  'for',
  'do',
  'switch',
  'case',
  'sizeof',
  'int',
  'char',
  'long',
  'short',
  'unsigned',
  'signed',
  'struct',
  'union',
  'const',
  'static',
  'void',
  'double',
  'float',
  'break',
  'continue',
  'goto',
  'assert',
  'NULL',
]);

/**
 * The postfix expressions of a line of C (identifiers with `->f`, `.f`, `[i]`), each with its
 * prefixes, longest first. Function names (followed by `(`) and keywords are left out.
 */
export function candidateExpressions(line: string): string[] {
  const code = line
    .replace(/\/\*.*?\*\//g, ' ')
    .replace(/\/\/.*$/, '')
    .replace(/"(?:\\.|[^"\\])*"/g, '""')
    .replace(/'(?:\\.|[^'\\])*'/g, "''");
  const out: string[] = [];
  const seen = new Set<string>();
  const head = /[A-Za-z_]\w*/g;
  for (let m = head.exec(code); m; m = head.exec(code)) {
    const before = code.slice(0, m.index);
    if (/(?:->|\.)\s*$/.test(before) || /\w$/.test(before)) continue; // a member name, not a start
    let end = m.index + m[0].length;
    const parts = [m[0]];
    for (;;) {
      const rest = code.slice(end);
      const member = /^\s*(->|\.)\s*([A-Za-z_]\w*)/.exec(rest);
      if (member) {
        parts.push(`${member[1]}${member[2]}`);
        end += member[0].length;
        continue;
      }
      const index = /^\s*\[/.exec(rest);
      if (index) {
        const close = matching(code, end + index[0].length - 1, '[', ']');
        if (close < 0) break;
        parts.push(code.slice(end + index[0].length - 1, close + 1).replace(/\s+/g, ' '));
        end = close + 1;
        continue;
      }
      break;
    }
    if (/^\s*\(/.test(code.slice(end)) && parts.length === 1) continue; // a call
    if (KEYWORDS.has(m[0]) || /^[A-Z][A-Z0-9_]*$/.test(m[0])) continue; // a macro constant
    for (let n = parts.length; n >= 1; n--) {
      const text = parts.slice(0, n).join('');
      if (!seen.has(text)) {
        seen.add(text);
        out.push(text);
      }
    }
  }
  return out.sort((a, b) => b.length - a.length);
}

function matching(text: string, open: number, o: string, c: string): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === o) depth++;
    else if (text[i] === c) {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** The condition of `assert(COND)` in a source line, or of "Assertion `COND' failed." */
export function assertCondition(text: string): string | undefined {
  const message = /Assertion [`'](.+)' failed/.exec(text);
  if (message?.[1]) return message[1];
  const at = /\bassert\s*\(/.exec(text);
  if (!at) return undefined;
  const open = at.index + at[0].length - 1;
  const close = matching(text, open, '(', ')');
  return close < 0 ? undefined : text.slice(open + 1, close).trim();
}

/**
 * The operands of a condition, split at its top-level comparisons and logical operators:
 * `t->guard == GUARD && n < 4` gives `t->guard`, `GUARD`, `n`, `4`. Parentheses around the
 * whole are dropped; a negation `!x` gives `x`.
 */
export function conditionOperands(condition: string): string[] {
  let c = condition.trim();
  while (c.startsWith('(') && matching(c, 0, '(', ')') === c.length - 1) c = c.slice(1, -1).trim();
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < c.length; i++) {
    const ch = c[i];
    if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    if (depth !== 0) continue;
    const two = c.slice(i, i + 2);
    if (['==', '!=', '<=', '>=', '&&', '||'].includes(two)) {
      out.push(c.slice(start, i));
      start = i + 2;
      i++;
    } else if ((ch === '<' || ch === '>') && c[i + 1] !== ch && c[i - 1] !== ch && c[i - 1] !== '-') {
      out.push(c.slice(start, i));
      start = i + 1;
    }
  }
  out.push(c.slice(start));
  return out
    .map((o) => o.trim().replace(/^!\s*/, ''))
    .flatMap((o) => {
      let t = o;
      while (t.startsWith('(') && matching(t, 0, '(', ')') === t.length - 1) t = t.slice(1, -1).trim();
      return t !== o ? conditionOperands(t) : [t];
    })
    .filter((o) => o !== '' && !/^-?(?:0x[0-9a-f]+|\d+)[ulUL]*$/i.test(o) && !/^"/.test(o));
}
