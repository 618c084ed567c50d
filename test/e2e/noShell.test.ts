// Issue 11, item 2: an argument that is empty or holds white space switched GDB to
// `startup-with-shell on`, and GDB quotes neither `|` nor a backtick in the program's name, so
// `{"program": "<root>/q|sh", "args": ["-c", "id > F", ""]}` ran a command. No shell runs now: such
// arguments go to the launcher GDB runs as its SHELL, which execs the program with the argv as
// given. Through the real server, with names and arguments that would run commands in any shell.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/mcp.js';
import { WAIT_MS } from '../helpers/outcomes.js';
import { fixture } from '../helpers/paths.js';
import { freePort, printed, requireTool, startProcess } from '../helpers/targets.js';

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'dbg-mcp-noshell-'));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** echo_args under `name` in the root (it prints each argument in brackets). */
function echoArgsAs(name: string): string {
  const path = join(root, name);
  copyFileSync(fixture('echo_args'), path);
  return path;
}

describe('no shell starts a program', () => {
  it('the pipe in the name runs nothing: the program gets its argv byte for byte', async () => {
    const h = await startServer(['--root', root], { DBG_MCP_RAW: 'off' });
    const program = echoArgsAs('q|sh');
    const marker = join(root, 'PIPED');
    const r = await h.call('dbg_start', {
      program,
      args: ['-c', `touch ${marker}`, ''],
      cwd: root,
      timeout_ms: WAIT_MS,
    });
    expect(r.data.outcome, r.text).toEqual({ kind: 'exited', exit_code: 0 });
    expect(r.data.output.text).toBe(`[-c]\n[touch ${marker}]\n[]\nprobe=(unset)\n`);
    expect(existsSync(marker)).toBe(false);
  });

  it('backticks, $( ), quotes and ; in the name and the arguments: nothing runs, argv stays literal', async () => {
    const h = await startServer(['--root', root]);
    const program = echoArgsAs("b`touch TICK` $(touch DOLLAR) ';touch SEMI");
    const args = ['a b', '', "it's", '$(touch ARG)', '`touch ARG2`', 'tab\there'];
    const r = await h.call('dbg_start', { program, args, cwd: root, timeout_ms: WAIT_MS });
    expect(r.data.outcome, r.text).toEqual({ kind: 'exited', exit_code: 0 });
    expect(r.data.output.text).toBe(`${args.map((a) => `[${a}]`).join('\n')}\nprobe=(unset)\n`);
    expect(readdirSync(root).filter((f) => /^(TICK|DOLLAR|SEMI|ARG|ARG2)$/.test(f))).toEqual([]);
    // The same run again, stopped at main and at the first instruction: the launcher is followed.
    for (const stop of ['main', 'entry'] as const) {
      const s = await h.call('dbg_start', { program, args, cwd: root, stop });
      expect(s.data.outcome?.kind, s.text).toBe('stopped');
      if (stop === 'main') expect(s.data.outcome.frame.function).toBe('main');
      const done = await h.call('dbg_run', { session_id: s.data.session_id, action: 'continue', timeout_ms: WAIT_MS });
      expect(done.data.outcome).toEqual({ kind: 'exited', exit_code: 0 });
      expect(done.data.output.text).toBe(`${args.map((a) => `[${a}]`).join('\n')}\nprobe=(unset)\n`);
    }
  });

  it('through gdbserver --multi: argv as given, no launcher tokens, nothing run; what gdbserver would change is refused', async () => {
    const gdbserver = requireTool('gdbserver', 'gdbserver');
    const port = await freePort();
    const server = startProcess(gdbserver, ['--multi', `127.0.0.1:${port}`], root);
    await printed(server, 'Listening on port');
    const h = await startServer(['--root', root]);
    const program = echoArgsAs('stub|echo');
    const remote = `127.0.0.1:${port}`;
    for (const bad of [['a b'], [''], ["it's"], ['back\\slash'], ['"q"']]) {
      const r = await h.call('dbg_start', { program, args: bad, remote, extended: true });
      expect(r, JSON.stringify(bad)).toMatchObject({ isError: true, code: 'invalid_argument' });
      expect(r.data.error.message).toMatch(
        /^args\[0\]: through gdbserver an argument cannot be empty or hold white space/,
      );
    }
    const args = ['$(touch>STUBBED)', '`touch>TICKED2`', 'a;b', '*', '|x', '-c'];
    const said = printed(server, 'probe=');
    const r = await h.call('dbg_start', { program, args, remote, extended: true });
    expect(r.data.outcome, r.text).toEqual({ kind: 'exited', exit_code: 0 });
    // The program's output goes to gdbserver's terminal, not to a pty of ours.
    const out = await said;
    expect(out.slice(out.indexOf('['), out.indexOf('probe='))).toBe(`${args.map((a) => `[${a}]`).join('\n')}\n`);
    expect(readdirSync(root).filter((f) => /^(STUBBED|TICKED2)$/.test(f))).toEqual([]);
  });

  it('the doctor names the launcher', async () => {
    const h = await startServer();
    const r = await h.call('dbg_doctor', {});
    const line = (r.data.checks as { name: string; ok: boolean; detail: string }[]).find((c) => c.name === 'launcher');
    expect(line, r.text).toMatchObject({ ok: true, detail: expect.stringMatching(/with no shell \(\/.+\)/) });
  });
});
