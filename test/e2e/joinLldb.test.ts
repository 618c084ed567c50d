// Joining the LLDB a person is using: a real LLDB 22 on a terminal, typed into as a person would
// (`protocol-server start MCP listen://localhost:0`), and the built server joining it over MCP,
// always for reading only. The person's statusline is off so their screen reads as plain lines.

import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findOnPath } from '../../src/util/which.js';
import { startServer } from '../helpers/mcp.js';
import { fixture } from '../helpers/paths.js';
import { Person } from '../helpers/person.js';
import { alive } from '../helpers/procfs.js';

const LLDB = findOnPath(['lldb-22', 'lldb-21', 'lldb']);
const homes: string[] = [];

afterEach(() => {
  for (const d of homes.splice(0)) rmSync(d, { recursive: true, force: true });
});

function home(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dbg-join-lldb-'));
  homes.push(dir);
  return dir;
}

/** A person whose LLDB stopped `crash segv` at its SIGSEGV, with the protocol server started. */
async function sharedCrash(dir: string): Promise<Person> {
  const person = new Person(
    LLDB as string,
    ['-x', '-O', 'settings set show-statusline false', '--', fixture('crash'), 'segv'],
    { HOME: dir },
  );
  await person.expect(/Current executable set to/);
  await person.run('run', /stop reason = signal SIGSEGV[\s\S]*\(lldb\) /);
  await person.run(
    'protocol-server start MCP listen://localhost:0',
    /MCP server started with connection listeners: connection:\/\/\[127\.0\.0\.1\]:\d+/,
  );
  return person;
}

/**
 * LLDB 22 aborting on its own heap corruption (glibc's malloc check, inside liblldb): a hazard of
 * its protocol server (docs/THREAT_MODEL.md), seen about once in six runs of the first test on a
 * loaded 2-core VM, at the process's exit after the agent had left; never with the server unused.
 */
const LLDB_HEAP_ABORT =
  /(malloc_consolidate|_int_free|malloc\.c)[\s\S]*liblldb-\d+\.so[\s\S]*LLDB diagnostics will be written/;

/** The person's own commands still work: a backtrace at the crash, then continuing. */
async function personCarriesOn(person: Person, skip: (why: string) => void): Promise<void> {
  await person.run('bt', /frame #0: 0x[0-9a-f]+ crash`store\(p=0x0+, value=12\) at crash\.c:13/);
  // Measured with LLDB 22: continuing delivers the SIGSEGV, and the process ends with it.
  try {
    await person.run('continue', /Process \d+ exited with status = 11/);
  } catch (e) {
    // Said, never passed over: the test is reported skipped with LLDB's own words.
    if (person.exited && LLDB_HEAP_ABORT.test(person.recent)) {
      skip(
        `the person's LLDB aborted on its own heap corruption as their program exited, after the agent had left (LLDB 22's protocol server hazard, docs/THREAT_MODEL.md); every check before passed`,
      );
    }
    throw e;
  }
}

describe.skipIf(LLDB === undefined)('joining a shared LLDB (protocol-server start MCP)', () => {
  it('lists it, joins it at the crash, reads without moving anything, refuses calls, writes and running, and leaves', async (ctx) => {
    const dir = home();
    const person = await sharedCrash(dir);
    const server = await startServer([], { HOME: dir });
    const id = `lldb-${person.pid}`;

    const listed = await server.call('dbg_sessions', {});
    const share = listed.data.shares?.find((s: { id: string }) => s.id === id);
    expect(share, listed.text).toMatchObject({
      debugger: 'lldb',
      access: 'read',
      state: 'stopped',
      program: fixture('crash'),
    });

    const joined = await server.call('dbg_start', { join: id });
    expect(joined.isError, joined.text).toBe(false);
    expect(joined.data.target).toMatchObject({ kind: 'joined', share: id, access: 'read' });
    expect(joined.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGSEGV' });
    const crash = joined.data.views?.crash;
    expect(crash?.hint).toMatch(/NULL pointer dereference in store/);
    expect(crash?.locals?.[1]).toMatchObject({ function: 'update', variables: [{ name: 'doubled', value: '12' }] });
    expect(crash?.source?.lines?.some((l: { text: string }) => l.text.includes('p->x = value'))).toBe(true);
    await person.expect(/\[dbg-mcp\] an agent joined this LLDB, reading only/);
    const session = joined.data.session_id as string;

    const values = await server.call('dbg_evaluate', {
      session_id: session,
      expressions: ['divide(10, 2)', 'value', 'value * 2', 'value = 3'],
    });
    const [call, value, doubled, write] = values.data.results;
    expect(call.error).toMatch(/needs code to run/);
    expect(value.value).toBe('12');
    expect(doubled.value).toBe('24');
    expect(write.error).toMatch(/would change/);
    const up = await server.call('dbg_evaluate', { session_id: session, expressions: ['value'], frame: 1 });
    expect(up.data.results[0].value).toBe('6');

    const regs = await server.call('dbg_inspect', { session_id: session, view: 'registers' });
    expect(regs.isError, regs.text).toBe(false);
    expect(regs.text).toMatch(/rip/);
    const dis = await server.call('dbg_disassemble', { session_id: session, count: 4 });
    expect(dis.isError, dis.text).toBe(false);
    expect(dis.text).toMatch(/=>.*mov/);
    const mem = await server.call('dbg_memory', { session_id: session, action: 'read', address: '&value', length: 4 });
    expect(mem.isError, mem.text).toBe(false);
    expect(mem.data.hex).toBe('0c000000');
    const threads = await server.call('dbg_inspect', { session_id: session, view: 'threads' });
    expect(threads.text).toMatch(/store/);
    // The person's own aliases do not decide what the agent's command does: it goes in full words.
    await person.run('command alias v version', /Overwriting existing definition for 'v'[\s\S]*\(lldb\) /);
    const v = await server.call('dbg_command', { session_id: session, command: 'v value' });
    expect(v.data.output).toMatch(/\(int\) value = 12/);
    const bt = await server.call('dbg_command', { session_id: session, command: 'bt 2' });
    expect(bt.data.output).toMatch(/frame #1: .*update/);
    for (const refused of ['expr 1', 'protocol-server stop MCP', 'memory read `$sp`', 'frame select 1']) {
      const r = await server.call('dbg_command', { session_id: session, command: refused });
      expect(r.isError, refused).toBe(true);
    }
    const go = await server.call('dbg_run', { session_id: session, action: 'continue' });
    expect(go.isError).toBe(true);
    expect(go.text).toMatch(/reading only/);
    const bp = await server.call('dbg_breakpoints', { session_id: session, action: 'set', location: 'update' });
    expect(bp.isError).toBe(true);
    expect(bp.text).toMatch(/reading only.*Ask them to do it in their LLDB/);
    const poke = await server.call('dbg_memory', {
      session_id: session,
      action: 'write',
      address: '&value',
      bytes: '00',
    });
    expect(poke.isError).toBe(true);
    expect(poke.text).toMatch(/reading only/);

    // The person's selection did not move (the agent read frame 1 and put frame 0 back).
    await person.run('frame info', /frame #0: .*store/);
    const closed = await server.call('dbg_close', { session_id: session });
    expect(closed.data.note).toMatch(/as they were/);
    await person.expect(/\[dbg-mcp\] the agent left this LLDB/);
    // No expression history of the agent's: the person's first result is still $0.
    await person.run('expr 1', /\(int\) \$0 = 1/);
    await personCarriesOn(person, (why) => ctx.skip(why));
  });

  it('a server killed while joined leaves the LLDB usable', async (ctx) => {
    const dir = home();
    const person = await sharedCrash(dir);
    const server = await startServer([], { HOME: dir });
    const joined = await server.call('dbg_start', { join: `lldb-${person.pid}` });
    expect(joined.isError, joined.text).toBe(false);
    const pid = server.transport.pid as number;
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 200 && alive(pid); i++) await new Promise((r) => setTimeout(r, 25));
    expect(alive(pid)).toBe(false);
    await personCarriesOn(person, (why) => ctx.skip(why));
  });

  it('the person stopping the protocol server ends the session with that reason', async (ctx) => {
    const dir = home();
    const person = await sharedCrash(dir);
    const server = await startServer([], { HOME: dir });
    const joined = await server.call('dbg_start', { join: `lldb-${person.pid}` });
    const session = joined.data.session_id as string;
    await person.run('protocol-server stop MCP', /\(lldb\) /);
    let state = '';
    let summary = '';
    for (let i = 0; i < 200 && state !== 'dead'; i++) {
      const listed = await server.call('dbg_sessions', {});
      const mine = listed.data.sessions.find((s: { id: string }) => s.id === session);
      state = mine.state;
      summary = mine.summary;
      if (state !== 'dead') await new Promise((r) => setTimeout(r, 25));
    }
    expect(state).toBe('dead');
    expect(summary).toMatch(/stopped sharing their LLDB \(protocol-server stop MCP\)/);
    await personCarriesOn(person, (why) => ctx.skip(why));
  });

  it('passes over stale entries, other users\u2019 files and files others may read', async (ctx) => {
    const dir = home();
    const person = await sharedCrash(dir);
    const registry = join(dir, '.lldb');
    mkdirSync(registry, { recursive: true });
    const entry = JSON.stringify({ connection_uri: 'connection://[127.0.0.1]:9' });
    writeFileSync(join(registry, 'lldb-mcp-4194303.json'), entry, { mode: 0o600 });
    writeFileSync(join(registry, 'lldb-mcp-4194302.json'), entry, { mode: 0o600 });
    chownSync(join(registry, 'lldb-mcp-4194302.json'), 65534, 65534);
    writeFileSync(join(registry, 'lldb-mcp-4194301.json'), entry);
    chmodSync(join(registry, 'lldb-mcp-4194301.json'), 0o644);

    const server = await startServer([], { HOME: dir });
    const listed = await server.call('dbg_sessions', {});
    expect(listed.data.shares.map((s: { id: string }) => s.id)).toEqual([`lldb-${person.pid}`]);
    const why = (n: number) =>
      listed.data.shares_ignored.find((i: { file: string }) => i.file.endsWith(`lldb-mcp-${n}.json`))?.why;
    expect(why(4194303)).toMatch(/stale: LLDB process 4194303 is gone/);
    expect(why(4194302)).toMatch(/belongs to uid 65534/);
    expect(why(4194301)).toMatch(/mode 0644/);
    await personCarriesOn(person, (why) => ctx.skip(why));
  });

  it('joins a program that runs, and sees the stop the person makes', async () => {
    const dir = home();
    const person = new Person(
      LLDB as string,
      ['-x', '-O', 'settings set show-statusline false', '--', fixture('spin')],
      {
        HOME: dir,
      },
    );
    await person.expect(/Current executable set to/);
    await person.run('protocol-server start MCP listen://localhost:0', /MCP server started/);
    await person.run('run', /spinning/);
    const server = await startServer([], { HOME: dir });
    const joined = await server.call('dbg_start', { join: `lldb-${person.pid}` });
    expect(joined.isError, joined.text).toBe(false);
    expect(joined.text).toMatch(/their program is running/);
    const session = joined.data.session_id as string;
    const waiting = server.call('dbg_run', { session_id: session, action: 'wait', timeout_ms: 20_000 });
    // While the program runs, LLDB hands the terminal to it: the person stops it with Ctrl-C.
    person.press('\x03');
    await person.expect(/stop reason = signal SIGSTOP/);
    const waited = await waiting;
    expect(waited.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGSTOP' });
    expect(waited.text).toMatch(/spin/);
    await server.call('dbg_close', { session_id: session });
    await person.run('bt', /frame #\d+: .*spin`spin/);
  });
});
