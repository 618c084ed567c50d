// What an expression or a raw LLDB command may do, decided before LLDB sees it: the operators
// that write, the calls conditions would make, the read-only allowlist resolved as LLDB resolves
// command names, and printf formats turned into lldb-dap log messages.
import { describe, expect, it } from 'vitest';
import { parseCommand, refusal } from '../../../src/backends/lldb/lldbCommand.js';
import { logMessage } from '../../../src/backends/lldb/lldbLogMessage.js';
import { callsFunction, formattedResult, writesProgram } from '../../../src/backends/lldb/lldbValues.js';

describe('expressions', () => {
  it('assignments, compound assignments, ++ and -- write; comparisons do not', () => {
    for (const e of [
      'x = 1',
      'x+=1',
      'a.b -= 2',
      'p->x <<= 1',
      'y >>= 3',
      'x++',
      '--x',
      '$rax = 0',
      'a |= b',
      'c ^= 1',
    ]) {
      expect(writesProgram(e), e).toBe(true);
    }
    for (const e of [
      'x == 1',
      'x != 1',
      'x <= 1',
      'x >= 1',
      'x < y',
      'a << 2',
      '-x',
      'x - -1',
      's == "a=b"',
      "c == '='",
    ]) {
      expect(writesProgram(e), e).toBe(false);
    }
  });

  it('a name before a parenthesis is a call; casts, sizeof and parentheses are not', () => {
    for (const e of ['f(1)', 'strlen(name)', 'obj.method ()', 'p->fn(x)', 'x + g(2)']) {
      expect(callsFunction(e), e).toBe(true);
    }
    for (const e of ['(int)x', 'sizeof(rec)', '(a + b) * 2', '*(int *)p', 'x == 1', '"f(1)"']) {
      expect(callsFunction(e), e).toBe(false);
    }
  });

  it("LLDB's formatted result: binary without prefix or padding, aggregates as {...}", () => {
    expect(formattedResult('(int) $3 = 0b00000000000000000000000000010100\n')).toBe('10100');
    expect(formattedResult('(int) $4 = -12\n')).toBe('-12');
    expect(formattedResult('(unsigned long long) $5 = 0x00005555555580a0\n')).toBe('0x5555555580a0');
    expect(formattedResult('(record) $6 = {\n  id = 7\n}\n')).toBe('{...}');
    expect(formattedResult('error: nothing')).toBeUndefined();
  });
});

describe('raw commands', () => {
  it('resolves words as LLDB does: exact names and aliases, else a prefix no other name shares', () => {
    expect(parseCommand('fr v counter').words).toEqual(['frame', 'variable']);
    expect(parseCommand('bt 5')).toMatchObject({ words: ['thread', 'backtrace'], alias: 'bt' });
    expect(parseCommand('image lookup -a 0x1').words).toEqual(['target', 'modules', 'lookup']);
    expect(parseCommand('th b').words).toEqual(['thread', 'backtrace']);
    // `p` is an alias (dwim-print), not the prefix of `process` or `platform`.
    expect(parseCommand('p x')).toMatchObject({ words: ['p'], alias: 'p' });
    // `t` is an alias (thread select), `s` another (step): never prefixes.
    expect(parseCommand('s').alias).toBe('s');
    expect(parseCommand('pr').words).toBeUndefined(); // process, protocol-server, print…: ambiguous
  });

  it('read allows inspection commands, with arguments that only read', () => {
    for (const c of [
      'bt',
      'thread backtrace all',
      'frame variable counter',
      'fr v -L rec',
      'register read rip rsp',
      'memory read -c 16 &rec',
      'x/4xw &rec',
      'disassemble -n main',
      'image lookup -a 0x555555558060',
      'image list',
      'breakpoint list',
      'thread siginfo',
      'help frame',
    ]) {
      expect(refusal(c, 'read'), c).toBeUndefined();
    }
  });

  it('read refuses expressions, writes, calls, backticks, output files and object descriptions', () => {
    const cases: [string, RegExp][] = [
      ['expression x = 1', /not an inspection command.*dbg_evaluate/],
      ['p x', /not an inspection command.*dbg_evaluate/],
      ['po obj', /not an inspection command/],
      ['register write rip 0', /register write is not an inspection command/],
      ['memory write 0x1 0', /memory write is not an inspection command/],
      ['memory read `malloc(9)`', /backtick/],
      ['memory read (char *)malloc(9)', /function call/],
      ['frame variable -O obj', /object description/],
      ['memory read --outfile /tmp/x &rec', /output file/],
      ['frame variable --dynamic-type run-target x', /run the target/],
      ['platform shell id', /not an inspection command/],
      ['script print(1)', /not an inspection command/],
      ['settings set target.env-vars A=1', /settings set is not an inspection command/],
    ];
    for (const [c, why] of cases) expect(refusal(c, 'read'), c).toMatch(why);
  });

  it('read refuses every escape to a shell, a script, another command or another target, in every spelling', () => {
    const m = '/tmp/dbg-mcp-never';
    const cases: [string, RegExp][] = [
      [`platform shell touch ${m}`, /^platform is not an inspection command/],
      [`  platform   shell touch ${m}`, /^platform is not/],
      [`pla sh touch ${m}`, /^platform is not/],
      [`shell touch ${m}`, /^shell is not/],
      [`script import os; os.system("touch ${m}")`, /^script is not/],
      [`command alias zz platform shell touch ${m}`, /^command is not an inspection command/],
      [`command regex zz 's/x/platform shell touch ${m}/'`, /^command is not/],
      [`command source ${m}.lldb`, /^command is not/],
      [`command script import ${m}.py`, /^command is not/],
      ['settings set target.env-vars A=1', /^settings set is not/],
      ['sett se target.env-vars A=1', /^settings set is not/],
      ['settings append target.run-args x', /^settings append is not/],
      ['process launch', /^process launch: use dbg_run/],
      ['target create /bin/sh', /^target create: a session debugs one target/],
      ['process attach --pid 1', /^process attach: a session debugs one target/],
      [`expression -- (int)system("touch ${m}")`, /^expression is not.*dbg_evaluate/],
      ['expr reads = 5', /^expression is not.*dbg_evaluate/],
      ['p reads++', /^p is not.*dbg_evaluate/],
      [`call system("touch ${m}")`, /^call is not.*dbg_evaluate/],
      [`po system("touch ${m}")`, /^po is not/],
      ['dwim-print reads = 1', /^dwim-print is not/],
      [`breakpoint command add -o "platform shell touch ${m}" 1`, /^breakpoint command is not/],
      [`target stop-hook add -o "platform shell touch ${m}"`, /^target stop-hook is not/],
      [`type summary add --python-script "import os" int`, /^type summary is not/],
      [`log enable -f ${m} lldb api`, /^log is not/],
      [`plugin load ${m}.so`, /^plugin is not/],
      [`session save ${m}`, /^session is not/],
      ['thread return 0', /^thread return is not/],
      ['thread jump --line 30', /^thread jump is not/],
      ['process signal SIGKILL', /^process signal is not/],
      ['c', /^c is not/],
      ['b main', /^b is not/],
      [`x/s (char *)system("touch ${m}")`, /function call/],
      [`disassemble --start-address (void*)system("touch ${m}")`, /function call/],
      ['memory read -cf(2) &reads', /function call/],
      ['memory read -s 4 -c 1 &numbers[reads=2]', /assignment/],
      ['frame variable -- reads--', /assignment, \+\+ or --/],
      ['memory read -o /tmp/x &reads', /output file/],
      ['memory read --force -c 99999999 0', /--force lifts LLDB's own size limit/],
      ['memory read -br -c 99999999 0', /--force lifts/],
      ['disassemble --force -s 0 -e 0xffffffff', /--force lifts/],
    ];
    for (const [c, why] of cases) expect(refusal(c, 'read'), c).toMatch(why);
  });

  it("read takes an option's name as an option, not as a decrement", () => {
    for (const c of [
      'register read --format x rip',
      'memory region --all',
      'fr v --format x v',
      'memory read --size 4 --count 2 &numbers',
      'memory read --format=x -c 4 &reads',
    ]) {
      expect(refusal(c, 'read'), c).toBeUndefined();
    }
  });

  it('full runs anything but what breaks the session', () => {
    for (const c of [
      'expression x = 1',
      'platform shell id',
      'script print(1)',
      'settings set target.env-vars A=1',
      'c',
      'next',
    ]) {
      expect(refusal(c, 'full'), c).toBeUndefined();
    }
    const cases: [string, RegExp][] = [
      ['quit', /quit: would end the debugger/],
      ['q', /q: would end/],
      ['process kill', /process kill: use dbg_run action=kill/],
      ['kill', /kill: use dbg_run action=kill/],
      ['detach', /detach: would end/],
      ['proc det', /process detach/],
      ['run', /dbg_run action=run/],
      ['target create /bin/ls', /one target/],
      ['gdb-remote 1234', /one target/],
      ['lldb-dap send-event stopped', /lldb-dap's own channel/],
      ['script', /interactive interpreter/],
      ['script --language python', /interactive interpreter/],
      ['scripting run', /interactive interpreter/],
    ];
    for (const [c, why] of cases) expect(refusal(c, 'full'), c).toMatch(why);
  });
});

describe('logpoints', () => {
  it('printf conversions become {expression}, %% a percent sign, C escapes stay', () => {
    expect(logMessage('x=%d y=%08lx %s%%\\n', ['x', 'p->y', 'name'])).toBe('x={x} y={p->y} {name}%\\n');
  });

  it('refuses braces, a lone backslash, and arguments that do not match the conversions', () => {
    expect(() => logMessage('{x}', [])).toThrow(/braces/);
    expect(() => logMessage('x=%d', ['a{b}'])).toThrow(/braces/);
    expect(() => logMessage('x\\', [])).toThrow(/lone backslash/);
    expect(() => logMessage('%d %d', ['x'])).toThrow(/%d has no argument/);
    expect(() => logMessage('%d', ['x', 'y'])).toThrow(/1 more than the format prints/);
  });
});
