// Forks: which side a session follows, several processes in one session, and a crash in a
// child reported with the child's pid.
import { describe, expect, it } from 'vitest';
import { gatherView, type ThreadsViewData } from '../../../src/session/evidence.js';
import type { Session } from '../../../src/session/session.js';
import { lineOf } from '../../helpers/markers.js';
import { expectExited, expectStopped, insertBreakpoint, WAIT_MS, waitForOutput } from '../../helpers/outcomes.js';
import { loadedWithForks } from '../../helpers/sessions.js';

async function forkcrash(mode: 'parent' | 'child' | 'both'): Promise<Session> {
  return loadedWithForks('forkcrash', mode);
}

describe('forks', () => {
  it('both: parent and child are one session; the crash names the child', async () => {
    const session = await forkcrash('both');
    const { stop } = expectStopped(await session.run({ action: 'run', startMode: 'none', timeoutMs: WAIT_MS }));
    expect(stop.signal?.name).toBe('SIGSEGV');
    expect(stop.frame).toMatchObject({ function: 'child_work', line: lineOf('forkcrash.c', '@child-crash') });
    const pids = [...session.snapshot.inferiors.values()];
    expect(pids).toHaveLength(2);
    const [parent, child] = pids as [number, number];
    expect(stop.pid).toBe(child);
    expect(child).not.toBe(parent);
    const threads = await session.query(['stopped'], 'threads', (b) =>
      gatherView(b, session.snapshot, { view: 'threads' }),
    );
    const view = threads.data as ThreadsViewData;
    expect(view.threads.map((t) => t.pid).sort()).toEqual([parent, child].sort());
    // The parent stopped with it, somewhere in main (forking or already waiting).
    const parentStack = view.threads.find((t) => t.pid === parent)?.stack ?? [];
    expect(parentStack.some((e) => 'function' in e && e.function === 'main')).toBe(true);
  });

  it('child: the session follows the child into its crash', async () => {
    const session = await forkcrash('child');
    const { stop } = expectStopped(await session.run({ action: 'run', startMode: 'none', timeoutMs: WAIT_MS }));
    expect(stop.signal?.name).toBe('SIGSEGV');
    expect(stop.frame?.function).toBe('child_work');
    const [child] = [...session.snapshot.inferiors.values()];
    expect(stop.pid).toBe(child);
    // The parent was let go: it waits for a child that the debugger holds.
    expect(session.snapshot.inferiors.size).toBe(1);
  });

  it('parent (the default): the child runs free and its crash is only its exit status', async () => {
    const session = await forkcrash('parent');
    const exit = expectExited(await session.run({ action: 'run', startMode: 'none', timeoutMs: WAIT_MS }));
    expect(exit.code).toBe(0);
    const out = await waitForOutput(session, 'ended with status');
    expect(out).toMatch(/child \d+ ended with status 139\b|status 11\b/);
  });

  it('catch fork stops at the fork with the new pid', async () => {
    const session = await forkcrash('both');
    await insertBreakpoint(session, { kind: 'catchpoint', event: 'fork' });
    const { stop } = expectStopped(await session.run({ action: 'run', startMode: 'none', timeoutMs: WAIT_MS }));
    expect(stop.reason).toBe('fork');
    expect(stop.newPid).toBeGreaterThan(0);
  });
});
