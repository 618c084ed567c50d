// Golden transcripts captured from a real GDB 13 (scripts/captureGolden.mjs): every line must
// parse to the record stored beside it, and none of GDB's own lines may come out as `raw`.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MiLineSplitter } from '../../../src/protocols/mi/miLineSplitter.js';
import { parseMiLine } from '../../../src/protocols/mi/miParser.js';
import type { MiRecord } from '../../../src/protocols/mi/miRecords.js';

const goldenDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'golden');
const names = readdirSync(goldenDir)
  .filter((file) => file.endsWith('.mi'))
  .map((file) => file.slice(0, -'.mi'.length))
  .sort();

/** The records as JSON would carry them (no undefined fields), for comparison with the files. */
function viaJson(records: MiRecord[]): unknown {
  return JSON.parse(JSON.stringify(records));
}

describe('golden transcripts from real GDB', () => {
  it('has transcripts to check', () => {
    expect(names).toEqual(
      expect.arrayContaining(['loop-stepping', 'crash-segv', 'threads-interrupt', 'breakpoints', 'errors']),
    );
  });

  describe.each(names)('%s', (name) => {
    const bytes = readFileSync(path.join(goldenDir, `${name}.mi`));
    const expected = JSON.parse(readFileSync(path.join(goldenDir, `${name}.json`), 'utf8')) as unknown[];

    it('parses every line to the stored record', () => {
      const lines = bytes.toString('utf8').split('\n');
      expect(lines.pop()).toBe('');
      const records = lines.map(parseMiLine);
      expect(records).toHaveLength(expected.length);
      const actual = viaJson(records) as unknown[];
      for (let i = 0; i < records.length; i++) {
        expect(actual[i], `${name}.mi line ${i + 1}: ${lines[i]}`).toEqual(expected[i]);
      }
    });

    it('has no raw records', () => {
      const raw = bytes
        .toString('utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => ({ line, record: parseMiLine(line) }))
        .filter(({ record }) => record.kind === 'raw');
      expect(raw).toEqual([]);
    });

    it('splits the same in small fragments as GDB writes them', () => {
      const splitter = new MiLineSplitter();
      const lines: string[] = [];
      for (let i = 0; i < bytes.length; i += 7) lines.push(...splitter.push(bytes.subarray(i, i + 7)));
      lines.push(...splitter.end());
      expect(viaJson(lines.map(parseMiLine))).toEqual(expected);
    });
  });

  it('covers every record kind GDB sends natively', () => {
    const kinds = new Set<string>();
    for (const name of names) {
      for (const record of JSON.parse(readFileSync(path.join(goldenDir, `${name}.json`), 'utf8')) as MiRecord[]) {
        kinds.add(record.kind === 'result' ? `result:${record.class}` : record.kind);
      }
    }
    // `@` (target output) and `+` (status) only come from remote targets and downloads.
    for (const kind of [
      'result:done',
      'result:running',
      'result:error',
      'result:exit',
      'exec',
      'notify',
      'console',
      'log',
      'prompt',
    ]) {
      expect(kinds, kind).toContain(kind);
    }
  });
});
