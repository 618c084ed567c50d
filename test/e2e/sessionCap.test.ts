// Issue 11, item 4: 20 parallel dbg_start with --max-sessions 2 all succeeded, and 200 left 117
// gdbs. The manager takes a slot before its first await, so a burst cannot pass the cap: exactly
// the cap succeeds, the rest are limit_exceeded, and no gdb beyond the cap ever starts.
import { describe, expect, it } from 'vitest';
import { startServer } from '../helpers/mcp.js';
import { fixture } from '../helpers/paths.js';
import { descendants } from '../helpers/procfs.js';

/**
 * Debuggers under the server now: processes named gdb whose parent is not one (a gdb's fork is
 * named gdb too until it execs the program).
 */
function gdbsUnder(serverPid: number): number {
  const procs = descendants(serverPid);
  const gdbs = new Set(procs.filter((p) => p.comm === 'gdb').map((p) => p.pid));
  return [...gdbs].filter((pid) => !gdbs.has(procs.find((p) => p.pid === pid)?.ppid ?? 0)).length;
}

async function burst(count: number): Promise<{ codes: string[]; maxGdbs: number; gdbsAfter: number }> {
  // No warm pool: its gdb is not a session (issue 15) and would be counted here as one.
  const h = await startServer(['--max-sessions', '2', '--warm', '0']);
  const serverPid = h.transport.pid as number;
  let maxGdbs = 0;
  let sampling = true;
  // Counted all along the burst: a gdb that starts and is closed again would not show at the end.
  const sampler = (async () => {
    while (sampling) {
      maxGdbs = Math.max(maxGdbs, gdbsUnder(serverPid));
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const answers = await Promise.all(
    Array.from({ length: count }, () =>
      h.call('dbg_start', { program: fixture('hello'), stop: 'main' }, { timeoutMs: 120_000 }),
    ),
  );
  sampling = false;
  await sampler;
  const codes = answers.map((a) => (a.isError ? (a.code ?? '?') : 'ok'));
  return { codes, maxGdbs: Math.max(maxGdbs, gdbsUnder(serverPid)), gdbsAfter: gdbsUnder(serverPid) };
}

function tally(codes: readonly string[]): Record<string, number> {
  const t: Record<string, number> = {};
  for (const c of codes) t[c] = (t[c] ?? 0) + 1;
  return t;
}

describe('the session cap under a burst', () => {
  it('20 parallel dbg_start with --max-sessions 2: exactly 2 succeed, 18 are limit_exceeded', async () => {
    const { codes, maxGdbs, gdbsAfter } = await burst(20);
    expect(tally(codes)).toEqual({ ok: 2, limit_exceeded: 18 });
    expect(maxGdbs).toBeLessThanOrEqual(2);
    expect(gdbsAfter).toBe(2);
  }, 120_000);

  it('200 in parallel: still exactly 2, and never a gdb beyond them', async () => {
    const { codes, maxGdbs, gdbsAfter } = await burst(200);
    expect(tally(codes)).toEqual({ ok: 2, limit_exceeded: 198 });
    expect(maxGdbs).toBeLessThanOrEqual(2);
    expect(gdbsAfter).toBe(2);
  }, 180_000);
});
