// dbg_sessions and dbg_close end to end: what is open and where each program is, closing that
// leaves no process behind and can be repeated, and the notice of sessions closed for idleness.
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/server/config.js';
import { type CreatedServer, createServer } from '../../src/server/createServer.js';
import { SessionManager } from '../../src/session/sessionManager.js';
import { setLogLevel } from '../../src/util/log.js';
import { startServer } from '../helpers/mcp.js';
import { WAIT_MS } from '../helpers/outcomes.js';
import { fixture, fixturesDir } from '../helpers/paths.js';
import { alive } from '../helpers/procfs.js';

/** Resolves once `pid` is gone (a killed child may take a moment to be reaped by init). */
async function gone(pid: number): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (alive(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} is still alive`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('dbg_sessions and dbg_close', () => {
  it('lists every session with its state, last stop and pids, and closing kills them', async () => {
    const h = await startServer();
    const empty = await h.call('dbg_sessions', {});
    expect(empty.data).toEqual({ sessions: [] });
    expect(empty.text).toContain('no sessions open');

    const a = await h.call('dbg_start', { program: fixture('echo_args'), args: ['x y'], stop: 'main' });
    const b = await h.call('dbg_start', { program: fixture('spin'), timeout_ms: 300, on_timeout: 'return' });
    const list = await h.call('dbg_sessions', {});
    expect(list.isError).toBe(false);
    const byId = new Map(list.data.sessions.map((s: { id: string }) => [s.id, s]));
    const sa = byId.get(a.data.session_id) as Record<string, any>;
    const sb = byId.get(b.data.session_id) as Record<string, any>;
    expect(sa).toMatchObject({
      backend: 'gdb',
      program: fixture('echo_args'),
      args: ['x y'],
      state: 'stopped',
      stop_id: 1,
    });
    expect(sa.summary).toMatch(/^stop 1: breakpoint 1 hit in main at .*echo_args\.c:\d+$/);
    expect(sb).toMatchObject({ program: fixture('spin'), state: 'running', stop_id: 0, summary: 'running' });
    for (const s of [sa, sb]) {
      expect(s.pids).toHaveLength(1);
      expect(alive(s.pids[0])).toBe(true);
      expect(alive(s.debugger_pid)).toBe(true);
      expect(s.age_s).toBeGreaterThanOrEqual(0);
      expect(s.idle_s).toBeGreaterThanOrEqual(0);
    }
    expect(list.text).toContain(`${b.data.session_id} gdb running ${fixture('spin')} pid ${sb.pids[0]}`);

    // A running program is killed too, and so is its debugger.
    const closed = await h.call('dbg_close', { session_id: b.data.session_id });
    expect(closed.data).toMatchObject({ closed: true, pids: sb.pids });
    expect(closed.text).toMatch(
      new RegExp(`killed pid ${sb.pids[0]}; the debugger \\(pid ${sb.debugger_pid}\\) has stopped`),
    );
    await gone(sb.pids[0]);
    await gone(sb.debugger_pid);

    const again = await h.call('dbg_close', { session_id: b.data.session_id });
    expect(again.isError).toBe(false);
    expect(again.data).toMatchObject({ closed: false });
    expect(again.data.note).toMatch(/no session .* is open/);
    const unknown = await h.call('dbg_close', { session_id: 'deadbeef' });
    expect(unknown.data.closed).toBe(false);
    const bad = await h.call('dbg_close', { session_id: 'nope' });
    expect(bad).toMatchObject({ isError: true, code: 'invalid_argument' });

    const after = await h.call('dbg_sessions', {});
    expect(after.data.sessions.map((s: { id: string }) => s.id)).toEqual([a.data.session_id]);
    const closedA = await h.call('dbg_close', { session_id: a.data.session_id });
    expect(closedA.data.closed).toBe(true);
    await gone(sa.pids[0]);
    await gone(sa.debugger_pid);
    // A closed session is gone for the other tools too.
    const io = await h.call('dbg_io', { session_id: a.data.session_id, action: 'read' });
    expect(io).toMatchObject({ isError: true, code: 'no_session' });
  });

  it('says so when the program has exited and nothing was left to kill', async () => {
    const h = await startServer();
    const r = await h.call('dbg_start', { program: fixture('exitcode'), args: ['3'] });
    expect(r.data.outcome.kind).toBe('exited');
    const list = await h.call('dbg_sessions', {});
    expect(list.data.sessions[0]).toMatchObject({ state: 'exited', pids: [] });
    expect(list.data.sessions[0].summary).toMatch(/exited with code/);
    const closed = await h.call('dbg_close', { session_id: r.data.session_id });
    expect(closed.data).toEqual({ closed: true, note: expect.stringMatching(/no program was running/) });
  });
});

describe('sessions closed for idleness', () => {
  let created: CreatedServer | undefined;
  afterEach(async () => {
    await created?.shutdown();
    created = undefined;
  });

  it('are listed as notices, and closing one again explains what happened', async () => {
    setLogLevel('warn'); // this server runs in the test process: keep its call log off the output
    const config = { ...defaultConfig(), roots: [fixturesDir], idleTimeoutMs: 60_000 };
    const sessions = new SessionManager({ idleTimeoutMs: 60_000 });
    created = createServer(config, sessions);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await created.server.connect(serverSide);
    const client = new Client({ name: 'dbg-mcp-test', version: '1' });
    await client.connect(clientSide);
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })).structuredContent as Record<string, any>;

    const started = await call('dbg_start', { program: fixture('hello'), stop: 'main' });
    const id = started['session_id'] as string;
    const debuggerPid = sessions.get(id).backend.info.pid as number;
    // Pretend two idle minutes have passed.
    await sessions.reapIdle(Date.now() + 120_000);
    await gone(debuggerPid);

    const list = await call('dbg_sessions', {});
    expect(list['sessions']).toEqual([]);
    expect(list['reaped']).toEqual([
      { id, program: fixture('hello'), idle_s: expect.any(Number), at: expect.any(String) },
    ]);
    expect(list['reaped'][0].idle_s).toBeGreaterThanOrEqual(120);
    const text = await client.callTool({ name: 'dbg_sessions', arguments: {} });
    expect((text.content as { text: string }[])[0]?.text).toMatch(
      new RegExp(`closed for idleness: ${id} \\(.*hello\\) after 2 idle minutes`),
    );
    const closed = await call('dbg_close', { session_id: id });
    expect(closed).toMatchObject({ closed: false, note: expect.stringMatching(/already closed after 2 idle minutes/) });
    const io = await client.callTool({ name: 'dbg_io', arguments: { session_id: id, action: 'read' } });
    expect(io.isError).toBe(true);
    expect((io.structuredContent as Record<string, any>)['error'].message).toMatch(/closed after 2 idle minutes/);
    await client.close();
  });
});
