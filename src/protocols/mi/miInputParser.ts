// Reads an MI command line the way GDB reads it (mi/mi-parse.c, summarised in miCommand.ts):
// `[token]-operation args…`, each argument a c-string ("…" with escapes) or a run of non-blank
// bytes. For a gatekeeper that must know what a line asks of GDB before GDB sees it; `raw` keeps
// the text after the operation, which GDB hands unparsed to the CLI commands it wraps.
//
//   line     → token? "-" operation ( blank+ argument )* blank*
//   token    → digit+
//   argument → c-string | non-blank+

export interface MiInput {
  token: string | undefined;
  operation: string;
  args: string[];
  /** Everything after the operation, as written. */
  raw: string;
}

const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
  e: '\x1b',
  '"': '"',
  '\\': '\\',
};

/** The command on a line, or a string saying why it is not one GDB would read as MI. */
export function parseMiInput(line: string): MiInput | string {
  const head = /^(\d*)-([a-z][a-z0-9-]*)(.*)$/.exec(line.replace(/\r$/, ''));
  if (!head) return 'not an MI command (-operation)';
  const raw = head[3] ?? '';
  if (raw !== '' && !/^\s/.test(raw)) return 'bad operation name';
  const args: string[] = [];
  let i = 0;
  while (i < raw.length) {
    while (i < raw.length && /\s/.test(raw[i] as string)) i++;
    if (i >= raw.length) break;
    if (raw[i] === '"') {
      let out = '';
      i++;
      let closed = false;
      while (i < raw.length) {
        const c = raw[i] as string;
        if (c === '"') {
          closed = true;
          i++;
          break;
        }
        if (c === '\\') {
          const next = raw[i + 1] ?? '';
          const octal = /^[0-7]{1,3}/.exec(raw.slice(i + 1, i + 4));
          if (octal) {
            out += String.fromCharCode(Number.parseInt(octal[0], 8));
            i += 1 + octal[0].length;
          } else {
            out += ESCAPES[next] ?? next;
            i += 2;
          }
          continue;
        }
        out += c;
        i++;
      }
      if (!closed) return 'unterminated c-string';
      if (i < raw.length && !/\s/.test(raw[i] as string)) return 'a c-string must be followed by a blank';
      args.push(out);
    } else {
      const start = i;
      while (i < raw.length && !/\s/.test(raw[i] as string)) i++;
      args.push(raw.slice(start, i));
    }
  }
  return { token: head[1] === '' ? undefined : head[1], operation: head[2] as string, args, raw: raw.trim() };
}
