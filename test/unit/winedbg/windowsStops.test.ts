// How a stop is read in Windows terms, against a stand-in for the GDB backend that answers what GDB
// 13 answered through winedbg's proxy (recorded): the break-in thread of an interrupt or attach,
// the exception code from the trace, the access and address inferred from the instruction or the
// stack pointer, the second chance, and a trace line that does not fit the signal.
import { describe, expect, it } from 'vitest';
import type { GdbBackend } from '../../../src/backends/gdb/gdbBackend.js';
import { WindowsStops } from '../../../src/backends/winedbg/windowsStops.js';
import { WinedbgTrace } from '../../../src/backends/winedbg/winedbgTrace.js';
import type { Frame, StopEvent, Thread } from '../../../src/model/model.js';

interface Scene {
  /** Frames by GDB thread id. */
  stacks: Record<number, Frame[]>;
  threads: Thread[];
  /** What `x/i $pc` printed, or the error it gave. */
  instruction: string | Error;
  /** Values of expressions, as GDB prints them. */
  values: Record<string, string>;
}

function fakeGdb(scene: Scene): { gdb: GdbBackend; selected: string[]; state: { stopThread: number } } {
  const selected: string[] = [];
  const state = { stopThread: 0 };
  const gdb = {
    state,
    context: {
      mi: {
        send: async (op: string, args: string[]) => {
          selected.push(`${op} ${args.join(' ')}`);
          return { class: 'done', results: {}, console: '', log: '' };
        },
      },
    },
    stack: async (o: { threadId?: number; from?: number; to?: number }) =>
      (scene.stacks[o.threadId ?? 0] ?? []).slice(o.from ?? 0, (o.to ?? 100) + 1),
    threads: async () => ({ threads: scene.threads }),
    cliText: async () => {
      if (scene.instruction instanceof Error) throw scene.instruction;
      return { console: scene.instruction };
    },
    evaluate: async (expression: string) => {
      const inner = /^\(unsigned long long\)\((.*)\)$/.exec(expression)?.[1] ?? expression;
      const v = scene.values[inner];
      if (v === undefined) throw new Error(`No symbol "${inner}" in current context.`);
      return v;
    },
  };
  return { gdb: gdb as unknown as GdbBackend, selected, state };
}

const ntdll = '/p/dosdevices/c:/windows/system32/ntdll.dll';
const breakIn: Frame[] = [
  { level: 0, function: 'DbgBreakPoint', library: ntdll, address: '0x1700555f5' },
  { level: 1, function: 'DbgUiRemoteBreakin', file: 'dlls/ntdll/process.c', line: 539 },
];
const spin: Frame = { level: 0, function: 'spin', file: 'hang.c', line: 7, address: '0x140001594' };

function traced(trace: WinedbgTrace, code: number): void {
  trace.push(
    `02c4:trace:winedbg:handle_debug_event 000002c8:000002cc: exception code=0x${code.toString(16).padStart(8, '0')}\n`,
  );
}

describe('the break-in thread', () => {
  const scene = (): Scene => ({
    stacks: { 3: breakIn, 2: [spin] },
    threads: [
      { id: 2, state: 'stopped', frame: spin },
      { id: 3, state: 'stopped', frame: breakIn[0] },
    ],
    instruction: '',
    values: {},
  });

  it('an interrupt is reported on the main thread as SIGINT, and that thread is selected', async () => {
    const { gdb, selected, state } = fakeGdb(scene());
    const stops = new WindowsStops(gdb, () => new WinedbgTrace());
    stops.mainThread = 2;
    const stop: StopEvent = {
      reason: 'signal-received',
      signal: { name: 'SIGTRAP', meaning: 'Trace/breakpoint trap' },
      threadId: 3,
      frame: breakIn[0],
    };
    await stops.probe(stop);
    expect(stop).toMatchObject({ threadId: 2, frame: spin, signal: { name: 'SIGINT' } });
    expect(stop.exception).toBeUndefined();
    expect(selected).toEqual(['thread-select 2']);
    expect(state.stopThread).toBe(2);
    expect(stops.breakIns.has(3)).toBe(true);
  });

  it('an attach (no signal) is where the process was: no signal, the lowest thread of the program', async () => {
    const { gdb } = fakeGdb(scene());
    const stops = new WindowsStops(gdb, () => new WinedbgTrace());
    stops.attaching = true;
    const stop: StopEvent = { reason: 'unknown', threadId: 3, frame: breakIn[0] };
    await stops.probe(stop);
    expect(stop.signal).toBeUndefined();
    expect(stop.threadId).toBe(2);
  });

  it("the program's own DebugBreak() is not a break-in: it stays a SIGTRAP with its exception", async () => {
    const own: Frame[] = [breakIn[0] as Frame, { level: 1, function: 'main', file: 'debugbreak.c', line: 13 }];
    const { gdb } = fakeGdb({ ...scene(), stacks: { 2: own } });
    const trace = new WinedbgTrace();
    const stops = new WindowsStops(gdb, () => trace);
    traced(trace, 0x80000003);
    const stop: StopEvent = {
      reason: 'signal-received',
      signal: { name: 'SIGTRAP', meaning: 'Trace/breakpoint trap' },
      threadId: 2,
      frame: own[0],
    };
    await stops.probe(stop);
    expect(stop.threadId).toBe(2);
    expect(stop.exception?.name).toBe('EXCEPTION_BREAKPOINT');
  });
});

describe('exceptions', () => {
  const store: Frame = { level: 0, function: 'store', file: 'access.c', line: 12, address: '0x140001596' };
  const segv = (): StopEvent => ({
    reason: 'signal-received',
    signal: { name: 'SIGSEGV', meaning: 'Segmentation fault' },
    threadId: 2,
    frame: store,
  });

  it('an access violation: the code from the trace, write of 0x0 inferred from mov %edx,(%rax)', async () => {
    const { gdb } = fakeGdb({
      stacks: { 2: [store] },
      threads: [],
      instruction: '=> 0x140001596 <store+18>:\tmov    %edx,(%rax)\n',
      values: { $rax: '0' },
    });
    const trace = new WinedbgTrace();
    const stops = new WindowsStops(gdb, () => trace);
    traced(trace, 0xc0000005);
    const stop = segv();
    await stops.probe(stop);
    expect(stop.exception).toEqual({
      code: 0xc0000005,
      name: 'EXCEPTION_ACCESS_VIOLATION',
      meaning: expect.stringMatching(/NULL, dangling or wild pointer/),
      access: 'write',
      address: '0x0',
      inferredFrom: 'the faulting instruction `mov %edx,(%rax)`',
    });
    expect(stop.faultAddress).toBe('0x0');
    expect(stop.signal?.meaning).toBe('EXCEPTION_ACCESS_VIOLATION 0xc0000005: write (inferred)');

    // Continuing: the same exception at the same pc is its second chance.
    traced(trace, 0xc0000005);
    const again = segv();
    await stops.probe(again);
    expect(again.exception?.secondChance).toBe(true);
  });

  it('an unreadable pc is an execute fault at the pc', async () => {
    const { gdb } = fakeGdb({
      stacks: { 2: [] },
      threads: [],
      instruction: new Error('Cannot access memory at address 0x20'),
      values: { $pc: '0x20' },
    });
    const trace = new WinedbgTrace();
    traced(trace, 0xc0000005);
    const stop = { ...segv(), frame: { level: 0, function: '??', address: '0x20' } };
    await new WindowsStops(gdb, () => trace).probe(stop);
    expect(stop.exception).toMatchObject({ access: 'execute', address: '0x20' });
    expect(stop.exception?.inferredFrom).toMatch(/program counter/);
  });

  it('a stack overflow at a call: a write just below the stack pointer (recorded: rsp 0x21fe0)', async () => {
    const { gdb } = fakeGdb({
      stacks: { 2: [] },
      threads: [],
      instruction: '=> 0x1400015b0 <descend+44>:\tcall   0x140007c68 <memset>\n',
      values: { $sp: '(void *) 0x21fe0' },
    });
    const trace = new WinedbgTrace();
    traced(trace, 0xc00000fd);
    const stop = segv();
    await new WindowsStops(gdb, () => trace).probe(stop);
    expect(stop.exception).toMatchObject({
      name: 'EXCEPTION_STACK_OVERFLOW',
      access: 'write',
      address: '0x21fd8',
      inferredFrom: 'the stack pointer',
    });
    expect(stop.faultAddress).toBe('0x21fd8');
  });

  it('a divide by zero names the exception and infers no address', async () => {
    const { gdb } = fakeGdb({ stacks: { 2: [] }, threads: [], instruction: 'idivl  0x18(%rbp)', values: {} });
    const trace = new WinedbgTrace();
    traced(trace, 0xc0000094);
    const stop: StopEvent = { reason: 'signal-received', signal: { name: 'SIGFPE', meaning: 'Arithmetic exception' } };
    await new WindowsStops(gdb, () => trace).probe(stop);
    expect(stop.exception).toMatchObject({ name: 'EXCEPTION_INT_DIVIDE_BY_ZERO' });
    expect(stop.exception?.access).toBeUndefined();
    expect(stop.faultAddress).toBeUndefined();
  });

  it('a traced code the signal could not have come from is not believed', async () => {
    const { gdb } = fakeGdb({ stacks: { 2: [] }, threads: [], instruction: '', values: {} });
    const trace = new WinedbgTrace();
    traced(trace, 0xc0000094); // a divide by zero cannot be a SIGSEGV
    const stop = segv();
    await new WindowsStops(gdb, () => trace).probe(stop);
    expect(stop.exception).toBeUndefined();
    expect(stop.signal?.meaning).toBe('Segmentation fault');
  });

  it('an exception seen before the last stop does not name this one', async () => {
    const { gdb } = fakeGdb({ stacks: { 2: [] }, threads: [], instruction: '', values: {} });
    const trace = new WinedbgTrace();
    const stops = new WindowsStops(gdb, () => trace);
    traced(trace, 0xc0000005);
    await stops.probe({ reason: 'breakpoint-hit', breakpoint: '1' });
    const stop = segv();
    // No new trace line: the wait for one ends at its deadline (2 s) with nothing.
    await stops.probe(stop);
    expect(stop.exception).toBeUndefined();
  });
});
