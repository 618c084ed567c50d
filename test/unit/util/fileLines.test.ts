import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readFileLines } from '../../../src/util/fileLines.js';

const dir = mkdtempSync(join(tmpdir(), 'dbg-mcp-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('readFileLines', () => {
  it('gives lines from..to, numbered from 1', async () => {
    const path = file('five.c', 'one\ntwo\nthree\nfour\nfive\n');
    expect(await readFileLines(path, 2, 4)).toEqual([
      { line: 2, text: 'two' },
      { line: 3, text: 'three' },
      { line: 4, text: 'four' },
    ]);
  });

  it('stops at the end of the file: fewer lines, or none past it', async () => {
    const path = file('short.c', 'a\nb\n');
    expect(await readFileLines(path, 2, 9)).toEqual([{ line: 2, text: 'b' }]);
    expect(await readFileLines(path, 5, 9)).toEqual([]);
  });

  it('keeps a last line without a newline, and drops the \\r of CRLF lines', async () => {
    expect(await readFileLines(file('crlf.c', 'x\r\ny\r\nlast'), 1, 3)).toEqual([
      { line: 1, text: 'x' },
      { line: 2, text: 'y' },
      { line: 3, text: 'last' },
    ]);
  });

  it('joins a line cut across two reads, and decodes UTF-8 once per line', async () => {
    // The reads are 64 KiB: put a long line, with a three-byte character, across the boundary.
    const long = `${'a'.repeat(65_530)}€${'b'.repeat(20)}`;
    const path = file('long.c', `first\n${long}\nafter\n`);
    expect(await readFileLines(path, 2, 3)).toEqual([
      { line: 2, text: long },
      { line: 3, text: 'after' },
    ]);
  });

  it('answers undefined for what it cannot read here: a relative path, a directory, no file', async () => {
    expect(await readFileLines('five.c', 1, 2)).toBeUndefined();
    expect(await readFileLines(dir, 1, 2)).toBeUndefined();
    expect(await readFileLines(join(dir, 'missing.c'), 1, 2)).toBeUndefined();
  });
});
