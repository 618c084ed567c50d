// Writes records back as MI output text: the inverse of parseMiLine, for property tests, fake
// debuggers in tests, and transcripts. parseMiLine(serializeMiRecord(r)) deep-equals r for every
// record the parser can produce except `raw` (written back as its text) and values whose arrays
// came from a repeated key (written as a list, which parses to the same array).

import type { MiRecord, MiTuple, MiValue } from './miRecords.js';

export interface MiSerializeOptions {
  /**
   * Write every non-ASCII character as octal escapes of its UTF-8 bytes (`é` → `\303\251`), as
   * GDB 13 does; otherwise it is written as is. Lone surrogates cannot survive this (they encode
   * as U+FFFD).
   */
  escapeNonAscii?: boolean;
}

const NAMED_ESCAPES: Record<number, string> = {
  7: '\\a',
  8: '\\b',
  9: '\\t',
  10: '\\n',
  11: '\\v',
  12: '\\f',
  13: '\\r',
  27: '\\e',
  34: '\\"',
  92: '\\\\',
};

function octal(byte: number): string {
  return `\\${byte.toString(8).padStart(3, '0')}`;
}

const encoder = new TextEncoder();

/** `text` as an MI c-string, quotes included. */
export function serializeMiCString(text: string, options: MiSerializeOptions = {}): string {
  let out = '"';
  let plain = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const ascii = c < 0x80;
    if (ascii && c >= 0x20 && c !== 0x22 && c !== 0x5c && c !== 0x7f) continue;
    if (!ascii && !options.escapeNonAscii) continue;
    out += text.slice(plain, i);
    if (ascii) {
      out += NAMED_ESCAPES[c] ?? octal(c);
      plain = i + 1;
    } else {
      // The whole run of non-ASCII characters, so surrogate pairs stay together.
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) >= 0x80) j++;
      for (const byte of encoder.encode(text.slice(i, j))) out += octal(byte);
      plain = j;
      i = j - 1;
    }
  }
  return `${out}${text.slice(plain)}"`;
}

export function serializeMiValue(value: MiValue, options: MiSerializeOptions = {}): string {
  if (typeof value === 'string') return serializeMiCString(value, options);
  if (Array.isArray(value)) return `[${value.map((v) => serializeMiValue(v, options)).join(',')}]`;
  return `{${serializeResults(value, options).join(',')}}`;
}

function serializeResults(tuple: MiTuple, options: MiSerializeOptions): string[] {
  return Object.keys(tuple).map((key) => `${key}=${serializeMiValue(tuple[key] as MiValue, options)}`);
}

const ASYNC_MARKS = { exec: '*', status: '+', notify: '=' } as const;
const STREAM_MARKS = { console: '~', target: '@', log: '&' } as const;

/** One record as one MI line, without the line ending. */
export function serializeMiRecord(record: MiRecord, options: MiSerializeOptions = {}): string {
  switch (record.kind) {
    case 'result':
    case 'exec':
    case 'status':
    case 'notify': {
      const mark = record.kind === 'result' ? '^' : ASYNC_MARKS[record.kind];
      const head = `${record.token ?? ''}${mark}${record.class}`;
      const results = serializeResults(record.results, options);
      return results.length === 0 ? head : `${head},${results.join(',')}`;
    }
    case 'console':
    case 'target':
    case 'log':
      return `${STREAM_MARKS[record.kind]}${serializeMiCString(record.text, options)}`;
    case 'prompt':
      return '(gdb) ';
    case 'raw':
      return record.text;
  }
}
