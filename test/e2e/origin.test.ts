// The origin of a bad value (issue 21): from a failure, one call names the last write to the value
// it is about, by re-executing the program with a watchpoint. Each kind of bad value is a program
// of fixtures/c (origin_*.c) whose write is marked /* @origin */ and whose failure /* @crash */.
import { describe, expect, it } from 'vitest';
import { lineOf } from '../helpers/markers.js';
import { startServer } from '../helpers/mcp.js';
import { fixture } from '../helpers/paths.js';

describe('dbg_run action=origin (gdb)', () => {
  it('names the write that cleared a pointer used forty calls later', async () => {
    const h = await startServer();
    const start = await h.call('dbg_start', { program: fixture('origin_cleared') });
    expect(start.data.outcome).toMatchObject({
      signal: 'SIGSEGV',
      frame: { function: 'lookup', line: lineOf('origin_cleared.c', '@crash') },
    });
    const id = start.data.session_id;
    const found = await h.call('dbg_run', { session_id: id, action: 'origin' });
    expect(found.isError, JSON.stringify(found.data)).toBe(false);
    expect(found.data.origin).toMatchObject({
      expression: 's->cache',
      kind: 'write',
      write: {
        function: 'reload',
        file: 'origin_cleared.c',
        line: lineOf('origin_cleared.c', '@origin'),
        after: '0x0',
      },
      cost: { runs: 2, hits: 2 },
    });
    expect(found.data.origin.write.before).toMatch(/^0x[0-9a-f]+$/);
    expect(found.data.outcome).toMatchObject({ kind: 'stopped', frame: { function: 'reload' } });
    expect(found.text).toContain(`written in reload (origin_cleared.c:${lineOf('origin_cleared.c', '@origin')})`);
    // Going on from the write reaches the same failure again.
    const back = await h.call('dbg_run', { session_id: id, action: 'continue' });
    expect(back.data.outcome).toMatchObject({
      signal: 'SIGSEGV',
      frame: { line: lineOf('origin_cleared.c', '@crash') },
    });
  });
});
