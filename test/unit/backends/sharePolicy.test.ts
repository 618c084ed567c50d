// What a person's shared debugger lets an agent do: the write check on expressions, the MI lines
// the GDB share lets through, and the raw LLDB commands allowed on a person's LLDB.

import { describe, expect, it } from 'vitest';
import { gdbShareRefusal } from '../../../src/backends/gdbShare/gdbSharePolicy.js';
import { canonicalLldbCommand, lldbShareRefusal } from '../../../src/backends/lldbShare/lldbSharePolicy.js';
import { writingOperator } from '../../../src/backends/shares/expressionEffects.js';
import { type MiInput, parseMiInput } from '../../../src/protocols/mi/miInputParser.js';

function mi(line: string): MiInput {
  const input = parseMiInput(line);
  if (typeof input === 'string') throw new Error(input);
  return input;
}

const read = { access: 'read' as const, own: new Set<string>(), id: 'gdb-7' };
const control = { access: 'control' as const, own: new Set(['4']), id: 'gdb-7' };

describe("issue 22: a joined gdb answers the server's own read policy", () => {
  it('refuses info proc PID and show commands', () => {
    for (const line of [
      '1-interpreter-exec console "info proc 1"',
      '2-interpreter-exec console "info proc mappings 1"',
      '3-interpreter-exec console "show commands"',
      '4-interpreter-exec console "show comm 5"',
    ]) {
      expect(gdbShareRefusal(mi(line), read), line).toBeDefined();
    }
    expect(gdbShareRefusal(mi('5-interpreter-exec console "info proc"'), read)).toBeUndefined();
    expect(gdbShareRefusal(mi('6-interpreter-exec console "show version"'), read)).toBeUndefined();
  });
});

describe('the write check on expressions', () => {
  it('finds assignments, compound assignments, increments and decrements', () => {
    for (const [e, op] of [
      ['value = 3', '='],
      ['a<<=1', '<<='],
      ['x += 2', '+='],
      ['$rax = 0', '='],
      ['i++', '++'],
      ['--n', '--'],
      ['p->x |= 4', '|='],
    ] as const) {
      expect(writingOperator(e), e).toBe(op);
    }
  });

  it('reads comparisons, members and literals as reads', () => {
    for (const e of [
      'a == b',
      'a <= b',
      'a >= b',
      'a != b',
      'p->x',
      'a << 2',
      '"x = y"',
      "'='",
      'arr[i] - 1',
      '-1',
      '*p',
    ]) {
      expect(writingOperator(e), e).toBeUndefined();
    }
  });
});

describe('parsing an MI command line as GDB does', () => {
  it('reads the token, the operation, c-strings with escapes and bare words', () => {
    expect(parseMiInput('12-interpreter-exec --thread 1 console "info symbol \\"x\\"\\n"')).toEqual({
      token: '12',
      operation: 'interpreter-exec',
      args: ['--thread', '1', 'console', 'info symbol "x"\n'],
      raw: '--thread 1 console "info symbol \\"x\\"\\n"',
    });
    expect(parseMiInput('-gdb-version')).toMatchObject({ token: undefined, operation: 'gdb-version', args: [] });
  });

  it('refuses what GDB would not read as one command', () => {
    expect(parseMiInput('print x')).toMatch(/not an MI command/);
    expect(parseMiInput('1-data-evaluate-expression "x')).toMatch(/unterminated/);
    expect(parseMiInput('1-data-evaluate-expression "x"y')).toMatch(/followed by a blank/);
  });
});

describe('the GDB share policy', () => {
  it('lets reads through, the write check included', () => {
    for (const line of [
      '1-stack-list-frames --thread 1',
      '2-data-evaluate-expression --thread 1 --frame 0 $_siginfo',
      '3-data-disassemble --thread 1 --frame 0 -s $pc -e $pc+16 -- 0',
      '4-interpreter-exec --thread 1 --frame 0 console "info symbol 0x401000"',
      '5-interpreter-exec console "info program"',
      '6-break-list',
      '7-data-evaluate-expression "$_streq(name, \\"x\\")"',
      '8-data-evaluate-expression "$_as_string(kind) == \\"$_shell(\\""',
    ]) {
      expect(gdbShareRefusal(mi(line), read), line).toBeUndefined();
    }
    expect(gdbShareRefusal(mi('7-data-evaluate-expression "value = 3"'), read)).toMatch(/"=" would change/);
    expect(gdbShareRefusal(mi('9-data-evaluate-expression "$_shell(\\"id\\")"'), read)).toMatch(
      /\$_shell\(…\)` is not one of GDB's read-only convenience functions/,
    );
    expect(gdbShareRefusal(mi('10-interpreter-exec console "info frame\\nkill"'), read)).toMatch(/one line/);
  });

  it('refuses running the program unless the person allowed control, and says what they type', () => {
    expect(gdbShareRefusal(mi('8-exec-continue'), read)).toMatch(/dbg-mcp share --allow-control --id gdb-7/);
    expect(gdbShareRefusal(mi('8-exec-continue'), control)).toBeUndefined();
    expect(gdbShareRefusal(mi('9-exec-continue --reverse'), control)).toMatch(/backwards/);
    expect(gdbShareRefusal(mi('10-interpreter-exec console "advance 13"'), read)).toMatch(/--allow-control/);
  });

  it('lets the agent change only its own breakpoints', () => {
    expect(gdbShareRefusal(mi('11-break-insert main'), read)).toMatch(/--allow-control/);
    expect(gdbShareRefusal(mi('11-break-insert main'), control)).toBeUndefined();
    expect(gdbShareRefusal(mi('12-break-delete 4'), control)).toBeUndefined();
    expect(gdbShareRefusal(mi('12-break-delete 1 4'), control)).toMatch(/breakpoint 1 is the person's/);
    expect(gdbShareRefusal(mi('13-break-condition 4 "x = 1"'), control)).toMatch(/would change/);
  });

  it('never starts, ends, writes, selects or re-sets anything, whatever the person allowed', () => {
    for (const line of [
      '14-exec-run',
      '15-gdb-exit',
      '16-target-detach',
      '17-data-write-memory-bytes 0x1000 00',
      '18-var-assign var1 3',
      '19-thread-select 2',
      '20-stack-select-frame 1',
      '21-gdb-set may-call-functions on',
      '22-interpreter-exec mi "-exec-run"',
      '23-interpreter-exec console "print value"',
      '24-interpreter-exec console "frame 2"',
      '25-interpreter-exec console "set var value = 3"',
      '26-interpreter-exec console "list"',
      '27-exec-jump 13',
      '28-data-evaluate-expression "$_shell(\\"id\\")"',
      '29-interpreter-exec console "output $_shell(\\"id\\")"',
      '30-interpreter-exec console "info frame\\nkill"',
      '31-data-evaluate-expression "$mine (1)"',
      '32-break-condition 4 "$_shell(\\"id\\") == 0"',
    ]) {
      expect(gdbShareRefusal(mi(line), control), line).toBeDefined();
    }
  });
});

describe("the raw commands allowed on a person's LLDB", () => {
  it('allows reading commands with plain arguments', () => {
    for (const c of [
      'bt',
      'bt 5',
      'thread backtrace -c 3 all',
      'frame variable -s -T rec',
      'v p->x',
      'register read -f x rip rsp',
      'memory read --size 1 --count 16 0x7fffffffe540',
      'x -c 4 0x1000',
      'disassemble --pc --count 4',
      'di -n main',
      'breakpoint list',
      'image lookup -a 0x555555558010',
      'target modules list',
      'process status',
      'target list',
    ]) {
      expect(lldbShareRefusal(c), c).toBeUndefined();
    }
  });

  it('refuses what runs code, moves the person, or ends their server', () => {
    const refusals: [string, RegExp][] = [
      ['expr 1', /not one of the reading commands/],
      ['p value', /not one of the reading commands/],
      ['memory read `$sp`', /backticks/],
      ['memory read $sp', /addresses must be numbers/],
      ['disassemble -s main', /needs a number/],
      ['frame variable -O obj', /-O is not allowed/],
      ['frame select 1', /not one of/],
      ['up', /not one of/],
      ['process continue', /not one of/],
      ['protocol-server stop MCP', /not one of/],
      ['script print(1)', /not one of/],
      ['settings set use-color false', /not one of/],
      ['b main', /not one of/],
      ['thread list 2', /takes no arguments/],
    ];
    for (const [c, why] of refusals) expect(lldbShareRefusal(c), c).toMatch(why);
  });

  it("sends what it allows in LLDB's full words, which a person's aliases cannot redefine", () => {
    for (const [typed, sent] of [
      ['bt', 'thread backtrace'],
      ['bt 5', 'thread backtrace -c 5'],
      ['bt all', 'thread backtrace all'],
      ['bt -c 3', 'thread backtrace -c 3'],
      ['thread backtrace 2', 'thread backtrace 2'],
      ['v -T rec', 'frame variable -T rec'],
      ['x -c 4 0x1000', 'memory read -c 4 0x1000'],
      ['dis --pc --count 4', 'disassemble --pc --count 4'],
      ['image lookup -a 0x1000', 'target modules lookup -a 0x1000'],
      ['image list', 'target modules list'],
      ['br list 2', 'breakpoint list 2'],
    ] as const) {
      expect(lldbShareRefusal(typed), typed).toBeUndefined();
      expect(canonicalLldbCommand(typed), typed).toBe(sent);
    }
  });
});
