import { describe, expect, it } from 'vitest';
import { parseMiLine } from '../../../src/protocols/mi/miParser.js';
import type { MiRecord, MiTuple } from '../../../src/protocols/mi/miRecords.js';

type Case = [name: string, line: string, expected: MiRecord];

const result = (results: MiTuple): MiRecord => ({ kind: 'result', token: undefined, class: 'done', results });

const recordKinds: Case[] = [
  ['bare ^done', '^done', { kind: 'result', token: undefined, class: 'done', results: {} }],
  ['^running', '^running', { kind: 'result', token: undefined, class: 'running', results: {} }],
  ['^connected', '^connected', { kind: 'result', token: undefined, class: 'connected', results: {} }],
  [
    '^error with msg and code',
    '^error,msg="No symbol \\"nope\\" in current context.",code="undefined-command"',
    {
      kind: 'result',
      token: undefined,
      class: 'error',
      results: { msg: 'No symbol "nope" in current context.', code: 'undefined-command' },
    },
  ],
  ['^exit', '^exit', { kind: 'result', token: undefined, class: 'exit', results: {} }],
  [
    'exec *stopped',
    '*stopped,reason="end-stepping-range",thread-id="1"',
    { kind: 'exec', token: undefined, class: 'stopped', results: { reason: 'end-stepping-range', 'thread-id': '1' } },
  ],
  [
    'exec *running',
    '*running,thread-id="all"',
    { kind: 'exec', token: undefined, class: 'running', results: { 'thread-id': 'all' } },
  ],
  [
    'status +download',
    '+download,section=".text",section-size="1000"',
    { kind: 'status', token: undefined, class: 'download', results: { section: '.text', 'section-size': '1000' } },
  ],
  [
    'notify =thread-group-added',
    '=thread-group-added,id="i1"',
    { kind: 'notify', token: undefined, class: 'thread-group-added', results: { id: 'i1' } },
  ],
  [
    'notify without results',
    '=cmd-param-changed',
    { kind: 'notify', token: undefined, class: 'cmd-param-changed', results: {} },
  ],
  ['console stream', '~"GNU gdb 13.1\\n"', { kind: 'console', text: 'GNU gdb 13.1\n' }],
  ['target stream', '@"hello from the inferior\\n"', { kind: 'target', text: 'hello from the inferior\n' }],
  ['log stream', '&"-bogus-command\\n"', { kind: 'log', text: '-bogus-command\n' }],
  ['empty console stream', '~""', { kind: 'console', text: '' }],
  ['prompt with trailing space', '(gdb) ', { kind: 'prompt' }],
  ['prompt without trailing space', '(gdb)', { kind: 'prompt' }],
  ['prompt with several spaces', '(gdb)   ', { kind: 'prompt' }],
];

const tokens: Case[] = [
  ['token on a result', '12^done', { kind: 'result', token: 12, class: 'done', results: {} }],
  ['token zero', '0^running', { kind: 'result', token: 0, class: 'running', results: {} }],
  ['leading zeros are read as a number', '007^done', { kind: 'result', token: 7, class: 'done', results: {} }],
  [
    'token on an exec record',
    '5*stopped,reason="exited-normally"',
    { kind: 'exec', token: 5, class: 'stopped', results: { reason: 'exited-normally' } },
  ],
  ['token on a notify record', '6=foo', { kind: 'notify', token: 6, class: 'foo', results: {} }],
  ['token on a status record', '7+bar', { kind: 'status', token: 7, class: 'bar', results: {} }],
  [
    'fifteen-digit token',
    '999999999999999^done',
    { kind: 'result', token: 999999999999999, class: 'done', results: {} },
  ],
];

const escapes: Case[] = [
  ['\\n \\t \\r', '~"a\\nb\\tc\\rd"', { kind: 'console', text: 'a\nb\tc\rd' }],
  ['quote and backslash', '~"say \\"hi\\" C:\\\\dir\\\\"', { kind: 'console', text: 'say "hi" C:\\dir\\' }],
  ['\\a \\b \\f \\v \\e', '~"\\a\\b\\f\\v\\e"', { kind: 'console', text: '\x07\b\f\v\x1b' }],
  ['octal control bytes', '~"\\001\\177\\000"', { kind: 'console', text: '\x01\x7f\x00' }],
  ['short octal escape', '~"\\0x"', { kind: 'console', text: '\x00x' }],
  ['escaped backslash before the closing quote', '~"a\\\\"', { kind: 'console', text: 'a\\' }],
  ['escaped quote then more text', '~"\\"\\"x\\""', { kind: 'console', text: '""x"' }],
  ['text after an escape is kept', '~"\\tabc def ghi jkl mno"', { kind: 'console', text: '\tabc def ghi jkl mno' }],
  [
    'a backslash escaped as octal stays a plain backslash',
    '^done,value="0x2004 \\"\\\\001\\""',
    result({ value: '0x2004 "\\001"' }),
  ],
];

const unicode: Case[] = [
  ['raw UTF-8 passes through', '~"wörld 好 🎉"', { kind: 'console', text: 'wörld 好 🎉' }],
  ['octal UTF-8, two bytes', '~"d\\303\\251j\\303\\240 vu"', { kind: 'console', text: 'déjà vu' }],
  ['octal UTF-8, three bytes', '~"\\345\\245\\275"', { kind: 'console', text: '好' }],
  ['octal UTF-8, four bytes', '~"\\360\\237\\216\\211"', { kind: 'console', text: '🎉' }],
  [
    'GDB 13 value print: every non-ASCII byte octal',
    '^done,value="0x2004 \\"\\304\\201\\342\\202\\254\\303\\251\\345\\245\\275\\""',
    result({ value: '0x2004 "ā€é好"' }),
  ],
  ['raw and octal mixed', '~"é\\303\\251é"', { kind: 'console', text: 'ééé' }],
  ['invalid UTF-8 becomes U+FFFD', '~"a\\377b"', { kind: 'console', text: 'a\uFFFDb' }],
  ['truncated sequence becomes U+FFFD', '~"\\303"', { kind: 'console', text: '\uFFFD' }],
  ['overlong encoding becomes U+FFFD', '~"\\300\\257"', { kind: 'console', text: '\uFFFD\uFFFD' }],
  ['encoded surrogate becomes U+FFFD', '~"\\355\\240\\200"', { kind: 'console', text: '\uFFFD\uFFFD\uFFFD' }],
  ['a run broken by a letter decodes each part', '~"\\303x\\251"', { kind: 'console', text: '\uFFFDx\uFFFD' }],
  ['raw non-ASCII in a value', '^done,v="ü"', result({ v: 'ü' })],
];

const values: Case[] = [
  ['empty list', '^done,a=[]', result({ a: [] })],
  ['empty tuple', '^done,a={}', result({ a: {} })],
  ['list of strings', '^done,groups=["i1","i2"]', result({ groups: ['i1', 'i2'] })],
  ['list of tuples', '^done,l=[{a="1"},{a="2"}]', result({ l: [{ a: '1' }, { a: '2' }] })],
  ['list of lists', '^done,l=[[],["x"],[[]]]', result({ l: [[], ['x'], [[]]] })],
  [
    'list of results keeps the values',
    '^done,stack=[frame={level="0"},frame={level="1"}]',
    result({ stack: [{ level: '0' }, { level: '1' }] }),
  ],
  ['list of results of strings', '^done,l=[a="1",b="2"]', result({ l: ['1', '2'] })],
  [
    'nested tuples and lists',
    '^done,a={b={c=[{d={}}]},e=["f",{g="h"}]}',
    result({ a: { b: { c: [{ d: {} }] }, e: ['f', { g: 'h' }] } }),
  ],
  ['repeated key in a tuple', '^done,b={addr="1",addr="2",addr="3"}', result({ b: { addr: ['1', '2', '3'] } })],
  ['repeated key at the top level', '^done,bkpt={n="1"},bkpt={n="2"}', result({ bkpt: [{ n: '1' }, { n: '2' }] })],
  ['repeated key whose first value is a list', '^done,t={x=["1"],x="2",x=[]}', result({ t: { x: [['1'], '2', []] } })],
  ['empty strings', '^done,a="",b=""', result({ a: '', b: '' })],
  ['braces and brackets inside strings', '^done,a="{[,=]}"', result({ a: '{[,=]}' })],
  [
    'names with dashes, underscores and dots',
    '^done,thread-id="1",addr_flags="x",a.b="y"',
    result({ 'thread-id': '1', addr_flags: 'x', 'a.b': 'y' }),
  ],
];

const hostileKeys: Case[] = [
  ['__proto__ is a plain field', '^done,__proto__="x"', result({ ['__proto__']: 'x' })],
  [
    'constructor and toString are plain fields',
    '^done,constructor="c",toString="t"',
    result({ constructor: 'c', toString: 't' }),
  ],
];

const malformed: [name: string, line: string, error: RegExp][] = [
  ['empty line', '', /empty line/],
  ['only whitespace', '   \t ', /blank line/],
  ['unterminated string', '~"abc', /unterminated c-string/],
  ['unterminated string after an escape', '~"abc\\"', /unterminated c-string/],
  ['backslash at the end of the line', '~"abc\\', /unterminated c-string/],
  ['unknown escape', '~"a\\qb"', /unknown escape "\\q"/],
  ['octal escape above 255', '~"\\777"', /octal escape/],
  ['trailing garbage after a stream', '~"abc"x', /unexpected text after the c-string/],
  ['trailing garbage after a value', '^done,a="1"x', /expected "," or the end of the line/],
  ['trailing comma', '^done,a="1",', /expected a result name/],
  ['missing =', '^done,a', /expected "="/],
  ['missing = inside a tuple', '^done,a={b}', /expected "="/],
  ['missing value', '^done,a=', /expected a value/],
  ['bare word as a value', '^done,a=b', /expected a value/],
  ['unterminated tuple', '^done,a={b="1"', /unterminated tuple/],
  ['unterminated list', '^done,a=["1"', /unterminated list/],
  ['bad separator in a tuple', '^done,a={b="1";c="2"}', /expected "," or "}"/],
  ['bad separator in a list', '^done,a=["1";"2"]', /expected "," or "]"/],
  ['unknown result class', '^weird', /unknown result class/],
  ['missing class', '*,a="1"', /expected async class/],
  ['token alone', '123', /token without a record/],
  ['token on a stream record', '1~"x"', /takes no token/],
  ['token on a prompt', '1(gdb)', /token not followed/],
  ['very long token', '12345678901234567890^done', /token longer than 15 digits/],
  ['inferior output', 'hello from the program', /not an MI record/],
  ['prompt with text after it', '(gdb) x', /not an MI record/],
  ['stream without a string', '~abc', /expected a c-string/],
  ['space after a comma', '^done, a="1"', /expected a result name/],
  ['non-ASCII in a result name', '^done,ü="1"', /expected a result name/],
  ['carriage return left on the line', '^done\r', /expected "," or the end of the line/],
];

describe('parseMiLine', () => {
  for (const [group, cases] of [
    ['record kinds', recordKinds],
    ['tokens', tokens],
    ['escapes', escapes],
    ['unicode', unicode],
    ['values', values],
    ['hostile keys', hostileKeys],
  ] as const) {
    describe(group, () => {
      it.each(cases)('%s', (_name, line, expected) => {
        expect(parseMiLine(line)).toEqual(expected);
      });
    });
  }

  describe('malformed lines become raw records', () => {
    it.each(malformed)('%s', (_name, line, error) => {
      const record = parseMiLine(line);
      expect(record.kind).toBe('raw');
      if (record.kind !== 'raw') return;
      expect(record.text).toBe(line);
      expect(record.error).toMatch(error);
      expect(record.error).toMatch(/at column \d+$/);
    });
  });

  it('keeps the token field present (undefined) on untokened results', () => {
    const record = parseMiLine('^done');
    expect(Object.hasOwn(record, 'token')).toBe(true);
  });

  it('does not let __proto__ change the prototype of a tuple', () => {
    const record = parseMiLine('^done,a={__proto__={polluted="yes"}},__proto__="x"');
    if (record.kind !== 'result') throw new Error(`not a result: ${JSON.stringify(record)}`);
    const { a: inner } = record.results as { a: Record<string, unknown> };
    expect(Object.getPrototypeOf(inner)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(record.results)).toBe(Object.prototype);
    expect(Object.hasOwn(inner, '__proto__')).toBe(true);
    expect('polluted' in inner).toBe(false);
    expect('polluted' in {}).toBe(false);
    expect(JSON.parse(JSON.stringify(record.results))).toEqual({
      a: { ['__proto__']: { polluted: 'yes' } },
      ['__proto__']: 'x',
    });
  });

  it('collects a repeated __proto__ key into an array without touching the prototype', () => {
    const record = parseMiLine('^done,t={__proto__="1",__proto__="2"}');
    if (record.kind !== 'result') throw new Error('not a result');
    const { t } = record.results as { t: Record<string, unknown> };
    expect(Object.getPrototypeOf(t)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(t, '__proto__')?.value).toEqual(['1', '2']);
  });

  it('recognises the splitter truncation mark', () => {
    const record = parseMiLine('\u0000dbg-mcp:truncated:42\u0000^done,value="abc');
    expect(record).toEqual({
      kind: 'raw',
      text: '^done,value="abc',
      error: "line longer than the splitter's limit: 42 bytes past it were dropped",
      droppedBytes: 42,
    });
  });

  it('turns absurdly deep nesting into a raw record instead of a stack overflow', () => {
    const depth = 200_000;
    const line = `^done,a=${'['.repeat(depth)}${']'.repeat(depth)}`;
    const record = parseMiLine(line);
    expect(record.kind).toBe('raw');
    if (record.kind === 'raw') expect(record.error).toMatch(/nested deeper than/);
  });

  it('accepts nesting as deep as GDB plausibly sends', () => {
    const line = `^done,a=${'{b='.repeat(500)}"x"${'}'.repeat(500)}`;
    expect(parseMiLine(line).kind).toBe('result');
  });

  it('never throws, whatever the input', () => {
    const alphabet = ['"', '\\', '{', '}', '[', ']', ',', '=', '^', '~', '1', 'a', '3', '0', '\u0000', 'é'];
    let state = 7;
    for (let n = 0; n < 5000; n++) {
      let line = '';
      const size = n % 40;
      for (let i = 0; i < size; i++) {
        state = (state * 1103515245 + 12345) >>> 0;
        line += alphabet[state % alphabet.length];
      }
      expect(() => parseMiLine(line)).not.toThrow();
    }
  });
});
