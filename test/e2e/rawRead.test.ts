// Issue 11, item 3: with raw commands on by default, a denylist did not hold (`eval "shell …"`,
// `alias`, `with … --`, `frame apply`, `python`, `target remote | cmd`, `dump`, `source`, `file` +
// `run`, `cd`, `eval "attach %d"`), and --root, --remote-hosts, --attach-pids, --inferior-calls and
// the environment filter were advice. Now --raw read is the default: an allowlist of read-only
// inspection commands, with GDB refusing writes and calls around each one. Through the real
// server: every escape and its spellings refused with invalid_argument and the reason, nothing
// run, every allowed command answered; --raw full says that no policy binds it.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inferiorCallVerdict } from '../helpers/machine.js';
import { type McpHarness, startServer } from '../helpers/mcp.js';
import { saw } from '../helpers/outcomes.js';
import { fixture } from '../helpers/paths.js';
import { ALLOWED_GDB, REFUSED_GDB } from '../helpers/rawPolicyCases.js';

let scratch: string;
let marker: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'dbg-mcp-rawread-'));
  marker = join(scratch, 'RAN');
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** data.c stopped in scale(), on a server started with `flags`. */
async function inScale(flags: string[] = []): Promise<{ h: McpHarness; id: string }> {
  const h = await startServer(flags);
  const r = await h.call('dbg_start', { program: fixture('data'), breakpoints: [{ location: 'scale' }] });
  expect(r.data.outcome, r.text).toMatchObject({ kind: 'stopped', frame: { function: 'scale' } });
  return { h, id: r.data.session_id as string };
}

/** The escapes of the issue, each made to leave a file behind if it ran. */
function escapes(pid: number): string[] {
  const touch = `touch ${marker}`;
  return [
    `eval "shell ${touch}"`,
    `eval "%c%c%c%c%c ${touch}", 115, 104, 101, 108, 108`,
    'alias x = shell',
    `with language c -- shell ${touch}`,
    `frame apply all shell ${touch}`,
    `thread apply all shell ${touch}`,
    `taas shell ${touch}`,
    `python import os; os.system("${touch}")`,
    `target remote | ${touch}`,
    `with may-call-functions on -- print system("${touch}")`,
    `dump binary value ${marker} numbers`,
    `restore ${marker} binary 0`,
    `source ${marker}`,
    'file /bin/sh',
    'run',
    'cd /',
    'target remote 10.0.0.1:1234',
    `eval "attach %d", ${pid}`,
    `shell ${touch}`,
    `!${touch}`,
    `pipe bt | ${touch}`,
    `call system("${touch}")`,
    'print reads = 5',
    'print reads++',
    `print $_shell("${touch}")`,
  ];
}

describe('--raw read (the default)', () => {
  it('refuses every escape of the issue with invalid_argument and the reason, and runs nothing', async () => {
    const { h, id } = await inScale();
    for (const command of escapes(process.pid)) {
      const r = await h.call('dbg_command', { session_id: id, command });
      expect(r, command).toMatchObject({ isError: true, code: 'invalid_argument' });
      expect(r.data.error.message, command).toMatch(/^refused: .*(--raw read|dbg_run's|dbg_start|dbg_evaluate)/);
    }
    expect(existsSync(marker)).toBe(false);
    // Nothing reached GDB: the session is where it was, and writes and calls are as the operator set them.
    const still = await h.call('dbg_command', { session_id: id, command: 'print v' });
    expect(still.data.output).toBe('$1 = 5\n');
    const assigned = await h.call('dbg_evaluate', { session_id: id, assign: { target: 'reads', value: '3' } });
    expect(assigned.data.assigned, assigned.text).toMatchObject({ new: '3' });
    const next = await h.call('dbg_breakpoints', { session_id: id, action: 'set', location: 'peek' });
    expect(next.isError, next.text).toBe(false);
    const run = await h.call('dbg_run', { session_id: id, action: 'continue' });
    expect(run.data.outcome).toMatchObject({ kind: 'stopped', frame: { function: 'peek' } });
  });

  it('refuses every spelling of the escapes the policy knows, naming the reason', async () => {
    const { h, id } = await inScale();
    for (const [command, reason] of REFUSED_GDB) {
      const r = await h.call('dbg_command', { session_id: id, command });
      expect(r, JSON.stringify(command)).toMatchObject({ isError: true, code: 'invalid_argument' });
      // Empty and multi-line commands are refused by the input schema before the policy sees them.
      if (command.trim() !== '' && !/[\r\n]/.test(command)) {
        expect(r.data.error.message, command).toContain(reason);
      }
    }
    expect((await h.call('dbg_command', { session_id: id, command: 'print v' })).data.output).toBe('$1 = 5\n');
  }, 120_000);

  it('answers every read-only inspection command of the allowlist', async () => {
    const { h, id } = await inScale();
    const gdbRefused: string[] = [];
    for (const [command] of ALLOWED_GDB) {
      // Each from the innermost frame, but those that move down, which need one above.
      const frame = /^\s*(down|do)\b/.test(command) ? 1 : 0;
      const r = await h.call('dbg_command', { session_id: id, command, frame });
      if (r.isError) gdbRefused.push(`${command}: ${r.code}: ${r.data.error.message}`);
    }
    expect(gdbRefused).toEqual([]);
    // A value read the allowlist's way is the program's.
    const rec = await h.call('dbg_command', { session_id: id, command: 'print -pretty -- rec' });
    expect(rec.data.output).toMatch(/id = 7,\n\s+score = 2\.5/);
  }, 120_000);

  it('GDB itself refuses a call, even when the operator allows calls, and prints no source text', async (ctx) => {
    const { h, id } = await inScale(['--inferior-calls', 'on']);
    const call = await h.call('dbg_command', { session_id: id, command: 'print peek()' });
    expect(call).toMatchObject({ isError: true, code: 'debugger_error' });
    expect(call.data.error.message).toMatch(/may-call-functions is off/);
    // Its source line is not printed (the file was named by the program's debug info).
    const frame = await h.call('dbg_command', { session_id: id, command: 'frame' });
    expect(frame.data.output).toMatch(/\n22\tin .*data\.c\n?$/);
    expect(frame.data.output).not.toContain('int product');
    // Afterwards, the operator's setting stands for dbg_evaluate.
    const evaluated = await h.call('dbg_evaluate', { session_id: id, expressions: ['peek()'] });
    const calls = await inferiorCallVerdict();
    if (calls.inferiorCalls === 'broken') {
      // This CPU (AMX under GDB 13): the call itself cannot work; the setting stood (gdb tried it).
      await saw(ctx, `inferior calls broken here (${calls.detail}): the call reached gdb and failed with the reason`);
      expect(evaluated.data.results[0].error).toMatch(/extended register state/);
    } else {
      expect(evaluated.data.results[0]).toMatchObject({ value: '20' });
    }
  });

  it('prints no source text while the program runs either (disassemble /s), and the run goes on', async () => {
    const h = await startServer();
    const start = await h.call('dbg_start', { program: fixture('spin'), timeout_ms: 300, on_timeout: 'return' });
    expect(start.data.outcome).toEqual({ kind: 'running' });
    const id = start.data.session_id;
    const r = await h.call('dbg_command', { session_id: id, command: 'disassemble /s spin' });
    expect(r.isError, r.text).toBe(false);
    expect(r.data.output).toMatch(/spin\.c:/);
    expect(r.data.output).toMatch(/<\+0>:/);
    expect(r.data.output).not.toContain('counter++');
    // At a stop afterwards, source is shown as before (the setting came back), and the run went on.
    const stopped = await h.call('dbg_run', { session_id: id, action: 'interrupt' });
    expect(stopped.data.outcome.kind).toBe('stopped');
    const again = await h.call('dbg_command', { session_id: id, command: 'disassemble /s spin' });
    expect(again.data.output).not.toContain('counter++');
  });

  it('says in its description what it allows', async () => {
    const h = await startServer();
    const { tools } = await h.client.listTools();
    const command = tools.find((t) => t.name === 'dbg_command');
    expect(command?.description).toMatch(/^One read-only debugger command \(--raw read\)/);
  });
});

describe('--raw full', () => {
  it('runs what read refuses, says that no policy binds it, and still protects the session', async () => {
    const { h, id } = await inScale(['--raw', 'full']);
    const { tools } = await h.client.listTools();
    // The budget of toolsList.test.ts, with full's longer description.
    expect(JSON.stringify({ tools }).length).toBeLessThan(18 * 1024);
    expect(tools.find((t) => t.name === 'dbg_command')?.description).toMatch(
      /no policy binds it \(not the roots, remote hosts, attach pids, inferior calls nor the environment filter\)/,
    );
    const write = await h.call('dbg_command', { session_id: id, command: 'print reads = 5' });
    expect(write.data.output).toBe('$1 = 5\n');
    const quit = await h.call('dbg_command', { session_id: id, command: 'quit' });
    expect(quit).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(quit.data.error.message).toMatch(/^refused: quit: would end the debugger/);
    const shell = await h.call('dbg_command', { session_id: id, command: `shell touch ${marker}` });
    expect(shell).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(existsSync(marker)).toBe(false);
  });
});
