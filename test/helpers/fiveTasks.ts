// The five tasks agents bring (PRODUCT.md), each diagnosed from one dbg_start answer: a NULL
// dereference, an assert, a deadlock, a crash triggered by input, an infinite loop. Shared by the
// stdio test (fiveTasks.test.ts) and the HTTP and unix socket ones (networkTasks.test.ts).
import { expect } from 'vitest';
import { lineOf } from './markers.js';
import type { CallResult } from './mcp.js';
import { fixture } from './paths.js';

/**
 * When the hang is read: both threads must hold one lock and wait for the other by then, ~100 ms
 * unloaded (the fixture sleeps 100 ms between its locks) and seconds on a loaded 2-core VM.
 */
export const DEADLOCK_DEADLINE_MS = 3000;

/** Every task's dbg_start, checked; returns the text size of each answer. */
export async function diagnoseFiveTasks(
  call: (name: string, args: Record<string, unknown>) => Promise<CallResult>,
): Promise<number[]> {
  const sizes: number[] = [];
  const start = async (args: Record<string, unknown>) => {
    const r = await call('dbg_start', args);
    expect(r.isError, r.text).toBe(false);
    sizes.push(r.text.length);
    return r;
  };

  const nullDeref = await start({ program: fixture('crash'), args: ['segv'] });
  expect(nullDeref.text).toMatch(/hint: NULL pointer dereference in store at crash\.c:13/);

  const assertion = await start({ program: fixture('crash'), args: ['assert'] });
  expect(assertion.text).toMatch(/hint: abort: .*Assertion `count == 0 && "count must be zero"' failed/);

  const deadlock = await start({ program: fixture('deadlock'), timeout_ms: DEADLOCK_DEADLINE_MS });
  const threads = deadlock.data.views.threads;
  expect(threads.hint).toMatch(/deadlock/);
  // Each blocked thread shows the line of its own code that waits. (The cycle, which needs
  // glibc's debug info, is fiveTasks.test.ts's.)
  expect(deadlock.text).toMatch(new RegExp(`transfer .*deadlock\\.c:${lineOf('deadlock.c', '@transfer-waits')}`));
  expect(deadlock.text).toMatch(new RegExp(`audit .*deadlock\\.c:${lineOf('deadlock.c', '@audit-waits')}`));
  const owners = threads.threads.filter((t: { waiting?: string }) => /held by thread/.test(t.waiting ?? ''));
  if (owners.length > 0) {
    // With glibc's debug info the circle is named, each thread by its own function.
    expect(threads.hint).toMatch(/thread \d \(transfer\) waits for thread \d \(mutex (ledger|accounts)/);
    expect(threads.hint).toMatch(/thread \d \(audit\) waits for thread \d \(mutex (ledger|accounts)/);
  }

  const stdinCrash = await start({ program: fixture('stdin_echo'), stdin: 'one\ncrash\n' });
  expect(stdinCrash.text).toMatch(/hint: NULL pointer dereference in main at stdin_echo\.c:12/);
  expect(stdinCrash.text).toContain('line = "crash\\n"');

  const loop = await start({ program: fixture('spin'), timeout_ms: 1500 });
  expect(loop.text).toMatch(/it is spinning/);
  expect(loop.text).toMatch(/spin \(\) at spin\.c:8/);
  return sizes;
}
