// Joining the gdb a person is using: a real gdb 13 on a terminal, typed into as a person would
// (`!dbg-mcp share`, then the new-ui line it prints), and the built server joining it over MCP.
// Each test ends by checking that the person's own `bt` and `continue` still work.

import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/server/config.js';
import type { ToolContext } from '../../src/server/defineTool.js';
import { closeTool } from '../../src/server/tools/close.js';
import { sessionsTool } from '../../src/server/tools/sessions.js';
import { startTool } from '../../src/server/tools/start.js';
import { SessionManager } from '../../src/session/sessionManager.js';
import { startServer } from '../helpers/mcp.js';
import { privateDir, startNetworkServer } from '../helpers/networkServer.js';
import { fixture, fixturesDir, repoRoot } from '../helpers/paths.js';
import { Person } from '../helpers/person.js';
import { alive } from '../helpers/procfs.js';

const DIST = join(repoRoot, 'dist', 'dbg-mcp.js');
const dirs: string[] = [];
const people: Person[] = [];
const sharePids: number[] = [];

// The person's gdb goes first; then every share process must end by itself (none is left
// behind), and only then do the registry directories go (a live share may still write there).
afterEach(async () => {
  for (const p of people.splice(0)) p.close();
  const pids = sharePids.splice(0);
  for (let i = 0; i < 2400 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 25));
  expect(pids.filter(alive), 'share processes left behind by a gdb that is gone').toEqual([]);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 10 });
});

/** A person at gdb, with `xdg` as their home and (unless told otherwise) runtime directory. */
function gdbPerson(args: string[], xdg: string, runtime = true): Person {
  const env: Record<string, string> = runtime ? { HOME: xdg, XDG_RUNTIME_DIR: xdg } : { HOME: xdg };
  const person = new Person('gdb', ['-q', '-nx', ...args], env);
  people.push(person);
  return person;
}

/** The person shares their gdb as they would: `!dbg-mcp share`, then the new-ui line it prints. */
async function shareGdb(person: Person, control = false): Promise<string> {
  person.type(`!${process.execPath} ${DIST} share${control ? ' --allow-control' : ''}`);
  const ready = await person.expect(/(gdb-\d+) is ready[\s\S]*?new-ui mi3 (\/dev\/pts\/\d+)/);
  const id = ready[1] as string;
  sharePids.push(Number(id.slice('gdb-'.length)));
  await person.expect(/\(gdb\) /);
  person.type(`new-ui mi3 ${ready[2]}`);
  await person.expect(/New UI allocated/);
  await person.expect(/this gdb is shared as gdb-\d+/);
  return id;
}

/** A runtime directory of this test's own (the share registry lives under it), 0700 like the real one. */
function runtimeDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dbg-join-'));
  chmodSync(dir, 0o700);
  dirs.push(dir);
  return dir;
}

/** A person whose gdb stopped `crash segv` at its SIGSEGV, and shared it; the share's id. */
async function sharedCrash(xdg: string, control = false): Promise<{ person: Person; id: string }> {
  const person = gdbPerson(['--args', fixture('crash'), 'segv'], xdg);
  await person.expect(/\(gdb\) /);
  await person.run('run', /Program received signal SIGSEGV[\s\S]*\(gdb\) /);
  return { person, id: await shareGdb(person, control) };
}

/** The person's own commands still work: a backtrace at the crash, then continuing to the end. */
async function personCarriesOn(person: Person): Promise<void> {
  await person.run('bt', /#0 .*store \(p=0x0, value=12\) at .*crash\.c:13[\s\S]*\(gdb\) /);
  await person.run('continue', /Program terminated with signal SIGSEGV/);
}

describe('joining a shared gdb', () => {
  it('lists the share, joins it at the crash, refuses calls, writes and running, and leaves it as it was', async () => {
    const xdg = runtimeDir();
    const { person, id } = await sharedCrash(xdg);
    const server = await startServer([], { XDG_RUNTIME_DIR: xdg });

    const listed = await server.call('dbg_sessions', {});
    const share = listed.data.shares?.find((s: { id: string }) => s.id === id);
    expect(share, listed.text).toMatchObject({
      debugger: 'gdb',
      access: 'read',
      state: 'stopped',
      program: fixture('crash'),
    });

    const joined = await server.call('dbg_start', { join: id });
    expect(joined.isError, joined.text).toBe(false);
    expect(joined.data.target).toMatchObject({ kind: 'joined', share: id, access: 'read' });
    expect(joined.text).toMatch(/'s gdb .*shared for reading only/);
    expect(joined.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGSEGV' });
    const crash = joined.data.views?.crash;
    expect(crash?.hint).toMatch(/NULL pointer dereference in store/);
    expect(crash?.locals?.[1]).toMatchObject({ function: 'update', variables: [{ name: 'doubled', value: '12' }] });
    expect(crash?.instruction?.instruction).toMatch(/mov/);
    await person.expect(/an agent joined this gdb \(reading only\)/);
    const session = joined.data.session_id as string;

    const call = await server.call('dbg_evaluate', {
      session_id: session,
      expressions: ['divide(10, 2)', 'value'],
      frame: 0,
    });
    expect(call.data.results[0].error).toMatch(/calls a function/);
    expect(call.data.results[1].value).toBe('12');
    const write = await server.call('dbg_evaluate', { session_id: session, expressions: ['value = 3'] });
    expect(write.data.results[0].error).toMatch(/would change/);
    const go = await server.call('dbg_run', { session_id: session, action: 'continue' });
    expect(go.isError).toBe(true);
    expect(go.text).toMatch(/reading only.*dbg-mcp share --allow-control --id gdb-/);
    const bp = await server.call('dbg_breakpoints', { session_id: session, action: 'set', location: 'update' });
    expect(bp.isError).toBe(true);
    expect(bp.text).toMatch(/dbg-mcp share --allow-control --id gdb-/);
    const poke = await server.call('dbg_memory', {
      session_id: session,
      action: 'write',
      address: '&value',
      bytes: '00',
    });
    expect(poke.isError).toBe(true);
    const shell = await server.call('dbg_evaluate', { session_id: session, expressions: ['$_shell("true")'] });
    expect(shell.data.results[0].error).toMatch(
      /\$_shell.*is not one of GDB's (read-only|reading) convenience functions/,
    );
    const raw = await server.call('dbg_command', { session_id: session, command: 'print value' });
    expect(raw.isError).toBe(true);
    const viaCli = await server.call('dbg_command', { session_id: session, command: 'output $_shell("true")' });
    expect(viaCli.text).toMatch(/\$_shell\(…\)` is not one of GDB's read-only convenience functions/);
    const info = await server.call('dbg_command', { session_id: session, command: 'info frame' });
    expect(info.data.output).toMatch(/Stack level 0/);

    const closed = await server.call('dbg_close', { session_id: session });
    expect(closed.data.note).toMatch(/as they were/);
    await person.expect(/the agent left this gdb/);
    // Nothing of the agent's is left in the person's session: settings, history, selection.
    await person.run('show may-call-functions', /Permission to call functions in the program is on/);
    await person.run('show may-write-memory', /Permission to write into target memory is on/);
    await person.run('show values', /\(gdb\) /);
    expect(person.recent).not.toMatch(/\$\d+ = /);
    await personCarriesOn(person);
  });

  it('a server killed while joined leaves the gdb usable, and the share takes the next agent', async () => {
    const xdg = runtimeDir();
    const { person, id } = await sharedCrash(xdg);
    const server = await startServer([], { XDG_RUNTIME_DIR: xdg });
    const joined = await server.call('dbg_start', { join: id });
    expect(joined.isError, joined.text).toBe(false);
    await person.expect(/an agent joined/);
    const pid = server.transport.pid as number;
    process.kill(pid, 'SIGKILL');
    await person.expect(/the agent left this gdb/);
    expect(alive(pid)).toBe(false);

    const again = await startServer([], { XDG_RUNTIME_DIR: xdg });
    const second = await again.call('dbg_start', { join: id });
    expect(second.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGSEGV' });
    await again.call('dbg_close', { session_id: second.data.session_id });
    await personCarriesOn(person);
  });

  it('with --allow-control the agent runs the program; the person ends the share and the session is dead with why', async () => {
    const xdg = runtimeDir();
    const person = gdbPerson([fixture('loop')], xdg);
    await person.expect(/\(gdb\) /);
    await person.run('break square', /Breakpoint 1 at/);
    await person.run('run', /Breakpoint 1, square \(v=0\)[\s\S]*\(gdb\) /);
    const id = await shareGdb(person, true);

    const server = await startServer([], { XDG_RUNTIME_DIR: xdg });
    const joined = await server.call('dbg_start', { join: id });
    expect(joined.data.target?.access).toBe('control');
    expect(joined.data.outcome).toMatchObject({ kind: 'stopped', reason: 'breakpoint-hit' });
    const session = joined.data.session_id as string;
    const next = await server.call('dbg_run', { session_id: session, action: 'continue' });
    expect(next.data.outcome).toMatchObject({ kind: 'stopped', reason: 'breakpoint-hit' });
    expect(next.text).toMatch(/square \(v=1\)/);
    // Control is to go on, not to start their program again.
    const again = await server.call('dbg_run', { session_id: session, action: 'run' });
    expect(again).toMatchObject({ isError: true, code: 'wrong_state' });
    expect(again.text).toMatch(/cannot run: this is a person's own debugger session/);
    // The person's breakpoint is theirs: the agent may not delete it.
    const del = await server.call('dbg_breakpoints', { session_id: session, action: 'delete', numbers: ['1'] });
    expect(del.isError).toBe(true);
    expect(del.text).toMatch(/is .*'s, not this session's/);
    // The person saw the program move, in their own terminal.
    await person.expect(/Breakpoint 1, square \(v=1\)/);

    person.type(`!${process.execPath} ${DIST} share --stop ${id}`);
    await person.expect(new RegExp(`${id} ended`));
    // It says "ended" just before it exits: a moment later it is gone (bounded; only a hang fails).
    const sharePid = Number(id.slice('gdb-'.length));
    for (let i = 0; i < 2400 && alive(sharePid); i++) await new Promise((r) => setTimeout(r, 25));
    expect(alive(sharePid), 'the share process after --stop').toBe(false);
    const after = await server.call('dbg_sessions', {});
    const mine = after.data.sessions.find((s: { id: string }) => s.id === session);
    expect(mine).toMatchObject({ joined: 'control', target: { kind: 'joined' } });
    expect(mine.state).toBe('dead');
    expect(mine.summary).toMatch(/the person ended the share/);
    await person.run('bt', /#0 +square \(v=1\) at .*loop\.c:7[\s\S]*\(gdb\) /);
    await person.run('delete 1', /\(gdb\) /);
    await person.run('continue', /total 30[\s\S]*exited normally/);
  });

  it('passes over stale entries, other users\u2019 files and files others may read, saying why', async () => {
    const xdg = runtimeDir();
    const dir = join(xdg, 'dbg-mcp', 'shares');
    const { person, id } = await sharedCrash(xdg);
    const record = (pid: number) =>
      JSON.stringify({
        format: 'dbg-mcp-share/1',
        debugger: 'gdb',
        sharePid: pid,
        tty: '/dev/pts/99',
        socket: join(dir, `gdb-${pid}.sock`),
        access: 'control',
        state: 'stopped',
        joined: false,
        startedAt: new Date().toISOString(),
      });
    // A share process that is gone: pid 2^22 - 1 is never a live process here.
    writeFileSync(join(dir, 'gdb-4194303.json'), record(4194303), { mode: 0o600 });
    writeFileSync(join(dir, 'gdb-4194302.json'), record(4194302), { mode: 0o600 });
    chownSync(join(dir, 'gdb-4194302.json'), 65534, 65534);
    writeFileSync(join(dir, 'gdb-4194301.json'), record(4194301), { mode: 0o644 });
    chmodSync(join(dir, 'gdb-4194301.json'), 0o644);

    const server = await startServer([], { XDG_RUNTIME_DIR: xdg });
    const listed = await server.call('dbg_sessions', {});
    expect(listed.data.shares.map((s: { id: string }) => s.id)).toEqual([id]);
    const why = (n: number) =>
      listed.data.shares_ignored.find((i: { file: string }) => i.file.endsWith(`gdb-${n}.json`))?.why;
    expect(why(4194303)).toMatch(/stale: its share process 4194303 is gone/);
    expect(why(4194302)).toMatch(/belongs to uid 65534/);
    expect(why(4194301)).toMatch(/mode 0644/);
    const refused = await server.call('dbg_start', { join: 'gdb-4194302' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/belongs to uid 65534/);
    await personCarriesOn(person);
  });

  it('only clients named in --join-clients (and stdio) see or join shares', async () => {
    const xdg = runtimeDir();
    const { person, id } = await sharedCrash(xdg);
    process.env.XDG_RUNTIME_DIR = xdg;
    const sessions = new SessionManager({ idleTimeoutMs: 0 });
    const ctx = (client: string, joinClients: string[]) => ({
      client,
      sessions,
      config: { ...defaultConfig(), joinClients },
      signal: new AbortController().signal,
      progress: () => {},
    });
    try {
      const hidden = await sessionsTool.run({}, ctx('loopback', []));
      expect(hidden.data.shares).toBeUndefined();
      await expect(startTool.run({ join: id }, ctx('alice', ['bob']))).rejects.toThrow(/client "alice" may not join/);
      const seen = await sessionsTool.run({}, ctx('bob', ['bob']));
      expect(seen.data.shares?.map((s) => s['id'])).toEqual([id]);
      const viaStdio = await sessionsTool.run({}, ctx('stdio', []));
      expect(viaStdio.data.shares?.map((s) => s['id'])).toEqual([id]);
    } finally {
      await sessions.closeAll();
      delete process.env.XDG_RUNTIME_DIR;
    }
    await personCarriesOn(person);
  });

  it('over HTTP and the unix socket, only the clients --join-clients names see or join shares', async () => {
    const xdg = runtimeDir();
    // The network server's environment is PATH and HOME: the share is registered under HOME.
    const person = gdbPerson(['--args', fixture('crash'), 'segv'], xdg, false);
    await person.expect(/\(gdb\) /);
    await person.run('run', /Program received signal SIGSEGV[\s\S]*\(gdb\) /);
    const id = await shareGdb(person);
    const tokens = join(privateDir(), 'tokens');
    writeFileSync(tokens, 'alice:alice-0123456789abcdef0123456789\nbob:bob-0123456789abcdef0123456789ab\n', {
      mode: 0o600,
    });
    const home = process.env.HOME;
    process.env.HOME = xdg;
    const server = await startNetworkServer([
      '--http',
      '127.0.0.1:0',
      '--unix',
      join(privateDir(), 'dbg.sock'),
      '--token-file',
      tokens,
      '--join-clients',
      'bob',
    ]).finally(() => {
      process.env.HOME = home;
    });
    const alice = await server.connect({ token: 'alice-0123456789abcdef0123456789' });
    const local = await server.connect({ viaSocket: true });
    const bob = await server.connect({ token: 'bob-0123456789abcdef0123456789ab' });
    for (const [name, client] of [
      ['alice', alice],
      ['local', local],
    ] as const) {
      const listed = await client.call('dbg_sessions', {});
      expect(listed.data.shares, name).toBeUndefined();
      expect(listed.text, name).not.toMatch(/gdb-\d+/);
      const refused = await client.call('dbg_start', { join: id });
      expect(refused.isError, name).toBe(true);
      expect(refused.text).toMatch(new RegExp(`client "${name}" may not join shared debuggers on this server`));
    }
    const seen = await bob.call('dbg_sessions', {});
    expect(seen.data.shares?.map((s: { id: string }) => s.id)).toEqual([id]);
    const joined = await bob.call('dbg_start', { join: id });
    expect(joined.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGSEGV' });
    await person.expect(/an agent joined this gdb/);
    await bob.call('dbg_close', { session_id: joined.data.session_id });
    await person.expect(/the agent left this gdb/);
    await personCarriesOn(person);
  });

  it('join takes a share id (gdb-N, lldb-N) to the shares and any other id to the handoffs; a joined session is not handed on', async () => {
    const xdg = runtimeDir();
    const { person, id } = await sharedCrash(xdg);
    process.env.XDG_RUNTIME_DIR = xdg;
    const sessions = new SessionManager({ idleTimeoutMs: 0 });
    const config = { ...defaultConfig(), roots: [fixturesDir], joinClients: ['alice', 'bob'] };
    const ctx = (client: string): ToolContext => ({
      client,
      sessions,
      config,
      signal: new AbortController().signal,
      progress: () => {},
    });
    try {
      // A share id that names no share: the share path's answer, not the handoff's.
      await expect(startTool.run({ join: 'gdb-4194303' }, ctx('bob'))).rejects.toThrow(
        new RegExp(`no share "gdb-4194303" on this machine \\(shared now: ${id}\\)`),
      );
      await expect(startTool.run({ join: 'lldb-4194303' }, ctx('bob'))).rejects.toThrow(/no share "lldb-4194303"/);
      // Any other id is a session handed over: alice offers hers, bob takes it.
      const mine = await startTool.run({ program: fixture('crash'), stop: 'no-run' }, ctx('alice'));
      const handed = mine.data.session_id;
      await closeTool.run({ session_id: handed, handoff_to: 'bob' }, ctx('alice'));
      const taken = await startTool.run({ join: handed }, ctx('bob'));
      expect(taken.text).toMatch(new RegExp(`took session ${handed}, handed to you`));
      expect(sessions.list('bob').map((s) => s.id)).toEqual([handed]);

      // A person's session joined by alice stays alice's: bob joins the share himself.
      const joined = await startTool.run({ join: id }, ctx('alice'));
      const session = joined.data.session_id;
      await person.expect(/an agent joined this gdb/);
      await expect(closeTool.run({ session_id: session, handoff_to: 'bob' }, ctx('alice'))).rejects.toThrow(
        /handoff_to: session .* is a person's shared gdb, joined by you: it is not handed on/,
      );
      expect(sessions.offeredTo('bob')).toEqual([]);
      await closeTool.run({ session_id: session }, ctx('alice'));
      await person.expect(/the agent left this gdb/);
      const bobs = await startTool.run({ join: id }, ctx('bob'));
      expect(bobs.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGSEGV' });
      await person.expect(/an agent joined this gdb/);
    } finally {
      await sessions.closeAll();
      delete process.env.XDG_RUNTIME_DIR;
    }
    await personCarriesOn(person);
  });

  it('joins a program that runs, and sees the stop the person makes', async () => {
    const xdg = runtimeDir();
    const person = gdbPerson([fixture('spin')], xdg);
    await person.expect(/\(gdb\) /);
    const id = await shareGdb(person);
    const server = await startServer([], { XDG_RUNTIME_DIR: xdg });
    const before = await server.call('dbg_sessions', {});
    expect(before.data.shares?.[0]).toMatchObject({ id, state: 'none' });

    await person.run('run', /spinning/);
    const joined = await server.call('dbg_start', { join: id });
    expect(joined.isError, joined.text).toBe(false);
    expect(joined.text).toMatch(/their program is running/);
    const session = joined.data.session_id as string;
    const waiting = server.call('dbg_run', { session_id: session, action: 'wait', timeout_ms: 20_000 });
    const refused = await server.call('dbg_run', { session_id: session, action: 'interrupt' });
    expect(refused.isError).toBe(true);
    person.press('\x03');
    const waited = await waiting;
    expect(waited.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGINT' });
    expect(waited.text).toMatch(/spin/);
    await person.expect(/\(gdb\) /);

    // The refusal said what to type; the person types it, and the agent may run the program.
    const refusedRun = await server.call('dbg_run', { session_id: session, action: 'continue' });
    const typed = /dbg-mcp share --allow-control --id gdb-\d+/.exec(refusedRun.text)?.[0];
    expect(typed, refusedRun.text).toBe(`dbg-mcp share --allow-control --id ${id}`);
    await person.run(`!${process.execPath} ${DIST} share --allow-control --id ${id}`, /now allows reading and running/);
    await person.expect(/the agent may now run your program/);
    const ran = await server.call('dbg_run', { session_id: session, action: 'continue', timeout_ms: 1000 });
    expect(ran.data.outcome).toMatchObject({ kind: 'running' });
    // The shared channel does not read while the program runs: the share sends SIGINT to it.
    const stopped = await server.call('dbg_run', { session_id: session, action: 'interrupt' });
    expect(stopped.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGINT' });
    await server.call('dbg_close', { session_id: session });
    await person.run('bt', /#0 .*spin \(\) at .*spin\.c:\d+[\s\S]*\(gdb\) /);
  });

  it("the person's gdb exiting ends the session with why, and the share process with it", async () => {
    const xdg = runtimeDir();
    const { person, id } = await sharedCrash(xdg);
    const server = await startServer([], { XDG_RUNTIME_DIR: xdg });
    const joined = await server.call('dbg_start', { join: id });
    const session = joined.data.session_id as string;
    person.type('kill');
    await person.run('y', /\(gdb\) /);
    person.type('quit');
    for (let i = 0; i < 400 && !person.exited; i++) await new Promise((r) => setTimeout(r, 25));
    expect(person.exited).toBe(true);
    const sharePid = Number(id.slice('gdb-'.length));
    let summary = '';
    for (let i = 0; i < 400; i++) {
      const mine = (await server.call('dbg_sessions', {})).data.sessions.find((s: { id: string }) => s.id === session);
      summary = mine.summary;
      if (mine.state === 'dead' && !alive(sharePid)) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(summary).toMatch(/gdb (exited|closed the shared terminal)/);
    expect(alive(sharePid)).toBe(false);
  });

  it('a share whose gdb quits before the new-ui line is typed ends with it, its files gone', async () => {
    const xdg = runtimeDir();
    const person = gdbPerson([fixture('crash')], xdg);
    await person.expect(/\(gdb\) /);
    person.type(`!${process.execPath} ${DIST} share`);
    const ready = await person.expect(/(gdb-\d+) is ready/);
    const id = ready[1] as string;
    const sharePid = Number(id.slice('gdb-'.length));
    sharePids.push(sharePid);
    const server = await startServer([], { XDG_RUNTIME_DIR: xdg });
    const waiting = await server.call('dbg_sessions', {});
    expect(waiting.data.shares?.[0]).toMatchObject({ id, state: 'waiting' });
    const early = await server.call('dbg_start', { join: id });
    expect(early.isError).toBe(true);
    expect(early.text).toMatch(/has not typed the new-ui line/);

    await person.expect(/\(gdb\) /);
    person.type('quit');
    for (let i = 0; i < 400 && !person.exited; i++) await new Promise((r) => setTimeout(r, 25));
    expect(person.exited).toBe(true);
    // The share checks on the person's gdb every 2 s; this only waits for that (bounded: a hang fails).
    for (let i = 0; i < 800 && alive(sharePid); i++) await new Promise((r) => setTimeout(r, 25));
    expect(alive(sharePid), 'the share process once its gdb is gone').toBe(false);
    const after = await server.call('dbg_sessions', {});
    expect(after.data.shares).toBeUndefined();
    expect(after.data.shares_ignored).toBeUndefined();
  });
});
