// The threads view's reading of who waits for whom, on stacks recorded from GDB 13 stopped in
// fixtures/c/abba.c: two threads in the same function (move_funds), told apart by the function
// each was started with.
import { describe, expect, it } from 'vitest';
import { isUserFrame } from '../../../src/backends/runtime/glibcRuntime.js';
import type { Frame, Thread } from '../../../src/model/model.js';
import { describeLockOwners, userCallChain } from '../../../src/session/evidence/threadsView.js';
import type { ThreadEntry } from '../../../src/session/evidence.js';

const lockStack = (starter: string): Frame[] => [
  { level: 0, function: 'futex_wait', file: '../sysdeps/nptl/futex-internal.h', line: 146 },
  { level: 1, function: '__GI___lll_lock_wait', file: './nptl/lowlevellock.c', line: 49 },
  { level: 2, function: 'lll_mutex_lock_optimized', file: './nptl/pthread_mutex_lock.c', line: 48 },
  { level: 3, function: '___pthread_mutex_lock', file: './nptl/pthread_mutex_lock.c', line: 128 },
  { level: 4, function: 'move_funds', file: 'abba.c', line: 21 },
  { level: 5, function: starter, file: 'abba.c', line: starter === 'pay_rent' ? 30 : 36 },
  { level: 6, function: 'start_thread', file: './nptl/pthread_create.c', line: 442 },
  { level: 7, function: 'clone3', file: '../sysdeps/unix/sysv/linux/x86_64/clone3.S', line: 81 },
];

describe('userCallChain', () => {
  it('lists the program’s own functions, the start function first', () => {
    expect(userCallChain(lockStack('pay_rent'), isUserFrame)).toBe('pay_rent → move_funds');
    expect(
      userCallChain(
        [
          { level: 0, function: '__GI___libc_write', file: '../sysdeps/unix/sysv/linux/write.c', line: 26 },
          { level: 9, function: 'log_line', file: 'stuck_writer.c', line: 8 },
          { level: 10, function: 'produce_report', file: 'stuck_writer.c', line: 12 },
          { level: 11, function: 'main', file: 'stuck_writer.c', line: 22 },
        ],
        isUserFrame,
      ),
    ).toBe('main → produce_report → log_line');
  });

  it('names a recursive function once, and nothing for a thread with no code of the program', () => {
    const recursion: Frame[] = [2, 3, 4].map((level) => ({ level, function: 'descend', file: 'recurse.c', line: 21 }));
    expect(userCallChain(recursion, isUserFrame)).toBe('descend');
    expect(userCallChain(lockStack('x').slice(0, 4), isUserFrame)).toBeUndefined();
  });
});

describe('describeLockOwners', () => {
  const all: Thread[] = [
    { id: 1, state: 'stopped', osThreadId: 100 },
    { id: 2, state: 'stopped', osThreadId: 101 },
    { id: 3, state: 'stopped', osThreadId: 102 },
  ];
  const entries = (): ThreadEntry[] => all.map((t) => ({ ...t }));
  const waits = new Map([
    [2, { mutex: 'savings+16 (0x5555555580b0)', ownerOsThread: 102 }],
    [3, { mutex: 'checking+16 (0x555555558070)', ownerOsThread: 101 }],
  ]);

  it('names each thread of the circle with its own call chain', () => {
    const chains = new Map([
      [2, userCallChain(lockStack('pay_rent'), isUserFrame) as string],
      [3, userCallChain(lockStack('refund'), isUserFrame) as string],
    ]);
    const list = entries();
    const { cycle } = describeLockOwners(list, waits, all, chains);
    expect(cycle).toBe(
      'deadlock: thread 2 (pay_rent → move_funds) waits for thread 3 (mutex savings+16 (0x5555555580b0)), thread 3 (refund → move_funds) waits for thread 2 (mutex checking+16 (0x555555558070)). Each holds the lock the next one wants: take them in one order',
    );
    expect(list[1]?.waiting).toBe('mutex savings+16 (0x5555555580b0), held by thread 3');
  });

  it('still finds the circle without chains', () => {
    expect(describeLockOwners(entries(), waits, all).cycle).toMatch(/^deadlock: thread 2 waits for thread 3 /);
  });
});
