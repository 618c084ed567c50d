// Issue 22's expression escapes, each a named case, through every checker that takes them: the
// server's GDB raw policy and dbg_evaluate check, the GDB share's MI policy, the LLDB values'
// read-only check and LLDB's raw policy under --raw read. Then property tests: harmful cores
// (writes, calls through debugger values, program calls) wrapped in comments, quotes, casts, `?:`
// and history are refused by every checker; harmless expressions around them are not.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyGdbCommand, expressionEffect } from '../../../src/backends/gdb/gdbRawPolicy.js';
import { gdbShareRefusal } from '../../../src/backends/gdbShare/gdbSharePolicy.js';
import { refusal as lldbRawRefusal } from '../../../src/backends/lldb/lldbCommand.js';
import { callsFunction, checkReadOnly, writesProgram } from '../../../src/backends/lldb/lldbValues.js';
import { parseMiInput } from '../../../src/protocols/mi/miInputParser.js';

const read = { access: 'read' as const, own: new Set<string>(), id: 'gdb-7' };

/** The GDB share's answer for an expression sent as -data-evaluate-expression. */
function gdbShare(expression: string): string | undefined {
  const input = parseMiInput(`1-data-evaluate-expression ${JSON.stringify(expression)}`);
  if (typeof input === 'string') throw new Error(input);
  return gdbShareRefusal(input, read);
}

/** Whether the LLDB read-only check (dbg_evaluate's, with calls refused) refuses. */
function lldbRefuses(expression: string): boolean {
  try {
    checkReadOnly(expression, 'expression', false);
    return false;
  } catch {
    return true;
  }
}

/** Every GDB checker: dbg_evaluate's, raw print and output, the share's. */
function gdbRefusals(expression: string): (string | undefined)[] {
  const print = classifyGdbCommand(`print ${expression}`, 'gdb');
  const output = classifyGdbCommand(`output ${expression}`, 'gdb');
  return [
    expressionEffect(expression),
    print.allowed ? undefined : print.reason,
    output.allowed ? undefined : output.reason,
    gdbShare(expression),
  ];
}

describe("issue 22: a person's shared gdb ran shell commands", () => {
  const cases: [string, string][] = [
    ['($_shell)("touch F") through parentheses', '($_shell)("touch F")'],
    ['(1?$_shell:0)("id > F") through ?:', '(1?$_shell:0)("id > F")'],
    ['$("abc") through the value history', '$("abc")'],
    ['$$("abc") through the history, one back', '$$("abc")'],
    ['$$2("abc") through the history, two back', '$$2("abc")'],
    ['$3("abc") through a history number', '$3("abc")'],
    ['$_strlen stored as a value', '$_strlen'],
    ['$_shell as a value', '$_shell'],
    ['$_strlen($_shell) a function as an argument', '$_strlen($_shell)'],
    ['$f("id") through a convenience variable', '$f("id")'],
    ['($f)("id") through a parenthesised convenience variable', '($f)("id")'],
    ['$_shell/**/("id") a comment between callee and call', '$_shell/**/("id")'],
    ['(*$_shell)("id") through a dereference', '(*$_shell)("id")'],
  ];
  for (const [name, e] of cases) {
    it(name, () => {
      for (const why of gdbRefusals(e)) expect(why, e).toBeDefined();
    });
  }

  it('the raw lines of the report are refused under --raw read', () => {
    for (const line of [
      'output (1?$_shell:0)("id > F")',
      'print ($_shell)("touch F")',
      'print $_strlen',
      'print $("abc")',
    ]) {
      const v = classifyGdbCommand(line, 'gdb');
      expect(v.allowed, line).toBe(false);
      if (!v.allowed) expect(v.reason).toMatch(/\$/);
    }
  });
});

describe("issue 22: a person's shared LLDB was written to", () => {
  const cases: [string, string][] = [
    ["/*'*/ counter = 4242: a quote inside a comment", "/*'*/ counter = 4242"],
    ['counter/*"*/ += 1: a double quote inside a comment', 'counter/*"*/ += 1'],
    ['$rax = 1: a register assignment', '$rax = 1'],
    ['a raw string hiding code: R"d( " )d" counter = 1 //"', 'R"d( " )d" counter = 1 //"'],
    ['counter = 1 // with a line comment after', 'counter = 1 // "'],
    ["1'000 digit separator before a write", "1'0 + (counter = 2) + '"],
    ['new int: an allocation', 'new int'],
    ['an unterminated comment', 'counter /* x'],
  ];
  for (const [name, e] of cases) {
    it(name, () => {
      expect(writesProgram(e), e).toBe(true);
      expect(lldbRefuses(e), e).toBe(true);
      for (const why of gdbRefusals(e)) expect(why, e).toBeDefined();
    });
  }

  it('a cast function pointer is a call', () => {
    for (const e of [
      '((int(*)(const char*))&system)("touch F")',
      '(*fp)(1)',
      '(fp)(1)',
      'arr[0](1)',
      '[obj description]',
    ]) {
      expect(callsFunction(e), e).toBe(true);
      expect(lldbRefuses(e), e).toBe(true);
    }
  });
});

describe('issue 22: LLDB under the default --raw read', () => {
  const cases: [string, string][] = [
    ['memory read of a quoted call to system()', `memory read -c 4 -- '((int(*)(const char*))&system)("touch F")'`],
    ['memory read of a quoted assignment', "memory read -c 4 -- 'counter = 4242'"],
    ['memory read of a double-quoted assignment', 'memory read -c 4 -- "counter = 4242"'],
    ['disassemble -s with a comma expression', "disassemble -s '(counter=34, $pc)' -c 1"],
    ['disassemble --start-address= glued', "disassemble --start-address='(counter=34, $pc)' -c 1"],
    ['target modules lookup -a', "target modules lookup -a '(counter = 5, $pc)'"],
    ['image lookup -a with a call', "image lookup -a '(long)getpid()'"],
    ['memory region with a comma expression', "memory region '(counter = 38, $pc)'"],
    ['memory region with an expression without writes', "memory region '($pc, $pc)'"],
    ['disassemble -s with an arithmetic expression in parentheses', "disassemble -s '($pc + 0)' -c 1"],
    ['a quote left open', "memory read -c 4 'counter"],
  ];
  for (const [name, line] of cases) {
    it(name, () => {
      expect(lldbRawRefusal(line, 'read'), line).toBeDefined();
    });
  }

  it('plain numbers and addresses still pass', () => {
    for (const line of [
      'memory read -c 16 &rec',
      'x/4xw &rec',
      'memory read 0x1000',
      'memory read -c 4 -- $sp',
      "memory read -c 4 -- '&numbers[1]'",
      'memory region $pc',
      'disassemble -s 0x1000 -c 4',
      'disassemble -s $pc -c 1',
      'image lookup -a 0x555555558060',
      'frame variable counter',
    ]) {
      expect(lldbRawRefusal(line, 'read'), line).toBeUndefined();
    }
  });
});

describe('reads stay reads', () => {
  it('comparisons, literals, safe functions, casts and history values pass every checker', () => {
    for (const e of [
      'counter == 1',
      '"a = b" == 0',
      "'='",
      '(int)counter',
      '(char *)greeting',
      '(struct record *)&rec',
      'sizeof(int) + 1',
      '$1 + $$2 + $ + $$',
      '$pc',
      '$_exitcode',
      '1 ? counter : 0',
      '$_strlen("abc")',
      '$_streq(greeting, "x = y++")',
      'counter /* the count */ + 1',
    ]) {
      expect(expressionEffect(e), e).toBeUndefined();
      const v = classifyGdbCommand(`print ${e}`, 'gdb');
      expect(v.allowed ? undefined : v.reason, e).toBeUndefined();
    }
  });
});

// ---- properties ------------------------------------------------------------------------------

const harmfulGdb = fc.constantFrom(
  'counter = 4242',
  'counter += 1',
  'counter <<= 1',
  'counter++',
  '--counter',
  '$rax = 1',
  '($_shell)("id")',
  '(1?$_shell:0)("id")',
  '$("abc")',
  '$$2("abc")',
  '$_shell',
  '$_strlen',
  '$f(1)',
);
const harmfulLldb = fc.constantFrom(
  'counter = 4242',
  'counter -= 1',
  'counter >>= 2',
  'counter--',
  '++counter',
  '$rax = 1',
  'getpid()',
  '((int(*)(const char*))&system)("id")',
  '(*fp)(1)',
);
const harmless = fc.constantFrom('counter', '1', '$1', '$pc', '"a"', "'b'", 'rec.id', 'numbers[1]', '(int)counter');

/** Wrappers around a core: comments (with quotes in them), literals, casts, ?:, history. */
type Wrap = (x: string, h: string) => string;
const wrap = fc.constantFrom<Wrap>(
  (x: string) => `(${x})`,
  (x: string) => `(int)(${x})`,
  (x: string, h: string) => `1 ? ${x} : ${h}`,
  (x: string, h: string) => `${h} ? ${h} : (${x})`,
  (x: string) => `/*'*/ ${x}`,
  (x: string) => `/*"*/ ${x} /*'*/`,
  (x: string, h: string) => `"'" == ${h} || ${x}`,
  (x: string) => `'"' + (${x})`,
  (x: string) => `${x} // "`,
  (x: string) => `$1 + (${x})`,
  (x: string) => `sizeof(int) + (${x})`,
  (x: string, h: string) => `(${h}, ${x})`,
  (x: string) => `"\\"" == "\\\\" && ${x}`,
);

describe('properties', () => {
  it('a harmful core inside any nesting of wrappers is refused by every GDB checker', () => {
    fc.assert(
      fc.property(harmfulGdb, fc.array(fc.tuple(wrap, harmless), { minLength: 1, maxLength: 4 }), (core, layers) => {
        const e = layers.reduce<string>((acc, [w, h]) => w(acc, h), core);
        for (const why of gdbRefusals(e)) expect(why, e).toBeDefined();
      }),
      { numRuns: 300 },
    );
  });

  it('a harmful core inside any nesting of wrappers is refused by the LLDB checks', () => {
    fc.assert(
      fc.property(harmfulLldb, fc.array(fc.tuple(wrap, harmless), { minLength: 1, maxLength: 4 }), (core, layers) => {
        const e = layers.reduce<string>((acc, [w, h]) => w(acc, h), core);
        expect(lldbRefuses(e), e).toBe(true);
        expect(lldbRawRefusal(`memory read -c 4 -- '${e.replaceAll("'", '')}'`, 'read'), e).toBeDefined();
      }),
      { numRuns: 300 },
    );
  });

  it('harmless cores inside the same wrappers stay allowed', () => {
    fc.assert(
      fc.property(harmless, fc.array(fc.tuple(wrap, harmless), { minLength: 1, maxLength: 4 }), (core, layers) => {
        const e = layers.reduce<string>((acc, [w, h]) => w(acc, h), core);
        // The comment wrappers hold quotes, which GDB's reading takes as literals left open.
        fc.pre(!/\/\*/.test(e) && !/\/\//.test(e));
        expect(expressionEffect(e), e).toBeUndefined();
        expect(lldbRefuses(e), e).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
