// Attach crosses no ownership (issue 22): another session's program and debugger are the server's
// own processes, refused whatever --attach-pids says; clients over HTTP and the unix socket attach
// only where the operator set --attach-pids; a process the server did not start stays attachable.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { startInProcess } from '../helpers/inProcess.js';
import { startNetworkServer } from '../helpers/networkServer.js';
import { fixture } from '../helpers/paths.js';
import { killQuietly } from '../helpers/procfs.js';

const spawned: number[] = [];
afterEach(() => {
  for (const pid of spawned.splice(0)) killQuietly(pid);
});

/** A process of the test's own, not the server's: sleep, our user's. */
function outsider(): number {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  spawned.push(child.pid as number);
  return child.pid as number;
}

describe('attach and the server’s own processes', { timeout: 120_000 }, () => {
  it("refuses another session's program and debugger, even under --attach-pids any; an outside process attaches", async () => {
    const h = await startInProcess(['--attach-pids', 'any']);
    const a = await h.call('dbg_start', { program: fixture('spin'), stop: 'main' });
    expect(a.isError, a.text).toBe(false);
    const listed = (await h.call('dbg_sessions', {})).data.sessions.find(
      (s: { id: string }) => s.id === a.data.session_id,
    );
    const programPid: number = listed.pids[0];
    const debuggerPid: number = listed.debugger_pid;
    expect(programPid).toBeGreaterThan(1);
    for (const pid of [programPid, debuggerPid]) {
      const r = await h.call('dbg_start', { attach: pid });
      expect(r).toMatchObject({ isError: true, code: 'invalid_argument' });
      expect(r.data.error.message).toMatch(new RegExp(`^pid: ${pid} is one of this server's own processes`));
      expect(r.data.error.details.refusal).toBe('attach_policy');
    }
    // The first session is untouched: still stopped at main.
    const still = await h.call('dbg_inspect', { session_id: a.data.session_id, view: 'stop' });
    expect(still.isError, still.text).toBe(false);
    const other = await h.call('dbg_start', { attach: outsider() });
    expect(other.isError, other.text).toBe(false);
    await h.call('dbg_close', { session_id: other.data.session_id });
  });

  it('over HTTP attaching is off unless the operator set --attach-pids, and the refusal names the flag', async () => {
    const closed = await startNetworkServer(['--http', '127.0.0.1:0']);
    const c = await closed.connect();
    const r = await c.call('dbg_start', { attach: outsider() });
    expect(r).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(r.data.error.message).toMatch(
      /^attach: attaching is off for clients over HTTP and the unix socket unless the operator allows it: start the server with --attach-pids/,
    );
    const open = await startNetworkServer(['--http', '127.0.0.1:0', '--attach-pids', 'own']);
    const d = await open.connect();
    const ok = await d.call('dbg_start', { attach: outsider() });
    expect(ok.isError, JSON.stringify(ok.data)).toBe(false);
    await d.call('dbg_close', { session_id: ok.data.session_id });
  });
});
