// The pure GDB/MI output parser: one line in, one record out, never a throw.
//
// The grammar it accepts (GDB manual, "GDB/MI Output Syntax", with what GDB really sends):
//
//   line          → result-record | async-record | stream-record | prompt
//   result-record → [token] "^" result-class ("," result)*
//   result-class  → "done" | "running" | "connected" | "error" | "exit"
//   async-record  → [token] ("*" | "+" | "=") async-class ("," result)*   exec | status | notify
//   async-class   → name                                 "stopped", "thread-group-added", …
//   stream-record → ("~" | "@" | "&") c-string                     console | target | log
//   prompt        → "(gdb)" [spaces]                      GDB writes "(gdb) " with one space
//   token         → digit+                               echoed from the command that asked
//   result        → name "=" value
//   name          → (letter | digit | "-" | "_" | ".")+
//   value         → c-string | tuple | list
//   tuple         → "{}" | "{" result ("," result)* "}"    a repeated name collects an array
//   list          → "[]" | "[" value ("," value)* "]" | "[" result ("," result)* "]"
//                                                          a list of results keeps the values only
//   c-string      → '"' (char | escape)* '"'
//   escape        → "\" ( "n" | "t" | "r" | '"' | "\" | "a" | "b" | "f" | "v" | "e" | octal )
//   octal         → 1 to 3 digits 0-7, one byte; consecutive octal bytes are decoded together as
//                   UTF-8 (GDB 13 writes every non-ASCII byte that way: "é" is "\303\251")
//
// The splitter has already removed the line's "\n" (and one "\r"). Bytes GDB passes through raw
// (UTF-8 from an older GDB, text from the inferior) arrive decoded and are kept as they are.
// Anything else — including text the inferior printed on a shared terminal — becomes
// `{ kind: 'raw', text, error }`.
//
// Speed: one cursor over charCodeAt, substrings by slice, no regex. A c-string without escapes is
// a single indexOf for the closing quote plus a check against the cached position of the next
// backslash in the line; that cache only ever moves forward, so a line with one escape near its
// end does not make every earlier string rescan to it (the quadratic trap of a per-string
// indexOf('\\')).

import { MI_TRUNCATED_LINE_MARK, type MiRecord, type MiResultClass, type MiTuple, type MiValue } from './miRecords.js';

const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const COMMA = 0x2c; // ,
const EQUALS = 0x3d; // =
const LBRACE = 0x7b; // {
const RBRACE = 0x7d; // }
const LBRACKET = 0x5b; // [
const RBRACKET = 0x5d; // ]
const DIGIT_0 = 0x30;
const DIGIT_7 = 0x37;
const DIGIT_9 = 0x39;

/** Deeper than this is not GDB output, and recursing further could overflow the stack. */
const MAX_DEPTH = 2000;

/** Tokens longer than this cannot be held exactly by a number (2^53 has 16 digits). */
const MAX_TOKEN_DIGITS = 15;

/** 1 for the characters allowed in a result name or a record class. */
const NAME_CHARS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9_.-]/.test(ch)) NAME_CHARS[c] = 1;
}

/** The one-letter escapes GDB writes (utils.c printchar), mapped to what they stand for. */
const SIMPLE_ESCAPES: (string | undefined)[] = new Array<string | undefined>(128).fill(undefined);
SIMPLE_ESCAPES[0x6e] = '\n'; // n
SIMPLE_ESCAPES[0x74] = '\t'; // t
SIMPLE_ESCAPES[0x72] = '\r'; // r
SIMPLE_ESCAPES[QUOTE] = '"';
SIMPLE_ESCAPES[BACKSLASH] = '\\';
SIMPLE_ESCAPES[0x61] = '\x07'; // a
SIMPLE_ESCAPES[0x62] = '\b'; // b
SIMPLE_ESCAPES[0x66] = '\f'; // f
SIMPLE_ESCAPES[0x76] = '\v'; // v
SIMPLE_ESCAPES[0x65] = '\x1b'; // e

/** Thrown inside the parser only; parseMiLine turns it into a raw record. */
class MiSyntaxError {
  constructor(
    readonly message: string,
    readonly at: number,
  ) {}
}

// The state of the line being parsed. parseMiLine is synchronous and never re-entered, so one set
// of module variables serves every call; it is reset at the start of each line.
let src = '';
let pos = 0;
let len = 0;
/** Position of the next backslash at or after some earlier cursor; `len` when there is none. */
let nextBackslash = -1;
/** How many tuples and lists enclose the cursor. */
let depth = 0;
/** Reused scratch space for the bytes of one run of octal escapes. */
let octalBytes = new Uint8Array(256);

/** Parse one line of GDB/MI output (without its line ending). Never throws. */
export function parseMiLine(line: string): MiRecord {
  try {
    return parseRecord(line);
  } catch (error) {
    if (error instanceof MiSyntaxError) {
      return { kind: 'raw', text: line, error: `${error.message} at column ${error.at + 1}` };
    }
    // Not expected: a bug here must still not take the session down with it.
    return { kind: 'raw', text: line, error: `parser failure: ${String(error)}` };
  } finally {
    src = '';
  }
}

function fail(message: string, at: number = pos): never {
  throw new MiSyntaxError(message, at);
}

function parseRecord(line: string): MiRecord {
  src = line;
  pos = 0;
  len = line.length;
  nextBackslash = -1;
  depth = 0;
  if (len === 0) fail('empty line');

  let c = line.charCodeAt(0);
  let token: number | undefined;
  if (c >= DIGIT_0 && c <= DIGIT_9) {
    let value = 0;
    while (pos < len && c >= DIGIT_0 && c <= DIGIT_9) {
      value = value * 10 + (c - DIGIT_0);
      c = line.charCodeAt(++pos);
    }
    if (pos > MAX_TOKEN_DIGITS) fail(`token longer than ${MAX_TOKEN_DIGITS} digits`, 0);
    if (pos === len) fail('token without a record');
    token = value;
  }

  switch (c) {
    case 0x5e: {
      // ^
      pos++;
      const cls = readName('result class');
      if (cls !== 'done' && cls !== 'running' && cls !== 'error' && cls !== 'connected' && cls !== 'exit') {
        fail(`unknown result class "${cls}"`, pos - cls.length);
      }
      return { kind: 'result', token, class: cls as MiResultClass, results: parseTopResults() };
    }
    case 0x2a: // *
      pos++;
      return { kind: 'exec', token, class: readName('async class'), results: parseTopResults() };
    case 0x3d: // =
      pos++;
      return { kind: 'notify', token, class: readName('async class'), results: parseTopResults() };
    case 0x2b: // +
      pos++;
      return { kind: 'status', token, class: readName('async class'), results: parseTopResults() };
    case 0x7e: // ~
      return { kind: 'console', text: parseStream(token) };
    case 0x40: // @
      return { kind: 'target', text: parseStream(token) };
    case 0x26: // &
      return { kind: 'log', text: parseStream(token) };
    case 0x28: // (
      if (token === undefined && isPrompt(line)) return { kind: 'prompt' };
      break;
    case 0:
      if (token === undefined && line.startsWith(MI_TRUNCATED_LINE_MARK)) return truncatedLine(line);
      break;
  }
  if (token !== undefined) fail('token not followed by "^", "*", "+" or "="');
  if (line.trim() === '') fail('blank line', 0);
  return fail('not an MI record', 0);
}

function isPrompt(line: string): boolean {
  if (!line.startsWith('(gdb)')) return false;
  for (let i = 5; i < line.length; i++) {
    if (line.charCodeAt(i) !== 0x20) return false;
  }
  return true;
}

function truncatedLine(line: string): MiRecord {
  const from = MI_TRUNCATED_LINE_MARK.length;
  const end = line.indexOf('\u0000', from);
  const dropped = end <= from ? Number.NaN : Number(line.slice(from, end));
  if (!Number.isSafeInteger(dropped)) return fail('malformed truncation mark', 0);
  return {
    kind: 'raw',
    text: line.slice(end + 1),
    error: `line longer than the splitter's limit: ${dropped} bytes past it were dropped`,
    droppedBytes: dropped,
  };
}

function parseStream(token: number | undefined): string {
  if (token !== undefined) fail('a stream record takes no token');
  pos++;
  if (src.charCodeAt(pos) !== QUOTE) fail('expected a c-string after the stream marker');
  const text = parseCString();
  if (pos !== len) fail('unexpected text after the c-string');
  return text;
}

// Recently seen names by hash. The same few dozen names ("frame", "addr", "thread-id") make up
// most of GDB's output; handing back the string already used as a property key saves a slice
// and V8's look-up of a fresh key in its string table on every store. A memo only: the result is
// the same string either way.
const NAME_CACHE_SLOTS = 1024;
const NAME_CACHE_MAX_LENGTH = 48;
const nameCache: string[] = new Array<string>(NAME_CACHE_SLOTS).fill('');

/** A class or a result name: the run of name characters at the cursor. */
function readName(what: string): string {
  const start = pos;
  let c = src.charCodeAt(pos);
  let hash = 0;
  while (c < 128 && NAME_CHARS[c] === 1) {
    hash = (hash * 31 + c) | 0;
    c = src.charCodeAt(++pos);
  }
  const length = pos - start;
  if (length === 0) fail(`expected ${what}`);
  if (length > NAME_CACHE_MAX_LENGTH) return src.slice(start, pos);
  const slot = (hash ^ (hash >>> 11)) & (NAME_CACHE_SLOTS - 1);
  const cached = nameCache[slot] as string;
  if (cached.length === length && src.startsWith(cached, start)) return cached;
  const name = src.slice(start, pos);
  nameCache[slot] = name;
  return name;
}

/** `("," result)*` up to the end of the line. */
function parseTopResults(): MiTuple {
  const results: MiTuple = {};
  if (pos === len) return results;
  let repeated: Set<string> | undefined;
  while (src.charCodeAt(pos) === COMMA) {
    pos++;
    const key = readName('a result name');
    if (src.charCodeAt(pos) !== EQUALS) fail('expected "=" after a result name');
    pos++;
    const value = parseValue();
    if (results[key] === undefined) results[key] = value;
    else repeated = addRepeated(results, key, value, repeated);
  }
  if (pos !== len) fail(pos < len ? 'expected "," or the end of the line' : 'unexpected end of line');
  return results;
}

function parseValue(): MiValue {
  const c = src.charCodeAt(pos);
  if (c === QUOTE) return parseCString();
  if (c !== LBRACE && c !== LBRACKET) {
    return fail(pos < len ? 'expected a value (", { or [)' : 'unexpected end of line, expected a value');
  }
  if (++depth > MAX_DEPTH) fail(`tuples and lists nested deeper than ${MAX_DEPTH}`);
  const value = c === LBRACE ? parseTuple() : parseList();
  depth--;
  return value;
}

function parseTuple(): MiTuple {
  const tuple: MiTuple = {};
  pos++;
  if (src.charCodeAt(pos) === RBRACE) {
    pos++;
    return tuple;
  }
  let repeated: Set<string> | undefined;
  for (;;) {
    const key = readName('a result name');
    if (src.charCodeAt(pos) !== EQUALS) fail('expected "=" after a result name');
    pos++;
    const value = parseValue();
    if (tuple[key] === undefined) tuple[key] = value;
    else repeated = addRepeated(tuple, key, value, repeated);
    const c = src.charCodeAt(pos++);
    if (c === COMMA) continue;
    if (c === RBRACE) return tuple;
    return fail(pos <= len ? 'expected "," or "}" in a tuple' : 'unterminated tuple', pos - 1);
  }
}

function parseList(): MiValue[] {
  const list: MiValue[] = [];
  pos++;
  if (src.charCodeAt(pos) === RBRACKET) {
    pos++;
    return list;
  }
  for (;;) {
    const c = src.charCodeAt(pos);
    if (c !== QUOTE && c !== LBRACE && c !== LBRACKET) {
      // A list of results (`[frame={…},frame={…}]`): the names carry nothing, keep the values.
      readName('a value or a result');
      if (src.charCodeAt(pos) !== EQUALS) fail('expected "=" after a result name');
      pos++;
    }
    list.push(parseValue());
    const next = src.charCodeAt(pos++);
    if (next === COMMA) continue;
    if (next === RBRACKET) return list;
    return fail(pos <= len ? 'expected "," or "]" in a list' : 'unterminated list', pos - 1);
  }
}

/**
 * The slow path of a tuple store: the key is already present, or it names something on
 * Object.prototype (`toString`, `__proto__`) that `tuple[key] === undefined` cannot see past.
 * A key repeated in one tuple (multi-location breakpoints in older GDBs: `{addr=…,addr=…}`)
 * collects its values into an array; `repeated` remembers which arrays are ours, so that a list
 * value seen first is wrapped rather than appended to.
 */
function addRepeated(tuple: MiTuple, key: string, value: MiValue, repeated: Set<string> | undefined) {
  if (!Object.hasOwn(tuple, key)) {
    // Inherited name seen for the first time. defineProperty, because `tuple.__proto__ = v`
    // would swap the prototype instead of storing a field.
    Object.defineProperty(tuple, key, { value, enumerable: true, writable: true, configurable: true });
    return repeated;
  }
  const seen = repeated ?? new Set<string>();
  const previous = tuple[key] as MiValue;
  if (seen.has(key)) {
    (previous as MiValue[]).push(value);
  } else {
    seen.add(key);
    Object.defineProperty(tuple, key, {
      value: [previous, value],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return seen;
}

/** The c-string whose opening quote is at the cursor; leaves the cursor after its closing quote. */
function parseCString(): string {
  const start = pos + 1;
  const close = src.indexOf('"', start);
  if (close === -1) fail('unterminated c-string');
  if (nextBackslash < start) {
    nextBackslash = src.indexOf('\\', start);
    if (nextBackslash === -1) nextBackslash = len;
  }
  if (nextBackslash > close) {
    pos = close + 1;
    return src.slice(start, close);
  }
  return parseEscapedCString(start, close);
}

// The text of the c-string being unescaped. Small strings (nearly all) grow by `+=`; past
// PIECES_PER_JOIN pieces they move to an array joined every PIECES_PER_JOIN pieces. Building a
// megabyte string out of a million tiny pieces with `+=` keeps them all alive as a rope, and each
// young-generation GC copies the whole rope again: measured superlinear (5 MB took 50× 0.5 MB).
const PIECES_PER_JOIN = 256;
let text = '';
let textPieces = 0;
let pieces: string[] = [];
let chunks: string[] | undefined;

function append(piece: string): void {
  if (chunks === undefined) {
    text += piece;
    if (++textPieces === PIECES_PER_JOIN) chunks = [text];
    return;
  }
  pieces.push(piece);
  if (pieces.length === PIECES_PER_JOIN) {
    chunks.push(pieces.join(''));
    pieces.length = 0;
  }
}

function takeText(): string {
  let out = text;
  if (chunks !== undefined) {
    chunks.push(pieces.join(''));
    out = chunks.join('');
    chunks = undefined;
    pieces = [];
  }
  text = '';
  textPieces = 0;
  return out;
}

/**
 * A c-string with at least one escape before `close` (the first quote after `start`). Walks from
 * escape to escape, copying the plain runs between them by slice. Each indexOf starts past the
 * previous hit, so the whole string is scanned once for backslashes and once for quotes.
 */
function parseEscapedCString(start: number, close: number): string {
  takeText(); // a failed line may have left a partial text behind
  let segment = start;
  let backslash = nextBackslash;
  let quote = close;
  for (;;) {
    if (quote < backslash) {
      pos = quote + 1;
      nextBackslash = backslash;
      if (quote > segment) append(src.slice(segment, quote));
      return takeText();
    }
    if (backslash > segment) append(src.slice(segment, backslash));
    const e = src.charCodeAt(backslash + 1);
    let after = backslash + 2;
    const simple = e < 128 ? SIMPLE_ESCAPES[e] : undefined;
    if (simple !== undefined) {
      append(simple);
    } else if (e >= DIGIT_0 && e <= DIGIT_7) {
      after = decodeOctalRun(backslash);
      append(lastOctalText);
    } else {
      fail(Number.isNaN(e) ? 'unterminated c-string' : `unknown escape "\\${String.fromCharCode(e)}"`, backslash);
    }
    segment = after;
    if (after > quote) {
      quote = src.indexOf('"', after);
      if (quote === -1) fail('unterminated c-string');
    }
    backslash = src.indexOf('\\', after);
    if (backslash === -1) backslash = len;
  }
}

/** The text of the octal run decodeOctalRun last read (a second return value, without a tuple). */
let lastOctalText = '';

/**
 * Reads the run of octal escapes starting at `at` (`\303\251…`), one byte each, and decodes the
 * bytes together as UTF-8 so characters split across escapes come out whole. Returns the index
 * after the run; the text is left in lastOctalText.
 */
function decodeOctalRun(at: number): number {
  let count = 0;
  let i = at;
  for (;;) {
    // i is on a backslash followed by an octal digit.
    let byte = src.charCodeAt(i + 1) - DIGIT_0;
    i += 2;
    for (let digits = 1; digits < 3; digits++) {
      const d = src.charCodeAt(i);
      if (d < DIGIT_0 || d > DIGIT_7) break;
      byte = byte * 8 + (d - DIGIT_0);
      i++;
    }
    if (byte > 255) fail('octal escape above \\377', i - 4);
    if (count === octalBytes.length) {
      const grown = new Uint8Array(count * 2);
      grown.set(octalBytes);
      octalBytes = grown;
    }
    octalBytes[count++] = byte;
    if (src.charCodeAt(i) !== BACKSLASH) break;
    const d = src.charCodeAt(i + 1);
    if (d < DIGIT_0 || d > DIGIT_7) break;
  }
  lastOctalText = decodeUtf8(octalBytes, count);
  return i;
}

/**
 * UTF-8 for the handful of bytes in an octal run. Well-formed input (the usual case) is decoded
 * here, which is cheaper than a native call per run; anything ill-formed goes to Buffer, whose
 * decoder puts U+FFFD where the WHATWG rules say.
 */
function decodeUtf8(bytes: Uint8Array, count: number): string {
  let out = '';
  let i = 0;
  while (i < count) {
    const b0 = bytes[i] as number;
    if (b0 < 0x80) {
      out += String.fromCharCode(b0);
      i++;
      continue;
    }
    let cp = -1;
    let size = 0;
    if (b0 >= 0xc2 && b0 <= 0xdf && i + 1 < count) {
      const b1 = bytes[i + 1] as number;
      if ((b1 & 0xc0) === 0x80) {
        cp = ((b0 & 0x1f) << 6) | (b1 & 0x3f);
        size = 2;
      }
    } else if (b0 >= 0xe0 && b0 <= 0xef && i + 2 < count) {
      const b1 = bytes[i + 1] as number;
      const b2 = bytes[i + 2] as number;
      const low = b0 === 0xe0 ? 0xa0 : 0x80;
      const high = b0 === 0xed ? 0x9f : 0xbf;
      if (b1 >= low && b1 <= high && (b2 & 0xc0) === 0x80) {
        cp = ((b0 & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f);
        size = 3;
      }
    } else if (b0 >= 0xf0 && b0 <= 0xf4 && i + 3 < count) {
      const b1 = bytes[i + 1] as number;
      const b2 = bytes[i + 2] as number;
      const b3 = bytes[i + 3] as number;
      const low = b0 === 0xf0 ? 0x90 : 0x80;
      const high = b0 === 0xf4 ? 0x8f : 0xbf;
      if (b1 >= low && b1 <= high && (b2 & 0xc0) === 0x80 && (b3 & 0xc0) === 0x80) {
        cp = ((b0 & 0x07) << 18) | ((b1 & 0x3f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f);
        size = 4;
      }
    }
    if (size === 0) return Buffer.from(bytes.buffer, bytes.byteOffset, count).toString('utf8');
    out += String.fromCodePoint(cp);
    i += size;
  }
  return out;
}
