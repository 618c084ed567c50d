// dbg_command on the LLDB backend, through the built server, under each --raw policy. `read` (the
// default) is an allowlist parsed as LLDB looks commands up: every escape below would leave a file
// behind if LLDB ran it (`--raw full` shows that one of them does), and none may. Skipped with the
// reason where lldb-dap is not installed.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lldbDapCandidates } from '../../src/backends/lldb/lldbPath.js';
import { type McpHarness, startServer } from '../helpers/mcp.js';
import { fixture } from '../helpers/paths.js';

const missing = lldbDapCandidates()[0] === undefined ? ' (lldb-dap is not installed: apt-get install lldb-22)' : '';
const TEST_MS = 180_000;

let scratch: string;
let marker: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'dbg-mcp-lldbraw-'));
  marker = join(scratch, 'RAN');
  // What `command source` and `command script import` would run.
  writeFileSync(join(scratch, 'cmds.lldb'), `platform shell touch ${marker}\n`);
  writeFileSync(join(scratch, 'mod.py'), `import os\nos.system("touch ${marker}")\n`);
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** data.c stopped in scale() (v = 5) under LLDB, on a server started with `flags`. */
async function inScale(flags: string[] = []): Promise<{ h: McpHarness; id: string }> {
  const h = await startServer(flags);
  const r = await h.call(
    'dbg_start',
    { backend: 'lldb', program: fixture('data'), breakpoints: [{ location: 'scale' }] },
    { timeoutMs: 60_000 },
  );
  expect(r.data.outcome, r.text).toMatchObject({ kind: 'stopped', frame: { function: 'scale' } });
  return { h, id: r.data.session_id as string };
}

function escapes(): string[] {
  const touch = `touch ${marker}`;
  return [
    `platform shell ${touch}`,
    `pla sh ${touch}`,
    `shell ${touch}`,
    `script import os; os.system("${touch}")`,
    'script',
    `command alias zz platform shell ${touch}`,
    `command regex zz 's/.*/platform shell ${touch}/'`,
    `command source ${join(scratch, 'cmds.lldb')}`,
    `command script import ${join(scratch, 'mod.py')}`,
    `settings set target.env-vars RAN=${marker}`,
    `sett se target.run-args ${marker}`,
    'process launch',
    'target create /bin/sh',
    `process attach --pid ${process.pid}`,
    'gdb-remote 127.0.0.1:1',
    `expression -- (int)system("${touch}")`,
    'expression reads = 5',
    'p reads++',
    `call system("${touch}")`,
    `po system("${touch}")`,
    `memory read (char *)system("${touch}")`,
    `memory read \`(char *)system("${touch}")\``,
    `x/s (char *)system("${touch}")`,
    `disassemble --start-address (void *)system("${touch}")`,
    'frame variable -- reads--',
    'memory write &reads 5',
    'register write rip 0',
    `memory read --outfile ${marker} -c 4 &reads`,
    'memory read --force -c 99999999 &reads',
    `breakpoint command add -o "platform shell ${touch}" 1`,
    `target stop-hook add -o "platform shell ${touch}"`,
    `log enable -f ${marker} lldb api`,
    `session save ${marker}`,
    'thread return 0',
    'process signal SIGKILL',
    'c',
    'quit',
  ];
}

describe(`dbg_command on lldb${missing}`, () => {
  it.skipIf(missing !== '')(
    '--raw read refuses every escape with invalid_argument and the reason, and LLDB runs none of them',
    { timeout: TEST_MS },
    async () => {
      const { h, id } = await inScale();
      for (const command of escapes()) {
        const r = await h.call('dbg_command', { session_id: id, command });
        expect(r, command).toMatchObject({ isError: true, code: 'invalid_argument' });
        expect(r.data.error.message, command).toMatch(/^refused: /);
      }
      expect(existsSync(marker)).toBe(false);
      // Nothing reached the program: the session is where it was, its values as they were.
      const v = await h.call('dbg_command', { session_id: id, command: 'frame variable v reads' });
      expect(v.data.output).toMatch(/\(int\) v = 5\n\(int\) reads = 0\n/);
      const run = await h.call('dbg_run', { session_id: id, action: 'finish' });
      expect(run.data.outcome, run.text).toMatchObject({ kind: 'stopped', reason: 'function-finished' });
    },
  );

  it.skipIf(missing !== '')(
    '--raw read answers the inspection commands, long options included',
    { timeout: TEST_MS },
    async () => {
      const { h, id } = await inScale();
      const answers: Record<string, RegExp> = {
        bt: /frame #0: .*scale.*data\.c:\d+/,
        'fr v v': /\(int\) v = 5/,
        'frame variable --format x v': /\(int\) v = 0x00000005/,
        'register read --format x rip': /rip = 0x[0-9a-f]+/,
        'memory read --size 4 --count 4 --format d &numbers': /: 10\n.*: 20\n.*: 30\n.*: 40/,
        'x/4dw &numbers': /: 10\n.*: 20\n.*: 30\n.*: 40/,
        'disassemble --count 2': /scale/,
        'image lookup -n scale': /data\.c/,
        'breakpoint list': /scale/,
        'thread list': /thread #1/,
        'process status': /stopped/,
        'memory region &reads': /rw-/,
        'help frame': /frame/,
      };
      const wrong: string[] = [];
      for (const [command, expected] of Object.entries(answers)) {
        const r = await h.call('dbg_command', { session_id: id, command });
        const output = String(r.data.output ?? r.text);
        if (r.isError || !expected.test(output)) wrong.push(`${command}: ${output.slice(0, 200)}`);
      }
      expect(wrong).toEqual([]);
    },
  );

  it.skipIf(missing !== '')(
    '--raw full runs what read refuses (a shell command did run), and still refuses what ends the session',
    { timeout: TEST_MS },
    async () => {
      const { h, id } = await inScale(['--raw', 'full']);
      const write = await h.call('dbg_command', { session_id: id, command: 'expression reads = 5' });
      expect(write.data.output).toMatch(/= 5/);
      const shell = await h.call('dbg_command', { session_id: id, command: `platform shell touch ${marker}` });
      expect(shell.isError, shell.text).toBe(false);
      expect(existsSync(marker)).toBe(true);
      rmSync(marker);
      for (const command of ['quit', 'process launch', 'target create /bin/sh', 'script']) {
        const r = await h.call('dbg_command', { session_id: id, command });
        expect(r, command).toMatchObject({ isError: true, code: 'invalid_argument' });
      }
      const v = await h.call('dbg_command', { session_id: id, command: 'frame variable reads' });
      expect(v.data.output).toMatch(/\(int\) reads = 5/);
    },
  );

  it('--raw off: dbg_command is not offered', async () => {
    const h = await startServer(['--raw', 'off']);
    const { tools } = await h.client.listTools();
    expect(tools.map((t) => t.name)).not.toContain('dbg_command');
  });
});
