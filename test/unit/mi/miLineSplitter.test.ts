import { describe, expect, it } from 'vitest';
import { MiLineSplitter } from '../../../src/protocols/mi/miLineSplitter.js';
import { parseMiLine } from '../../../src/protocols/mi/miParser.js';

/** Feeds `data` in pieces of `size` bytes and returns every line, end() included. */
function splitAll(data: Buffer, size: number, splitter = new MiLineSplitter()): string[] {
  const lines: string[] = [];
  for (let i = 0; i < data.length; i += size) lines.push(...splitter.push(data.subarray(i, i + size)));
  lines.push(...splitter.end());
  return lines;
}

describe('MiLineSplitter', () => {
  it('splits complete lines and keeps the unfinished tail', () => {
    const s = new MiLineSplitter();
    expect(s.push(Buffer.from('^done\n(gdb) \n~"par'))).toEqual(['^done', '(gdb) ']);
    expect(s.push(Buffer.from('tial"'))).toEqual([]);
    expect(s.push(Buffer.from('\n'))).toEqual(['~"partial"']);
    expect(s.end()).toEqual([]);
  });

  it('strips one CR before LF, also when CR and LF arrive in different chunks', () => {
    const s = new MiLineSplitter();
    expect(s.push(Buffer.from('^done\r\n^running\r'))).toEqual(['^done']);
    expect(s.push(Buffer.from('\n'))).toEqual(['^running']);
    expect(s.push(Buffer.from('a\r\r\n'))).toEqual(['a\r']);
    expect(s.push(Buffer.from('\r\n'))).toEqual(['']);
  });

  it('keeps empty lines', () => {
    expect(splitAll(Buffer.from('\n\na\n'), 1)).toEqual(['', '', 'a']);
  });

  it('flushes a final line without a newline at end()', () => {
    const s = new MiLineSplitter();
    expect(s.push(Buffer.from('^done\n^exit'))).toEqual(['^done']);
    expect(s.end()).toEqual(['^exit']);
    expect(s.end()).toEqual([]);
  });

  it('strips a CR from the final unterminated line', () => {
    const s = new MiLineSplitter();
    s.push(Buffer.from('^exit\r'));
    expect(s.end()).toEqual(['^exit']);
  });

  it('decodes multi-byte UTF-8 cut at every possible chunk boundary', () => {
    const text = '~"é 好 🎉 wörld"\n@"ā€"\n';
    const data = Buffer.from(text);
    for (let size = 1; size <= data.length; size++) {
      expect(splitAll(data, size)).toEqual(['~"é 好 🎉 wörld"', '@"ā€"']);
    }
  });

  it('decodes a character split across two pushes of exactly one byte each', () => {
    const bytes = Buffer.from('好\n');
    const s = new MiLineSplitter();
    const out: string[] = [];
    for (const b of bytes) out.push(...s.push(Buffer.from([b])));
    expect(out).toEqual(['好']);
  });

  it('turns invalid UTF-8 into U+FFFD without losing the newline', () => {
    expect(splitAll(Buffer.from([0x61, 0xc3, 0x0a, 0x62, 0x0a]), 1)).toEqual(['a\uFFFD', 'b']);
  });

  it('does not keep references to the pushed buffers', () => {
    const s = new MiLineSplitter();
    const chunk = Buffer.from('~"abc');
    s.push(chunk);
    chunk.fill(0x78);
    expect(s.push(Buffer.from('"\n'))).toEqual(['~"abc"']);
  });

  describe('maxLineBytes', () => {
    it('passes lines at the cap untouched', () => {
      const s = new MiLineSplitter({ maxLineBytes: 5 });
      expect(s.push(Buffer.from('12345\n123\n'))).toEqual(['12345', '123']);
      expect(s.truncatedLines).toBe(0);
    });

    it('does not count a CR against the cap', () => {
      const s = new MiLineSplitter({ maxLineBytes: 5 });
      expect(s.push(Buffer.from('12345\r\n'))).toEqual(['12345']);
      expect(splitAll(Buffer.from('12345\r\n'), 1, new MiLineSplitter({ maxLineBytes: 5 }))).toEqual(['12345']);
    });

    it('cuts a longer line, reports the dropped bytes and carries on', () => {
      for (const size of [1, 3, 7, 1000]) {
        const s = new MiLineSplitter({ maxLineBytes: 8 });
        const lines = splitAll(Buffer.from('^done,value="0123456789abcdef"\r\n^done\n'), size, s);
        expect(lines).toEqual(['\u0000dbg-mcp:truncated:22\u0000^done,va', '^done']);
        expect(s.truncatedLines).toBe(1);
        expect(s.droppedBytesTotal).toBe(22);
        const record = parseMiLine(lines[0] as string);
        expect(record).toEqual({
          kind: 'raw',
          text: '^done,va',
          error: "line longer than the splitter's limit: 22 bytes past it were dropped",
          droppedBytes: 22,
        });
      }
    });

    it('cuts an unterminated final line too', () => {
      const s = new MiLineSplitter({ maxLineBytes: 4 });
      s.push(Buffer.from('abcdefgh'));
      expect(s.end()).toEqual(['\u0000dbg-mcp:truncated:4\u0000abcd']);
    });

    it('keeps memory bounded while a huge line streams in', () => {
      const s = new MiLineSplitter({ maxLineBytes: 1024 });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      for (let i = 0; i < 200; i++) expect(s.push(chunk)).toEqual([]);
      // 12.5 MiB went in; only the cap is held.
      const internal = s as unknown as { pendingBytes: number };
      expect(internal.pendingBytes).toBe(1024);
      const [line] = s.push(Buffer.from('\n'));
      expect(line).toBe(`\u0000dbg-mcp:truncated:${200 * 64 * 1024 - 1024}\u0000${'a'.repeat(1024)}`);
    });

    it('rejects a cap that is not a positive integer', () => {
      expect(() => new MiLineSplitter({ maxLineBytes: 0 })).toThrow(RangeError);
      expect(() => new MiLineSplitter({ maxLineBytes: 1.5 })).toThrow(RangeError);
    });
  });
});
