import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertSingleLine, buildMiCommand, MiArgumentError, quoteMiArg } from '../../../src/protocols/mi/miCommand.js';
import { MiLineSplitter } from '../../../src/protocols/mi/miLineSplitter.js';
import { parseMiLine } from '../../../src/protocols/mi/miParser.js';
import type { MiRecord, MiResultRecord } from '../../../src/protocols/mi/miRecords.js';

describe('quoteMiArg', () => {
  it.each([
    ['main', 'main'],
    ['main.c:10', 'main.c:10'],
    ['-t', '-t'],
    ['--thread-group', '--thread-group'],
    ['/usr/src/a-b_c/file.c:42', '/usr/src/a-b_c/file.c:42'],
    ['*0x401000', '*0x401000'],
    ['$pc+4', '$pc+4'],
    ['a[2]', 'a[2]'],
    ['x==1&&y!=2||z>=3', 'x==1&&y!=2||z>=3'],
    ['i1,i2', 'i1,i2'],
  ])('leaves %j bare', (arg, expected) => {
    expect(quoteMiArg(arg)).toBe(expected);
  });

  it.each([
    ['', '""'],
    ['file with space.c:3', '"file with space.c:3"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['C:\\dir', '"C:\\\\dir"'],
    ['s == "a\\\\b"', '"s == \\"a\\\\\\\\b\\""'],
    ['tab\there', '"tab\\there"'],
    ['bell\x07', '"bell\\007"'],
    ['esc\x1b[0m', '"esc\\033[0m"'],
    ['del\x7f', '"del\\177"'],
    ['déjà', '"déjà"'],
    ['f(x)', '"f(x)"'],
    ["it's", '"it\'s"'],
    ['{a}', '"{a}"'],
    ['a;b', '"a;b"'],
    ['"', '"\\""'],
    ['\\', '"\\\\"'],
  ])('quotes %j', (arg, expected) => {
    expect(quoteMiArg(arg)).toBe(expected);
  });

  it('rejects line breaks even when called on its own', () => {
    expect(() => quoteMiArg('a\nb')).toThrow(MiArgumentError);
  });
});

describe('buildMiCommand', () => {
  it('joins token, operation and quoted arguments', () => {
    expect(buildMiCommand(12, 'break-insert', ['-t', 'main.c:10'])).toBe('12-break-insert -t main.c:10');
    expect(buildMiCommand(3, 'break-insert', ['-c', 'i == 3', 'loop.c:13'])).toBe(
      '3-break-insert -c "i == 3" loop.c:13',
    );
    expect(buildMiCommand(0, 'gdb-exit', [])).toBe('0-gdb-exit');
    expect(buildMiCommand(7, 'data-evaluate-expression', ['sizeof("a\\"b\\\\c")'])).toBe(
      '7-data-evaluate-expression "sizeof(\\"a\\\\\\"b\\\\\\\\c\\")"',
    );
  });

  it.each([['-break-insert'], ['Break-insert'], ['break insert'], [''], ['break-insert\n'], ['1break']])(
    'rejects the operation %j',
    (operation) => {
      expect(() => buildMiCommand(1, operation, [])).toThrow(/operation/);
    },
  );

  it.each([[-1], [1.5], [Number.NaN], [2 ** 53]])('rejects the token %d', (token) => {
    expect(() => buildMiCommand(token, 'gdb-version', [])).toThrow(/token/);
  });

  const breaks: [string, string][] = [
    ['LF', '\n'],
    ['CR', '\r'],
    ['VT', '\v'],
    ['FF', '\f'],
    ['NEL', '\u0085'],
    ['LINE SEPARATOR', '\u2028'],
    ['PARAGRAPH SEPARATOR', '\u2029'],
    ['NUL', '\0'],
  ];

  it.each(breaks)('rejects an argument containing %s and names its index', (_name, ch) => {
    let error: unknown;
    try {
      buildMiCommand(5, 'data-evaluate-expression', ['ok', `1${ch}-gdb-exit`]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MiArgumentError);
    const e = error as MiArgumentError;
    expect(e.argumentIndex).toBe(1);
    expect(e.what).toBe('argument 1');
    expect(e.message).toMatch(/^argument 1: contains (a line break \(U\+[0-9A-F]{4}\)|a NUL character) at index 1$/);
  });

  it('accepts a tab, which is not a line break', () => {
    expect(buildMiCommand(1, 'data-evaluate-expression', ['\t1'])).toBe('1-data-evaluate-expression "\\t1"');
  });
});

describe('assertSingleLine', () => {
  it('names what it checked', () => {
    expect(() => assertSingleLine('a\u2028b', 'the condition')).toThrow(
      /^the condition: contains a line break \(U\+2028\) at index 1$/,
    );
    expect(() => assertSingleLine('fine', 'the condition')).not.toThrow();
  });
});

/** A real GDB in MI mode, enough to send a command and read its result record. */
class Gdb {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly splitter = new MiLineSplitter();
  private readonly records: MiRecord[] = [];
  private waiter: (() => void) | undefined;
  private token = 1;

  constructor() {
    this.child = spawn('gdb', ['--interpreter=mi4', '-nx', '-q'], { stdio: 'pipe' });
    this.child.stdout.on('data', (chunk: Buffer) => {
      for (const line of this.splitter.push(chunk)) this.records.push(parseMiLine(line));
      this.waiter?.();
    });
  }

  /** Sends `operation args…` and resolves with its result record, or rejects after `ms`. */
  async send(operation: string, args: readonly string[], ms = 5000): Promise<MiResultRecord> {
    const token = this.token++;
    this.child.stdin.write(`${buildMiCommand(token, operation, args)}\n`);
    const deadline = Date.now() + ms;
    for (;;) {
      const index = this.records.findIndex((r) => r.kind === 'result' && r.token === token);
      if (index !== -1) return this.records.splice(0, index + 1)[index] as MiResultRecord;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no answer to -${operation} within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  close(): void {
    this.child.stdin.end();
    setTimeout(() => this.child.kill('SIGKILL'), 2000).unref();
  }
}

describe('quoting reaches a real GDB intact', () => {
  let gdb: Gdb;
  let dir: string;

  beforeAll(() => {
    gdb = new Gdb();
    dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'dbg-mcp-quote-')));
  });

  afterAll(() => {
    gdb?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('passes quotes and backslashes inside an expression', async () => {
    // "a\"b\\c" is a C string literal of 5 characters, plus the NUL.
    const answer = await gdb.send('data-evaluate-expression', ['sizeof("a\\"b\\\\c")']);
    expect(answer).toMatchObject({ class: 'done', results: { value: '6' } });
  }, 10_000);

  it('passes a backslash-heavy comparison and unicode', async () => {
    expect((await gdb.send('data-evaluate-expression', ['sizeof("\\\\\\\\")'])).results).toEqual({ value: '3' });
    expect((await gdb.send('data-evaluate-expression', ['sizeof("é")'])).results).toEqual({ value: '3' });
    expect((await gdb.send('data-evaluate-expression', ['sizeof("\t")'])).results).toEqual({ value: '2' });
  }, 10_000);

  it('passes a file name with spaces as one argument', async () => {
    // -f makes the breakpoint pending, and GDB echoes the location it was given.
    const answer = await gdb.send('break-insert', ['-f', 'file with space.c:3']);
    expect(answer.class).toBe('done');
    expect(answer.results).toMatchObject({ bkpt: { 'original-location': 'file with space.c:3' } });
  }, 10_000);

  it('passes a path with spaces, quotes, backslashes and unicode byte for byte', async () => {
    const name = path.join(dir, 'a dir "quoted" back\\slash déjà $x');
    mkdirSync(name);
    expect((await gdb.send('environment-cd', [name])).class).toBe('done');
    expect((await gdb.send('environment-pwd', [])).results).toEqual({ cwd: name });
  }, 10_000);

  it('sends an empty argument as "" rather than dropping it', async () => {
    const answer = await gdb.send('data-evaluate-expression', ['']);
    // A missing argument would get the usage message instead.
    expect(answer.results).toEqual({ msg: 'Argument required (expression to compute).' });
  }, 10_000);
});
