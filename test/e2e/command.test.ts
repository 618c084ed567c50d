// dbg_command end to end: raw CLI output, commands that move the program (forwards and, with
// GDB's process record, backwards) and report the stop, and the commands refused because they
// would break the session.
import { describe, expect, it } from 'vitest';
import { startServer } from '../helpers/mcp.js';
import { fixture } from '../helpers/paths.js';

/** Moving, recording, python and the session-protecting refusals are --raw full's (read refuses them all). */
async function atMain(name: string) {
  const h = await startServer(['--raw', 'full']);
  const r = await h.call('dbg_start', { program: fixture(name), stop: 'main' });
  expect(r.data.outcome?.kind).toBe('stopped');
  return { h, id: r.data.session_id as string };
}

describe('dbg_command', () => {
  it('returns the console output of info frame and info breakpoints', async () => {
    const h = await startServer();
    const r = await h.call('dbg_start', { program: fixture('hello'), breakpoints: [{ location: 'add' }] });
    expect(r.data.outcome).toMatchObject({ kind: 'stopped', frame: { function: 'add' } });
    const id = r.data.session_id;
    const frame = await h.call('dbg_command', { session_id: id, command: 'info frame' });
    expect(frame.isError).toBe(false);
    expect(frame.data.output).toMatch(
      /^Stack level 0, frame at 0x[0-9a-f]+:\n rip = 0x[0-9a-f]+ in add \(hello\.c:\d+\)/,
    );
    expect(frame.data.outcome).toBeUndefined();
    expect(frame.data.session).toMatchObject({ state: 'stopped', stop_id: 1 });
    const caller = await h.call('dbg_command', { session_id: id, command: 'info frame', frame: 1 });
    expect(caller.data.output).toMatch(/^Stack level 1, .* in main \(hello\.c:\d+\)/s);
    const bps = await h.call('dbg_command', { session_id: id, command: 'info breakpoints' });
    expect(bps.data.output).toMatch(/1\s+breakpoint\s+keep\s+y\s+0x[0-9a-f]+ in add at hello\.c:\d+/);
    expect(bps.data.output).toContain('breakpoint already hit 1 time');
    expect(bps.text).toContain('breakpoint already hit 1 time');
  });

  it('waits for the stop of a command that resumes, and for the exit', async () => {
    const { h, id } = await atMain('hello');
    const next = await h.call('dbg_command', { session_id: id, command: 'next' });
    expect(next.data.outcome).toMatchObject({
      kind: 'stopped',
      stop_id: 2,
      reason: 'end-stepping-range',
      frame: { function: 'main', line: 11 },
    });
    expect(next.data.session).toMatchObject({ state: 'stopped', stop_id: 2 });
    expect(next.text).toMatch(/stop 2: stepped to main at .*hello\.c:11/);
    const cont = await h.call('dbg_command', { session_id: id, command: 'continue' });
    expect(cont.data.output).toContain('Continuing.');
    expect(cont.data.outcome).toEqual({ kind: 'exited', exit_code: 0 });
    expect(cont.data.program_output.text).toBe('hello 5\n');
    expect(cont.data.session.state).toBe('exited');
  });

  it('returns running at its deadline when the program does not stop', async () => {
    const { h, id } = await atMain('spin');
    // spin never stops by itself: an answer at all is the deadline's.
    const r = await h.call('dbg_command', { session_id: id, command: 'continue', timeout_ms: 400 });
    expect(r.data.outcome).toEqual({ kind: 'running' });
    expect(r.data.session.state).toBe('running');
    const stopped = await h.call('dbg_run', { session_id: id, action: 'interrupt' });
    expect(stopped.data.outcome.kind).toBe('stopped');
  });

  it('steps backwards with process record', async () => {
    const { h, id } = await atMain('hello');
    const rec = await h.call('dbg_command', { session_id: id, command: 'record full' });
    expect(rec.isError).toBe(false);
    await h.call('dbg_command', { session_id: id, command: 'next' });
    const fwd = await h.call('dbg_command', { session_id: id, command: 'next' });
    expect(fwd.data.outcome.frame.line).toBe(12);
    const back = await h.call('dbg_command', { session_id: id, command: 'reverse-next' });
    expect(back.data.outcome).toMatchObject({ kind: 'stopped', frame: { function: 'main', line: 11 } });
    expect(back.data.session.stop_id).toBe(fwd.data.session.stop_id + 1);
  });

  it('reports a command the debugger rejects as debugger_error', async () => {
    const { h, id } = await atMain('hello');
    const r = await h.call('dbg_command', { session_id: id, command: 'frobnicate now' });
    expect(r).toMatchObject({ isError: true, code: 'debugger_error' });
    expect(r.data.error.message).toMatch(/Undefined command: "frobnicate"/);
    // The session is intact.
    const ok = await h.call('dbg_command', { session_id: id, command: 'python print(6 * 7)' });
    expect(ok.data.output).toBe('42\n');
  });

  it('refuses commands that would break the session, before they reach the debugger', async () => {
    const { h, id } = await atMain('hello');
    const refused = [
      ['quit', /quit: would end the debugger/],
      ['q', /quit/],
      ['exit', /quit/],
      ['detach', /detach: would let the program go on/],
      ['kill', /dbg_run action=kill/],
      ['shell ls', /shell: runs on the debugger's own input and output/],
      ['!ls', /shell/],
      ['pipe info frame | cat', /pipe/],
      ['| info frame | cat', /pipe/],
      ['interpreter-exec mi "-gdb-exit"', /interpreter-exec/],
      ['python', /python: reads more lines/],
      ['  commands 1', /commands: .*dbg_breakpoints/],
      ['define f', /define/],
      ['set pagination on', /set pagination: the server depends on this setting/],
      ['set pag on', /set pagination/],
      ['set confirm on', /set confirm/],
      ['set height 20', /set height/],
      ['set mi-async off', /set mi-async/],
      ['set logging enabled on', /set logging/],
      ['tty /dev/stdout', /tty/],
      ['set inferior-tty /dev/null', /set inferior-tty/],
      ['set may-call-functions on', /--inferior-calls/],
    ] as const;
    for (const [command, why] of refused) {
      const r = await h.call('dbg_command', { session_id: id, command });
      expect(r, command).toMatchObject({ isError: true, code: 'invalid_argument' });
      expect(r.data.error.message, command).toMatch(why);
    }
    const twoLines = await h.call('dbg_command', { session_id: id, command: 'info frame\nquit' });
    expect(twoLines).toMatchObject({ isError: true, code: 'invalid_argument' });
    // None of it reached gdb: the session still answers.
    const still = await h.call('dbg_command', { session_id: id, command: 'show confirm' });
    expect(still.data.output).toMatch(/confirm.* is off/);
  });

  it('is not offered when raw commands are off', async () => {
    const h = await startServer(['--raw', 'off']);
    const { tools } = await h.client.listTools();
    expect(tools.map((t) => t.name)).not.toContain('dbg_command');
    expect(tools.map((t) => t.name)).toContain('dbg_io');
    await expect(
      h.client.callTool({ name: 'dbg_command', arguments: { session_id: '0badc0de', command: 'info frame' } }),
    ).rejects.toThrow(/dbg_command not found/);
  });
});
