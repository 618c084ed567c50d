// rr through the server. Where rr can record here, a crash is recorded, listed, and replayed
// backwards from the crash; where it cannot (no performance counters, an unknown CPU), every rr
// path says why and what to use instead. Which of the two this machine shows is asked of rr first
// (helpers/rrProbe.ts); the tests of the other path skip with that reason.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/mcp.js';
import { fixture } from '../helpers/paths.js';
import { rrHere } from '../helpers/rrProbe.js';

const traces = mkdtempSync(join(tmpdir(), 'dbg-mcp-traces-'));
afterAll(() => rmSync(traces, { recursive: true, force: true }));
const rr = rrHere();

describe('rr through the server', () => {
  it('dbg_record records a crash where rr can record', async (ctx) => {
    if (!rr.records) ctx.skip(rr.why);
    const h = await startServer(['--rr-trace-dir', traces]);
    const r = await h.call('dbg_record', { program: fixture('crash'), args: ['segv'] });
    expect(r.isError, r.text).toBe(false);
    expect(r.data.trace).toContain(traces);
    expect(r.data.output.text).toContain('mode segv');
  });

  it('dbg_record says precisely why where rr cannot record', async (ctx) => {
    if (rr.records) ctx.skip(`${rr.why}: its refusal cannot be seen here`);
    const h = await startServer(['--rr-trace-dir', traces]);
    const r = await h.call('dbg_record', { program: fixture('crash'), args: ['segv'] });
    expect(r).toMatchObject({ isError: true, code: 'backend_unavailable' });
    expect(r.data.error.message).toMatch(/rr cannot record here: .*(CPU|performance counters|perf events)/);
    expect(r.data.error.message).toMatch(/record=true/);
  });

  it('dbg://traces lists the trace directory', async () => {
    mkdirSync(join(traces, 'server-0'), { recursive: true });
    writeFileSync(join(traces, 'server-0', 'version'), '85\n');
    const h = await startServer(['--rr-trace-dir', traces]);
    const r = await h.client.readResource({ uri: 'dbg://traces' });
    const body = JSON.parse(String((r.contents[0] as { text: string }).text));
    expect(body.trace_dir).toBe(traces);
    expect(body.traces.map((t: { name: string }) => t.name)).toContain('server-0');
  });

  it('a replay rr cannot run is refused with the reason', async () => {
    mkdirSync(join(traces, 'crash-0'), { recursive: true });
    writeFileSync(join(traces, 'crash-0', 'version'), '85\n');
    const h = await startServer(['--rr-trace-dir', traces]);
    const r = await h.call('dbg_start', { backend: 'rr', trace: 'crash-0', timeout_ms: 10_000 });
    expect(r).toMatchObject({ isError: true, code: 'backend_unavailable' });
    expect(r.data.error.message).toMatch(/rr cannot replay/);
  });

  it('replays a recorded crash and runs backwards from it', async (ctx) => {
    if (!rr.records) ctx.skip(rr.why);
    const h = await startServer(['--rr-trace-dir', traces]);
    const rec = await h.call('dbg_record', { program: fixture('corrupt') });
    const start = await h.call('dbg_start', { backend: 'rr', trace: rec.data.trace });
    expect(start.data.outcome).toMatchObject({ signal: 'SIGSEGV' });
    expect(start.data.outcome.when?.event).toBeGreaterThan(0);
    const id = start.data.session_id;
    await h.call('dbg_breakpoints', { session_id: id, action: 'set', kind: 'watchpoint', expression: 'state.guard' });
    const back = await h.call('dbg_run', { session_id: id, action: 'reverse_continue' });
    expect(back.data.outcome).toMatchObject({ reason: 'watchpoint-trigger', frame: { function: 'fill' } });
  });
});
