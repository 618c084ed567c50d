// The evidence layer's heuristics on recorded inputs: each test fails when its heuristic is
// removed or changed (a hint's reading, the deadlock cycle, folding, what a thread waits for).
import { describe, expect, it } from 'vitest';
import { glibcRuntime } from '../../../src/backends/runtime/glibcRuntime.js';
import type { Frame, Thread } from '../../../src/model/model.js';
import { crashHint } from '../../../src/session/evidence/crashView.js';
import { foldFrames } from '../../../src/session/evidence/stackEntries.js';
import { describeLockOwners } from '../../../src/session/evidence/threadsView.js';
import type { ThreadEntry } from '../../../src/session/evidence/viewTypes.js';

const where = 'store at crash.c:13';
const hint = (f: Partial<Parameters<typeof crashHint>[0]>): string =>
  crashHint({
    signal: undefined,
    fault: undefined,
    sp: undefined,
    depth: undefined,
    abortMessage: undefined,
    where,
    ...f,
  });

describe('crash hints', () => {
  it('SIGSEGV at 0 is a NULL dereference, at a small address a field of a NULL struct pointer', () => {
    expect(hint({ signal: 'SIGSEGV', fault: 0n })).toBe(`NULL pointer dereference in ${where}`);
    expect(hint({ signal: 'SIGSEGV', fault: 0x18n })).toBe(
      `NULL pointer dereference in ${where}: address 0x18 is 24 bytes past NULL (a field of a NULL struct pointer)`,
    );
  });

  it('a fault next to the stack pointer is a stack overflow (recorded: 8 MiB stack, fault 64 bytes below sp)', () => {
    const sp = 0x7ffd4f3ff010n;
    expect(hint({ signal: 'SIGSEGV', fault: sp - 64n, sp, depth: 1000 })).toBe(
      `stack overflow: the fault at 0x${(sp - 64n).toString(16)} is next to the stack pointer (1000+ frames deep); look for unbounded recursion`,
    );
    // Far from the stack pointer: a wild pointer, not an overflow.
    expect(hint({ signal: 'SIGSEGV', fault: 0x55555555a000n, sp })).toMatch(/^invalid memory access at 0x55555555a000/);
  });

  it('without a fault address, a stack as deep as the probe counts is a stack overflow', () => {
    expect(hint({ signal: 'SIGSEGV', depth: 1000 })).toBe(
      'stack overflow: 1000+ frames deep; look for unbounded recursion',
    );
    expect(hint({ signal: 'SIGSEGV', depth: 999 })).toMatch(/^invalid memory access in/);
  });

  it('SIGBUS, SIGFPE, SIGILL and SIGTRAP each say what they mean', () => {
    expect(hint({ signal: 'SIGBUS', fault: 0x7f0000001001n })).toBe(
      `bus error in ${where}: a misaligned access, or a mapped file that shrank`,
    );
    expect(hint({ signal: 'SIGFPE' })).toBe(
      `arithmetic error in ${where}: integer division by zero (or overflow); check the divisor`,
    );
    expect(hint({ signal: 'SIGILL' })).toMatch(/^illegal instruction in .*corrupted function pointer/);
    expect(hint({ signal: 'SIGTRAP' })).toMatch(/^trap in .*breakpoint instruction/);
  });

  it('SIGABRT quotes the abort message, or says there was none', () => {
    expect(hint({ signal: 'SIGABRT', abortMessage: "crash: crash.c:40: main: Assertion `n > 0' failed." })).toBe(
      "abort: crash: crash.c:40: main: Assertion `n > 0' failed.",
    );
    expect(hint({ signal: 'SIGABRT' })).toBe(`abort() called (in ${where}): no message in the program's output`);
  });
});

describe('abort messages in the output (glibc, libstdc++)', () => {
  it('finds the last assert, terminate, stack-smashing or heap message', () => {
    const find = glibcRuntime.abortMessageInOutput;
    expect(find("starting\ncrash: crash.c:40: main: Assertion `n > 0' failed.\n")).toBe(
      "crash: crash.c:40: main: Assertion `n > 0' failed.",
    );
    expect(find("terminate called after throwing an instance of 'std::runtime_error'\n  what():  bad\n")).toBe(
      "terminate called after throwing an instance of 'std::runtime_error'\n  what():  bad",
    );
    expect(find('*** stack smashing detected ***: terminated\n')).toBe('*** stack smashing detected ***: terminated');
    expect(find('free(): double free detected in tcache 2\n')).toBe('free(): double free detected in tcache 2');
    expect(find('nothing unusual\n')).toBeUndefined();
  });
});

function frame(level: number, fn: string, file?: string, line?: number, library?: string): Frame {
  return {
    level,
    function: fn,
    ...(file ? { file, fullname: `/src/${file}`, line } : {}),
    ...(library ? { library } : {}),
  };
}

describe('folding runtime frames', () => {
  const isUser = (f: Frame): boolean => !glibcRuntime.isSystemFrame(f);
  it('folds runs of two or more runtime frames into one entry naming the library, keeps single ones', () => {
    const frames = [
      frame(0, '__pthread_kill_implementation', undefined, undefined, '/lib/x86_64-linux-gnu/libc.so.6'),
      frame(1, '__pthread_kill_internal', undefined, undefined, '/lib/x86_64-linux-gnu/libc.so.6'),
      frame(2, 'raise', undefined, undefined, '/lib/x86_64-linux-gnu/libc.so.6'),
      frame(3, 'main', 'crash.c', 40),
      frame(4, '__libc_start_call_main', '../sysdeps/nptl/libc_start_call_main.h', 58),
    ];
    expect(foldFrames(frames, isUser)).toEqual([
      {
        folded: 3,
        fromLevel: 0,
        toLevel: 2,
        library: 'libc.so.6',
        functions: ['__pthread_kill_implementation', '__pthread_kill_internal', 'raise'],
      },
      frames[3],
      frames[4],
    ]);
  });

  it('a frame with source under a system path is not the user’s', () => {
    expect(glibcRuntime.isSystemFrame(frame(0, 'memcpy', '../sysdeps/x86_64/multiarch/memmove.S', 300))).toBe(true);
    expect(glibcRuntime.isSystemFrame(frame(0, 'vector', '/usr/include/c++/12/bits/stl_vector.h', 1123))).toBe(true);
    expect(glibcRuntime.isSystemFrame(frame(0, 'store', 'crash.c', 13))).toBe(false);
  });
});

describe('what a thread waits for', () => {
  const wait = (...fns: string[]): string | undefined =>
    glibcRuntime.classifyWait(fns.map((fn, level) => frame(level, fn)));
  it('reads the most specific wait from the innermost frames (recorded from GDB on glibc 2.36)', () => {
    expect(
      wait('__futex_abstimed_wait_common', '__futex_wait_lock_pi', '__lll_lock_wait', '___pthread_mutex_lock'),
    ).toBe('mutex');
    expect(wait('__futex_abstimed_wait_common', '__pthread_clockjoin_ex', 'main')).toBe('join');
    expect(wait('__futex_abstimed_wait_common', '___pthread_cond_wait', 'worker')).toBe('condition variable');
    expect(wait('clock_nanosleep', '__nanosleep', 'sleep', 'worker')).toBe('sleep');
    expect(wait('__GI___libc_read', '_IO_new_file_underflow', 'getline')).toBe('io (read)');
    expect(wait('spin', 'main')).toBeUndefined();
  });
});

describe('the deadlock cycle', () => {
  const threads: Thread[] = [
    { id: 1, state: 'stopped', osThreadId: 4001 },
    { id: 2, state: 'stopped', osThreadId: 4002 },
    { id: 3, state: 'stopped', osThreadId: 4003 },
  ];
  it('names who holds each awaited mutex and calls a circle of waits a deadlock', () => {
    const entries: ThreadEntry[] = threads.map((t) => ({ ...t, waiting: t.id === 1 ? 'join' : 'mutex' }));
    const waits = new Map([
      [2, { mutex: 'ledger_a (0x4040)', ownerOsThread: 4003 }],
      [3, { mutex: 'ledger_b (0x4080)', ownerOsThread: 4002 }],
    ]);
    const { cycle } = describeLockOwners(entries, waits, threads);
    expect(cycle).toBe(
      'deadlock: thread 2 waits for thread 3 (mutex ledger_a (0x4040)), thread 3 waits for thread 2 (mutex ledger_b (0x4080)). Each holds the lock the next one wants: take them in one order',
    );
    expect(entries[1]?.waiting).toBe('mutex ledger_a (0x4040), held by thread 3');
  });

  it('a wait on a mutex whose owner is not a thread of ours names the OS thread, and is no cycle', () => {
    const entries: ThreadEntry[] = threads.map((t) => ({ ...t }));
    const { cycle } = describeLockOwners(entries, new Map([[2, { mutex: '0x4040', ownerOsThread: 9999 }]]), threads);
    expect(cycle).toBeUndefined();
    expect(entries[1]?.waiting).toBe('mutex 0x4040, held by LWP 9999');
  });
});
