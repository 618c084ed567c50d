// The raw-command policy decides what a word means from LLDB's own names (lldbCommandTable.ts):
// a name missing from the table could make a prefix look unique when LLDB finds it ambiguous, or
// the other way round. These are checked against the installed lldb's `help`.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ALIASES, COMMANDS, SUBCOMMANDS } from '../../../src/backends/lldb/lldbCommandTable.js';
import { findOnPath } from '../../../src/util/which.js';

const run = promisify(execFile);
const lldb = findOnPath([...Array.from({ length: 16 }, (_, i) => `lldb-${30 - i}`), 'lldb']);

async function help(topic = ''): Promise<string> {
  const { stdout } = await run(lldb as string, ['--no-lldbinit', '-b', '-o', `help ${topic}`.trim()], {
    timeout: 60_000,
  });
  return stdout;
}

/** Names listed two spaces in (`  frame   -- …`) in one section of `help`'s output. */
function names(text: string, indent: number): string[] {
  return [...text.matchAll(new RegExp(`^ {${indent}}([a-z][\\w-]*) +--`, 'gm'))].map((m) => m[1] as string);
}

describe.skipIf(lldb === undefined)(`LLDB's command names (${lldb ?? 'no lldb on PATH'})`, () => {
  it("the top-level commands and aliases are the ones `help` lists (plus lldb-dap's own)", async () => {
    const text = await help();
    const [commands, aliases] = text.split('Current command abbreviations');
    expect(names(commands ?? '', 2).sort()).toEqual(COMMANDS.filter((c) => c !== 'lldb-dap').sort());
    expect(names(aliases ?? '', 2).sort()).toEqual([...ALIASES].sort());
  }, 120_000);

  it('the subcommands of each command the policy reads into', async () => {
    // One lldb for every `help`: each answer follows the echo of its command.
    const commands = Object.keys(SUBCOMMANDS);
    const { stdout } = await run(
      lldb as string,
      ['--no-lldbinit', '-b', ...commands.flatMap((c) => ['-o', `help ${c}`])],
      { timeout: 120_000 },
    );
    const answers = stdout.split(/^\(lldb\) help /m).slice(1);
    expect(answers.length).toBe(commands.length);
    for (const answer of answers) {
      const command = answer.split('\n')[0]?.trim() ?? '';
      const listed = answer.split(/commands are supported:/)[1] ?? '';
      expect(names(listed, 6).sort(), command).toEqual([...(SUBCOMMANDS[command] ?? [])].sort());
    }
  }, 120_000);
});
