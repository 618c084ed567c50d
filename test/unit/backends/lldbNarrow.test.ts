// lldb-dap's words into the model, on inputs recorded from lldb-dap 22.1.8 (docs/notes/lldb-dap.md
// and the integration tests): frame names in our custom frame format, stop descriptions, siginfo,
// hit counts, disassembly.
import { describe, expect, it } from 'vitest';
import {
  narrowFrame,
  narrowInstructions,
  parseBreakpointSet,
  parseFrameName,
  parseHitCounts,
  parseSiginfo,
  parseStopDescription,
  parseSymbolSummary,
  splitArguments,
  tidyValue,
} from '../../../src/backends/lldb/lldbNarrow.js';

const US = '\x1f';

describe('frame names (customFrameFormat)', () => {
  it('a C function: its name and arguments, pointers shortened as GDB writes them', () => {
    expect(parseFrameName(`store${US}store(p=0x0000000000000000, value=12)`)).toEqual({
      function: 'store',
      args: [
        { name: 'p', value: '0x0' },
        { name: 'value', value: '12' },
      ],
    });
  });

  it('strings, nested parentheses and braces stay inside one argument', () => {
    expect(
      parseFrameName(
        `__libc_start_call_main${US}__libc_start_call_main(main=(deadlock\`main at deadlock.c:29:16), argc=1, argv=0x00007fffffffe708)`,
      ).args,
    ).toEqual([
      { name: 'main', value: '(deadlock`main at deadlock.c:29:16)' },
      { name: 'argc', value: '1' },
      { name: 'argv', value: '0x7fffffffe708' },
    ]);
    expect(splitArguments('s="a, b)", c={1, 2}, q=\'"\'')).toEqual([
      { name: 's', value: '"a, b)"' },
      { name: 'c', value: '{1, 2}' },
      { name: 'q', value: "'\"'" },
    ]);
  });

  it('a C++ function: the plain name carries the parameter types, the full one the shorter name', () => {
    expect(parseFrameName(`::parse(const std::string &)${US}parse(text="")`)).toEqual({
      function: 'parse',
      args: [{ name: 'text', value: '""' }],
    });
    expect(parseFrameName(`S::operator()(int)${US}S::operator()(this=0x0000555555558010, x=3)`).function).toBe(
      'S::operator()',
    );
  });

  it('no arguments: main without parameters, a function without debug info, no symbol at all', () => {
    expect(parseFrameName(`main${US}main`)).toEqual({ function: 'main' });
    expect(parseFrameName(`__cxa_throw${US}__cxa_throw`)).toEqual({ function: '__cxa_throw' });
    expect(parseFrameName(US)).toEqual({});
  });

  it('an argument list that does not parse leaves the arguments out rather than guessing', () => {
    expect(parseFrameName(`f${US}f(=1)`)).toEqual({ function: 'f' });
  });

  it('narrowFrame: an absolute source is the file, a relative one gets ./, a made-up one is no source', () => {
    const modules = new Map([['m1', '/lib/x86_64-linux-gnu/libc.so.6']]);
    const user = narrowFrame(
      {
        id: 1,
        name: `store${US}store(p=0x0000000000000000, value=12)`,
        line: 13,
        column: 8,
        instructionPointerReference: '0x55555555519B',
        source: { name: 'crash.c', path: '/src/crash.c' },
      },
      0,
      modules,
    );
    expect(user).toMatchObject({ level: 0, function: 'store', file: 'crash.c', fullname: '/src/crash.c', line: 13 });
    expect(user.address).toBe('0x55555555519b');
    const libc = narrowFrame(
      {
        id: 2,
        name: `__futex_abstimed_wait_common64${US}__futex_abstimed_wait_common64(op=265)`,
        line: 57,
        column: 12,
        moduleId: 'm1',
        source: { name: 'futex-internal.c', path: 'nptl/futex-internal.c' },
      },
      1,
      modules,
    );
    expect(libc).toMatchObject({
      file: './nptl/futex-internal.c',
      line: 57,
      library: '/lib/x86_64-linux-gnu/libc.so.6',
    });
    expect(libc.fullname).toBeUndefined();
    const asm = narrowFrame(
      {
        id: 3,
        name: `_start${US}_start`,
        line: 12,
        column: 0,
        source: { name: 'crash`_start', path: '/b/crash`_start', sourceReference: 7 },
      },
      2,
      modules,
    );
    expect(asm.line).toBeUndefined();
    expect(asm.file).toBeUndefined();
    expect(asm.args).toEqual([]);
  });
});

describe('stops', () => {
  it('a live SIGSEGV: the signal, what the kernel said, and the fault address', () => {
    expect(parseStopDescription('signal SIGSEGV: address not mapped to object (fault address=0x0)')).toEqual({
      signal: { name: 'SIGSEGV', meaning: 'Segmentation fault (address not mapped to object)' },
      faultAddress: '0x0',
    });
  });

  it("a core's first stop has no `signal ` prefix; an abort, none of the rest", () => {
    expect(parseStopDescription('SIGSEGV: address not mapped to object (fault address=0x10)').faultAddress).toBe(
      '0x10',
    );
    expect(parseStopDescription('signal SIGABRT')).toEqual({ signal: { name: 'SIGABRT', meaning: 'Aborted' } });
    expect(parseStopDescription('signal SIGFPE: integer divide by zero').signal?.meaning).toBe(
      'Arithmetic exception (integer divide by zero)',
    );
    expect(parseStopDescription('C++ Throw')).toEqual({});
    expect(parseStopDescription(undefined)).toEqual({});
  });

  it('thread siginfo: si_signo, si_code and the _sigfault address', () => {
    const text = `thread #1: tid = 22278, … stop reason = signal SIGSEGV
(__lldb_siginfo_t) __lldb_siginfo = {
  si_signo = 11
  si_errno = 0
  si_code = 1
  _sifields = {
    _kill = (si_pid = 0, si_uid = 0)
    _sigfault = {
      si_addr = 0x0000000000000000
      si_addr_lsb = 0
    }
  }
}`;
    expect(parseSiginfo(text)).toEqual({ signo: 11, code: 1, address: '0x0' });
    expect(parseSiginfo('si_signo = 6\n  si_code = -6\n')).toEqual({ signo: 6, code: -6 });
  });
});

describe('breakpoint list, breakpoint set, image lookup', () => {
  it('hit counts from each breakpoint line, or from its locations when disabled', () => {
    const text = `Current breakpoints:
3: file = '/w/throw.cpp', line = 18, exact_match = 0, locations = 1, resolved = 1, hit count = 2
  Names:
    dap

  3.1: where = throw\`main + 428 at throw.cpp:18:41, address = 0x00005555555564fc, resolved, hit count = 2

4: file = '/w/throw.cpp', line = 22, exact_match = 0, locations = 1 Options: ignore: 2 disabled one-shot
Condition: argc > 5

  4.1: where = throw\`main + 212 at throw.cpp:22:14, address = 0x0000555555556424, unresolved, hit count = 1
`;
    expect(parseHitCounts(text)).toEqual(
      new Map([
        ['3', 2],
        ['4', 1],
      ]),
    );
  });

  it('the number `breakpoint set` made, and whether it is pending', () => {
    expect(
      parseBreakpointSet('Breakpoint 1: where = hello`main + 8 at hello.c:10:7, address = 0x000055555555515b\n'),
    ).toEqual({ number: '1', pending: false });
    expect(parseBreakpointSet('Breakpoint 5: no locations (pending).\nWARNING:  Unable to resolve')).toEqual({
      number: '5',
      pending: true,
    });
    expect(parseBreakpointSet('error: invalid')).toBeUndefined();
  });

  it('the symbol an address lies in', () => {
    expect(
      parseSymbolSummary(
        '      Address: deadlock[0x4060] (deadlock.PT_LOAD[3]..data + 0)\n      Summary: deadlock`ledger\n',
      ),
    ).toBe('ledger');
    expect(parseSymbolSummary('      Summary: rec\n')).toBe('rec');
    expect(parseSymbolSummary('Summary: libc.so.6`__libc_start_call_main + 122 at libc_start_call_main.h:74:3')).toBe(
      '__libc_start_call_main',
    );
  });
});

describe('values and instructions', () => {
  it('16-digit hex values are shortened; other values are left alone', () => {
    expect(tidyValue('0x00007ffff7fbeff8 "EDGE1234"')).toBe('0x7ffff7fbeff8 "EDGE1234"');
    expect(tidyValue('0x0000000000000000')).toBe('0x0');
    expect(tidyValue('12')).toBe('12');
  });

  it('instructions: columns joined, and the source line carried to the instructions after it', () => {
    const list = narrowInstructions([
      {
        address: '0x555555555194',
        instruction: 'movq    -0x8(%rbp), %rax         ',
        instructionBytes: '48 8b 45 f8',
        line: 13,
        location: { name: 'crash.c', path: '/w/crash.c' },
      },
      { address: '0x55555555519B', instruction: 'movl    %edx, (%rax)             ', instructionBytes: '89 10' },
    ]);
    expect(list[1]).toEqual({
      address: '0x55555555519b',
      instruction: 'movl %edx, (%rax)',
      opcodes: '89 10',
      line: 13,
      file: 'crash.c',
      fullname: '/w/crash.c',
    });
  });
});
