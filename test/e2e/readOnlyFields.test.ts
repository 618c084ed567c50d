// Issue 22, medium: read-only tools wrote memory through fields the debugger evaluates as
// expressions. Each field here gets a writing expression; the answer is a refusal naming the
// field, and `reads` (0 in data.c's scale()) is still 0 afterwards. On gdb, and on lldb where the
// field exists (lldb-dap-22 is installed on this machine; skipped with the reason where not).
import { describe, expect, it } from 'vitest';
import { lldbDapCandidates } from '../../src/backends/lldb/lldbPath.js';
import { type McpHarness, startServer } from '../helpers/mcp.js';
import { fixture } from '../helpers/paths.js';

const noLldb = lldbDapCandidates()[0] === undefined;

async function inScale(backend: 'gdb' | 'lldb'): Promise<{ h: McpHarness; id: string }> {
  const h = await startServer();
  const r = await h.call(
    'dbg_start',
    { backend, program: fixture('data'), breakpoints: [{ location: 'scale' }] },
    { timeoutMs: 60_000 },
  );
  expect(r.data.outcome, r.text).toMatchObject({ kind: 'stopped', frame: { function: 'scale' } });
  return { h, id: r.data.session_id as string };
}

const REFUSED = /writes|would change the program|may only read/;

/** [what, tool, arguments, where the refusal is in the answer]. */
type Case = [
  string,
  string,
  Record<string, unknown>,
  (answer: { isError: boolean; text: string; data: any }) => string,
];

const whole = (a: { isError: boolean; text: string }) => (a.isError ? a.text : `not refused: ${a.text}`);

const CASES: Case[] = [
  ['dbg_disassemble start', 'dbg_disassemble', { start: '$pc + (reads = 99)*0', end: '$pc + 16' }, whole],
  ['dbg_disassemble end', 'dbg_disassemble', { start: '$pc', end: '$pc + 16 + (reads = 98)*0' }, whole],
  ['dbg_memory address', 'dbg_memory', { address: '&greeting + (reads = 97)*0', length: 2 }, whole],
  [
    'dbg_batch memory',
    'dbg_batch',
    { operations: [{ op: 'memory', address: '&greeting + (reads = 96)*0', length: 2 }] },
    (a) => JSON.stringify(a.data?.results?.[0]?.error ?? a.text),
  ],
  [
    'dbg_batch disassemble',
    'dbg_batch',
    { operations: [{ op: 'disassemble', start: '$pc + (reads = 95)*0', end: '$pc + 16' }] },
    (a) => JSON.stringify(a.data?.results?.[0]?.error ?? a.text),
  ],
  [
    'breakpoint condition',
    'dbg_breakpoints',
    { action: 'set', location: 'main', condition: '(reads = 1234) == 0' },
    whole,
  ],
  ['watch expression', 'dbg_breakpoints', { action: 'set', kind: 'watchpoint', expression: 'reads = 7' }, whole],
  [
    'dprintf format_args',
    'dbg_breakpoints',
    { action: 'set', kind: 'dprintf', location: 'main', format: '%d', format_args: ['reads = 555'] },
    whole,
  ],
  ['advance location', 'dbg_run', { action: 'advance', location: '*(reads = 31, $pc)' }, whole],
  ['until location', 'dbg_run', { action: 'until', location: '*(reads = 32, $pc)' }, whole],
];

describe.each(['gdb', 'lldb'] as const)('the read-only rule on every expression field (%s)', (backend) => {
  it.skipIf(backend === 'lldb' && noLldb)('refuses a write in each field, and nothing changed', async () => {
    const { h, id } = await inScale(backend);
    try {
      for (const [what, tool, args, where] of CASES) {
        const answer = await h.call(tool, { session_id: id, ...args });
        expect(where(answer), `${what}: ${answer.text}`).toMatch(REFUSED);
      }
      const after = await h.call('dbg_evaluate', { session_id: id, expressions: ['reads'] });
      expect(after.data.results[0], after.text).toMatchObject({ value: '0' });
    } finally {
      await h.close();
    }
  });
});
