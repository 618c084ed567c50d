// A program with several threads, stopped by an interrupt: every thread is listed with a frame.
import { describe, expect, it } from 'vitest';
import { expectStopped, waitForOutput } from '../../helpers/outcomes.js';
import { loaded } from '../../helpers/sessions.js';

describe('threads', () => {
  it('after an interrupt, all four threads are listed, each with a frame and its own stack', async () => {
    const s = await loaded('threads');
    // The workers park in sleep(30) after the barrier; "all started" means all four exist.
    expect((await s.run({ action: 'run', startMode: 'none', timeoutMs: 100 })).kind).toBe('running');
    await waitForOutput(s, 'all started\n');
    const { stop } = expectStopped(await s.interrupt(), 'the interrupt');
    expect(stop.signal?.name).toBe('SIGINT');
    expect(stop.stoppedThreads).toBe('all');

    const { threads, currentThreadId } = await s.query(['stopped'], 'list threads', (b) => b.threads());
    expect(threads).toHaveLength(4);
    expect(threads.map((t) => t.id).sort()).toEqual([1, 2, 3, 4]);
    expect(currentThreadId).toBeDefined();
    for (const t of threads) {
      expect(t.state).toBe('stopped');
      expect(t.targetId).toMatch(/LWP \d+/);
      expect(t.frame?.address).toMatch(/^0x[0-9a-f]+$/);
      expect(t.frame?.function).toBeTruthy();
    }
    expect([...s.snapshot.threads.keys()].sort()).toEqual([1, 2, 3, 4]);

    // Each worker's stack reaches worker(); the main thread's reaches main().
    const outer = await s.query(['stopped'], 'read stacks', async (b) => {
      const found: string[] = [];
      for (const t of threads) {
        const frames = await b.stack({ threadId: t.id });
        found.push(
          frames.some((f) => f.function === 'worker')
            ? 'worker'
            : frames.some((f) => f.function === 'main')
              ? 'main'
              : '?',
        );
      }
      return found.sort();
    });
    expect(outer).toEqual(['main', 'worker', 'worker', 'worker']);
  });
});
