// Builds MI command lines: `token-operation arg arg …`.
//
// How GDB reads them (mi/mi-parse.c): after the token and operation, the rest is split on
// whitespace; an argument starting with `"` is a c-string that ends at the next unescaped quote
// and must be followed by whitespace or the end, and its escapes go through parse_escape (octal,
// \n \t \a …; `\"` and `\\` stand for themselves). Every other argument is the run of
// non-whitespace bytes, taken literally. So an argument is written bare only when it is made of
// characters that mean nothing to either reading; everything else is quoted.
//
// One line is one command: a line break inside an argument would end the command early and make
// the rest a second command whose reply nobody awaits (or worse, a CLI command of the caller's
// choosing), so any line break or NUL is refused rather than escaped.
//
// Beware: commands GDB forwards to its CLI receive the raw text after the operation, quotes
// included: `-gdb-set args "a b"` then `-gdb-show args` answers `value="\"a b\""` (same for
// `-exec-arguments`, `-break-after`). Quoting only helps commands that read an argv.

import { DebuggerError } from '../../util/errors.js';

/**
 * An argument (or other text bound for one MI line) that cannot be sent safely. An
 * `invalid_argument` wherever it surfaces: it names what the caller gave, never a fault of ours.
 */
export class MiArgumentError extends DebuggerError {
  override readonly name = 'MiArgumentError';
  /** What was rejected, e.g. `argument 2` or `operation`. */
  readonly what: string;
  /** The index in `args` of the rejected argument, when it was one. */
  readonly argumentIndex: number | undefined;

  constructor(what: string, message: string, argumentIndex?: number) {
    super('invalid_argument', `${what}: ${message}`, { field: what });
    this.what = what;
    this.argumentIndex = argumentIndex;
  }
}

// Everything a terminal, GDB's line reader or a Unicode-aware reader may treat as a line end.
const LINE_BREAK = /[\n\r\v\f\u0085\u2028\u2029\0]/;

/** Throws MiArgumentError naming `what` when `value` holds a line break or NUL. */
export function assertSingleLine(value: string, what: string, argumentIndex?: number): void {
  const match = LINE_BREAK.exec(value);
  if (match === null) return;
  const code = match[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  const kind = code === '0000' ? 'a NUL character' : `a line break (U+${code})`;
  throw new MiArgumentError(what, `contains ${kind} at index ${match.index}`, argumentIndex);
}

// Safe bare: not whitespace, not `"` (starts a c-string) or `\` (kept literally by GDB, but
// quoting makes the intent explicit), not non-ASCII (GDB's isspace on a high byte depends on its
// locale). A leading `-` stays bare: that is how options look.
const BARE = /^[A-Za-z0-9_\-./:+*@$#%,<>=!~^&|[\]]+$/;

/** `arg` as one MI argument: bare when that reads back unchanged, a c-string otherwise. */
export function quoteMiArg(arg: string): string {
  if (BARE.test(arg)) return arg;
  assertSingleLine(arg, 'argument');
  let out = '"';
  let plain = 0;
  for (let i = 0; i < arg.length; i++) {
    const c = arg.charCodeAt(i);
    let escaped: string;
    if (c === 0x22) escaped = '\\"';
    else if (c === 0x5c) escaped = '\\\\';
    else if (c === 0x09) escaped = '\\t';
    // Other control characters as octal: raw, a tty between us and GDB could act on them (^C, ^U).
    else if (c < 0x20 || c === 0x7f) escaped = `\\${c.toString(8).padStart(3, '0')}`;
    else continue;
    out += arg.slice(plain, i) + escaped;
    plain = i + 1;
  }
  return `${out}${arg.slice(plain)}"`;
}

const OPERATION = /^[a-z][a-z0-9-]*$/;

/** `12-break-insert -t main.c:10`: one MI command line, without the trailing newline. */
export function buildMiCommand(token: number, operation: string, args: readonly string[]): string {
  if (!Number.isSafeInteger(token) || token < 0) {
    throw new MiArgumentError('token', `must be a non-negative integer, got ${token}`);
  }
  if (!OPERATION.test(operation)) {
    throw new MiArgumentError(
      'operation',
      `must match ${OPERATION.source} (no leading "-"), got ${JSON.stringify(operation)}`,
    );
  }
  let line = `${token}-${operation}`;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    assertSingleLine(arg, `argument ${i}`, i);
    line += ` ${quoteMiArg(arg)}`;
  }
  return line;
}
