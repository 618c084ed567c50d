// Issue 11 under repetition (CHAOS_TRIALS rounds; 20 in `npm run test:chaos`): a burst of
// dbg_start past --max-sessions while another session is open, and a big stdin write to a stopped
// program while another session is used. Each round: the cap holds exactly, no gdb beyond it ever
// runs, and the other session answers before the write completes (its latency is reported here
// and measured in bench/securityBench.mjs, not asserted: a loaded machine stalls now and then).
import { describe, expect, it } from 'vitest';
import { chaosTrials } from '../helpers/chaos.js';
import { startServer } from '../helpers/mcp.js';
import { fixture } from '../helpers/paths.js';
import { descendants } from '../helpers/procfs.js';

const TRIALS = chaosTrials(2);

/** Debuggers under the server: processes named gdb whose parent is not one (a gdb's fork is named gdb too). */
function gdbsUnder(serverPid: number): number {
  const procs = descendants(serverPid);
  const gdbs = new Set(procs.filter((p) => p.comm === 'gdb').map((p) => p.pid));
  return [...gdbs].filter((pid) => !gdbs.has(procs.find((p) => p.pid === pid)?.ppid ?? 0)).length;
}

describe('issue 11 bounds, repeated', () => {
  it(`a burst past the session cap, ${TRIALS} rounds: exactly the cap opens, never a gdb more`, async () => {
    const h = await startServer(['--max-sessions', '3', '--warm', '0']); // counts gdbs: no pooled one
    const serverPid = h.transport.pid as number;
    const kept = await h.call('dbg_start', { program: fixture('hello'), stop: 'main' });
    const keptId = kept.data.session_id as string;
    for (let round = 0; round < TRIALS; round++) {
      let most = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          most = Math.max(most, gdbsUnder(serverPid));
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          h.call('dbg_start', { program: fixture('hello'), stop: 'main' }, { timeoutMs: 120_000 }),
        ),
      );
      // The session that was open before answers throughout.
      const still = await h.call('dbg_evaluate', { session_id: keptId, expressions: ['x'] });
      sampling = false;
      await sampler;
      const opened = answers.filter((a) => !a.isError);
      expect(opened.length, `round ${round}`).toBe(2);
      expect(answers.filter((a) => a.isError).map((a) => a.code)).toEqual(Array(48).fill('limit_exceeded'));
      expect(most, `round ${round}: gdbs at once`).toBeLessThanOrEqual(3);
      expect(still.isError, still.text).toBe(false);
      for (const a of opened) await h.call('dbg_close', { session_id: a.data.session_id });
    }
  }, 600_000);

  it(`a 64 KiB write to a stopped program, ${TRIALS} rounds: another session answers before it completes`, async () => {
    const h = await startServer();
    const writer = (await h.call('dbg_start', { program: fixture('stdin_echo'), stop: 'main' })).data
      .session_id as string;
    const other = (await h.call('dbg_start', { program: fixture('data'), breakpoints: [{ location: 'scale' }] })).data
      .session_id as string;
    const data = `${'a'.repeat(99)}\n`.repeat(656).slice(0, 65536);
    const latencies: number[] = [];
    for (let round = 0; round < TRIALS; round++) {
      let written = false;
      const write = h.call('dbg_io', { session_id: writer, action: 'write', data }).then((r) => {
        written = true;
        return r;
      });
      const t0 = Date.now();
      const sessions = await h.call('dbg_sessions', {});
      const value = await h.call('dbg_evaluate', { session_id: other, expressions: ['v'] });
      const answeredFirst = !written;
      latencies.push(Date.now() - t0);
      const w = await write;
      expect(answeredFirst, `round ${round}: the other calls answered only after the write`).toBe(true);
      expect(sessions.isError).toBe(false);
      expect(value.data.results[0].value).toBe('5');
      expect(w.data.taken + w.data.waiting).toBe(65536);
      // The program reads it all, so the next round's write meets a full terminal again.
      await h.call('dbg_run', { session_id: writer, action: 'continue', timeout_ms: 2000, on_timeout: 'interrupt' });
    }
    console.log(`dbg_sessions + dbg_evaluate during the writes: ${latencies.join(', ')} ms`);
  }, 600_000);
});
