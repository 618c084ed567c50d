// LLDB 22.1.8's command output, recorded through its MCP protocol server (colours as the person's
// terminal had them), read into the model. Each input below is what LLDB answered on the crash,
// data, loop and threads fixtures.

import { describe, expect, it } from 'vitest';
import { stripTerminalCodes } from '../../../src/backends/lldbShare/lldbMcpClient.js';
import {
  errorText,
  narrowBacktrace,
  narrowBreakpoints,
  narrowDisassembly,
  narrowExitStatus,
  narrowFrameLine,
  narrowImages,
  narrowMemory,
  narrowRegisters,
  narrowSourceInfo,
  narrowStopCount,
  narrowStopReason,
  narrowTargetList,
  narrowThreadList,
  narrowValue,
  narrowVariables,
} from '../../../src/backends/lldbShare/lldbShareText.js';

const BT = stripTerminalCodes(
  "* thread #1, name = 'crash', stop reason = \u001b[31msignal SIGSEGV: address not mapped to object (fault address=0x0)\u001b[0m\n" +
    '  * frame #0: \u001b[36m0x000055555555519b\u001b[0m crash`store(p=0x0000000000000000, value=12) at \u001b[36mcrash.c\u001b[0m:\u001b[33m13\u001b[0m:\u001b[33m8\u001b[0m\n' +
    '    frame #1: \u001b[36m0x00005555555551c8\u001b[0m crash`update(p=0x0000000000000000, value=6) at \u001b[36mcrash.c\u001b[0m:\u001b[33m18\u001b[0m:\u001b[33m3\u001b[0m\n' +
    '    frame #2: \u001b[36m0x00005555555551ff\u001b[0m crash`process(name="widget") at \u001b[36mcrash.c\u001b[0m:\u001b[33m24\u001b[0m:\u001b[33m3\u001b[0m\n' +
    '    frame #4: \u001b[36m0x00007ffff7dfb24a\u001b[0m libc.so.6`__libc_start_call_main(main=(crash`main at crash.c:31:33), argc=2, argv=0x00007fffffffe6e8) at \u001b[36mlibc_start_call_main.h\u001b[0m:\u001b[33m58\u001b[0m:\u001b[33m16\u001b[0m\n' +
    '    frame #6: \u001b[36m0x00005555555550c1\u001b[0m crash`_start + 33\n',
);

describe("reading LLDB's text", () => {
  it('takes the colours out', () => {
    expect(BT).not.toMatch(/\x1b/);
  });

  it('reads frames: module, function, arguments (nested parentheses and quotes), file and line', () => {
    const frames = narrowBacktrace(BT);
    expect(frames.map((f) => f.level)).toEqual([0, 1, 2, 4, 6]);
    expect(frames[0]).toEqual({
      level: 0,
      address: '0x000055555555519b',
      library: 'crash',
      function: 'store',
      file: 'crash.c',
      line: 13,
      args: [
        { name: 'p', value: '0x0000000000000000' },
        { name: 'value', value: '12' },
      ],
    });
    expect(frames[2]?.args).toEqual([{ name: 'name', value: '"widget"' }]);
    expect(frames[3]).toMatchObject({ library: 'libc.so.6', function: '__libc_start_call_main', line: 58 });
    expect(frames[3]?.args?.[0]).toEqual({ name: 'main', value: '(crash`main at crash.c:31:33)' });
    expect(frames[4]).toEqual({ level: 6, address: '0x00005555555550c1', library: 'crash', function: '_start' });
  });

  it('keeps a frame line it cannot read as an address, not a guess', () => {
    expect(narrowFrameLine('    frame #3: 0x0000000000401000')).toEqual({ level: 3, address: '0x0000000000401000' });
    expect(narrowFrameLine('frame with a customised format')).toBeUndefined();
  });

  it('reads the thread list, the selected thread, each stop reason and the OS thread id', () => {
    const list = narrowThreadList(
      'Process 13909 stopped\n' +
        "  thread #1: tid = 13909, 0x00007ffff7edd8d9 libc.so.6`__clone3 at clone3.S:62, name = 'threads'\n" +
        "* thread #2: tid = 13935, 0x00005555555551a5 threads`worker(arg=0x0000000000000000) at threads.c:9:8, name = 'threads', stop reason = breakpoint 1.1\n",
    );
    expect(list.currentThreadId).toBe(2);
    expect(list.threads.map((t) => [t.id, t.osThreadId, t.name, t.frame?.function])).toEqual([
      [1, 13909, 'threads', '__clone3'],
      [2, 13935, 'threads', 'worker'],
    ]);
    expect(list.reasons.get(2)).toBe('breakpoint 1.1');
    expect(list.reasons.has(1)).toBe(false);
  });

  it('reads stop reasons as the model names them', () => {
    expect(narrowStopReason('signal SIGSEGV: address not mapped to object (fault address=0x0)')).toEqual({
      reason: 'signal-received',
      signal: { name: 'SIGSEGV', meaning: 'Segmentation fault' },
      faultAddress: '0x0',
    });
    expect(narrowStopReason('signal SIGSTOP')).toEqual({
      reason: 'signal-received',
      signal: { name: 'SIGSTOP', meaning: 'Stopped (signal)' },
    });
    expect(narrowStopReason('breakpoint 1.1')).toEqual({ reason: 'breakpoint-hit', breakpoint: '1' });
    expect(narrowStopReason('step over').reason).toBe('end-stepping-range');
    expect(narrowStopReason('step out').reason).toBe('function-finished');
    expect(narrowStopReason('something new')).toEqual({ reason: 'unknown', rawReason: 'something new' });
  });

  it('reads the target list, the stop counter and an exit status', () => {
    expect(
      narrowTargetList(
        'Current targets:\n* target #0: /x/threads ( arch=x86_64-pc-linux-gnu, platform=host, pid=13909, state=stopped )\n',
      ),
    ).toEqual({ program: '/x/threads', pid: 13909, state: 'stopped' });
    expect(narrowTargetList('No targets.\n')).toEqual({ state: 'none' });
    expect(narrowStopCount('{\n  "targets": [\n    {\n      "stopCount": 6\n    }\n  ]\n}')).toBe(6);
    expect(narrowStopCount('not json')).toBeUndefined();
    expect(narrowExitStatus('Process 13909 exited with status = 9 (0x00000009) killed\n')).toEqual({
      pid: 13909,
      code: 9,
    });
  });

  it('reads variables with their scope and type, and an aggregate as one line', () => {
    expect(narrowVariables('ARG: (point *) p = NULL\nARG: (int) value = 12\nLOCAL: (int) doubled = 12\n')).toEqual([
      { name: 'p', type: 'point *', value: 'NULL', isArg: true },
      { name: 'value', type: 'int', value: '12', isArg: true },
      { name: 'doubled', type: 'int', value: '12', isArg: false },
    ]);
    const rec = narrowVariables(
      '(record) rec = {\n  (int) id = 7\n  (double) score = 2.5\n  (char[8]) name = "seven"\n}\n(char *) edge = 0x00007ffff7fbeff8 "EDGE1234"\n',
    );
    expect(rec).toEqual([
      { name: 'rec', type: 'record', value: '{id = 7, score = 2.5, name = "seven"}' },
      { name: 'edge', type: 'char *', value: '0x00007ffff7fbeff8 "EDGE1234"' },
    ]);
  });

  it('reads one value from frame variable and from expression, and an error in plain words', () => {
    expect(narrowValue('(int) value = 12\n')).toBe('12');
    expect(narrowValue('(int) 24\n')).toBe('24');
    expect(narrowValue('(record)  (id = 7, score = 2.5, name = "seven")\n')).toBe(
      '(id = 7, score = 2.5, name = "seven")',
    );
    expect(narrowValue('(const char *) 0x1234 "a = b"\n')).toBe('0x1234 "a = b"');
    expect(
      narrowValue(
        "note: Expression evaluation in pure C not supported. Ran expression as 'ISO C++'.\n(int) 0x00000005\n",
      ),
    ).toBe('0x00000005');
    expect(
      errorText("error: <user expression 0>:1:1: use of undeclared identifier 'nosuch'\n   1 | nosuch\n     | ^\n"),
    ).toBe("use of undeclared identifier 'nosuch'");
  });

  it('reads registers, memory, disassembly, source info, images and breakpoints', () => {
    expect(
      narrowRegisters(
        '     rip = 0x0000555555555183  data`scale + 10 at data.c:22:7\n     rsp = 0x00007fffffffe530\nGeneral Purpose Registers:\n',
      ),
    ).toEqual([
      { number: 0, name: 'rip', value: '0x0000555555555183' },
      { number: 1, name: 'rsp', value: '0x00007fffffffe530' },
    ]);
    expect(narrowMemory('0x555555558010: 0x40 0x20 0xf4 0xf7\n0x555555558014: 0x00 0x5A\n')).toEqual({
      address: '0x555555558010',
      hex: '4020f4f7005a',
    });
    const dis = narrowDisassembly(
      'data`scale:\n    0x555555555179 <+0>:  55           pushq  %rbp\n->  0x555555555183 <+10>: 8b 45 ec     movl   -0x14(%rbp), %eax\n',
      true,
    );
    expect(dis.pc).toBe('0x555555555183');
    expect(dis.instructions[1]).toEqual({
      address: '0x555555555183',
      function: 'scale',
      offset: 10,
      opcodes: '8b 45 ec',
      instruction: 'movl -0x14(%rbp), %eax',
    });
    expect(
      narrowSourceInfo('Lines found in module `crash\n[0x0000555555555194-0x000055555555519d): /work/x/crash.c:13:8\n'),
    ).toBe('/work/x/crash.c');
    expect(
      narrowImages(
        '[  0] /x/crash\n[  1] /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n[  2] [vdso](0x00007ffff7fc8000)\n',
      ),
    ).toEqual([
      { path: '/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2', symbolsLoaded: true, ranges: [] },
      { path: '[vdso]', symbolsLoaded: true, ranges: [] },
    ]);
    const [bp] = narrowBreakpoints(
      "Current breakpoints:\n1: name = 'square', locations = 1, resolved = 1, hit count = 2\n  1.1: where = loop`square + 7 at loop.c:7:7, address = 0x0000555555555140, resolved, hit count = 2 \n",
    );
    expect(bp).toMatchObject({
      number: '1',
      requested: 'square',
      hits: 2,
      enabled: true,
      function: 'square',
      file: 'loop.c',
      line: 7,
      locations: [{ id: '1.1', address: '0x0000555555555140', function: 'square', line: 7 }],
    });
    expect(narrowBreakpoints('No breakpoints currently set.\n')).toEqual([]);
  });
});
