// The in-process harness (helpers/inProcess.ts) is a faithful stand-in for the spawned server in
// the tool tests converted to it: the same answer to the same call, every session closed at the
// end, and a gdb left behind is reported, not missed.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { startInProcess } from '../helpers/inProcess.js';
import { startServer } from '../helpers/mcp.js';
import { WAIT_MS } from '../helpers/outcomes.js';
import { fixture } from '../helpers/paths.js';
import { alive, killQuietly, until } from '../helpers/procfs.js';

/**
 * An answer with what differs between two servers by design taken out: the session id (random),
 * pids, and stack addresses (the program's stack starts below its environment, and a program of
 * the in-process server inherits the allowlisted variables of the test process, not the spawned
 * server's PATH and HOME alone).
 */
function comparable(r: { text: string; data: unknown; isError: boolean }, sessionId: string) {
  const scrub = (s: string) =>
    s
      .replaceAll(sessionId, '<session>')
      .replace(/\b(pid|LWP|process) \d+/g, '$1 N')
      .replace(/"(pid|debugger_pid)":\d+/g, '"$1":0')
      .replace(/0x7ff[0-9a-f]{9}/g, '0xSTACK');
  return { isError: r.isError, text: scrub(r.text), data: JSON.parse(scrub(JSON.stringify(r.data))) };
}

describe('the in-process harness', () => {
  it('answers a call as the spawned server does', async () => {
    const args = { program: fixture('crash'), args: ['segv'] };
    const inProcess = await (await startInProcess()).call('dbg_start', args);
    const spawned = await (await startServer()).call('dbg_start', args);
    expect(inProcess.data.views.crash.hint).toMatch(/NULL pointer dereference in store/);
    expect(comparable(inProcess, inProcess.data.session_id)).toEqual(comparable(spawned, spawned.data.session_id));
  });

  it('closes every session it was left with: no gdb and no program outlive it', async () => {
    const h = await startInProcess();
    const r = await h.call('dbg_start', { program: fixture('loop'), stop: 'main' });
    const [session] = (await h.call('dbg_sessions', {})).data.sessions as { debugger_pid: number; pids: number[] }[];
    const pids = [session?.debugger_pid ?? -1, ...(session?.pids ?? [])];
    expect(r.data.session_id).toBeDefined();
    expect(pids.every(alive)).toBe(true);
    await h.close();
    expect(pids.filter(alive)).toEqual([]);
  });

  it('reports a gdb it did not end instead of passing', async () => {
    const h = await startInProcess();
    // A gdb of this process that no session owns: what a session leaked would look like.
    // It waits on its stdin, a pipe this test holds, and starts nothing of its own.
    const stray = spawn('gdb', ['-nx', '-q'], { stdio: ['pipe', 'ignore', 'ignore'] });
    try {
      await until(() => alive(stray.pid ?? -1), 'the stray gdb to start', WAIT_MS);
      await expect(h.close()).rejects.toThrow(new RegExp(`left behind: gdb ${stray.pid} gdb`));
    } finally {
      killQuietly(stray.pid ?? -1);
    }
  });
});
