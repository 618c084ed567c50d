// rr on this machine, for real. Where rr can record, a recording is made and listed; where it
// cannot (no performance counters in most VMs), the failure must be one we explain. Which of the
// two this machine shows is asked of rr first (helpers/rrProbe.ts); the other test skips, saying why.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordWithRr } from '../../../src/backends/rr/rrRecord.js';
import { listTraces } from '../../../src/backends/rr/rrTraces.js';
import { childEnvironment } from '../../../src/process/childEnvironment.js';
import { isDebuggerError } from '../../../src/util/errors.js';
import { findOnPath } from '../../../src/util/which.js';
import { fixture } from '../../helpers/paths.js';
import { rrHere } from '../../helpers/rrProbe.js';

const rr = findOnPath(['rr']);
const root = mkdtempSync(join(tmpdir(), 'dbg-mcp-rr-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('rr record', () => {
  const here = rrHere();

  it('records a crashing program where rr can record', { timeout: 60_000 }, async (ctx) => {
    if (!here.records) ctx.skip(here.why);
    const rec = await recordWithRr({
      rrPath: rr as string,
      argv: [fixture('crash'), 'segv'],
      env: { ...childEnvironment(process.env), _RR_TRACE_DIR: root },
      timeoutMs: 30_000,
    });
    // The recording exists, is listed, and holds the crash.
    expect(rec.output).toContain('mode segv');
    const traces = await listTraces(root, { rrPath: rr as string });
    expect(traces.map((t) => t.path)).toContain(rec.trace);
    expect(traces[0]?.processes?.[0]?.exit).toBe(-11);
  });

  it('says precisely why where rr cannot record', { timeout: 60_000 }, async (ctx) => {
    expect(rr, 'rr must be installed (.ci/run installs it)').toBeDefined();
    if (here.records) ctx.skip(`${here.why}: its refusal cannot be seen here`);
    const e = await recordWithRr({
      rrPath: rr as string,
      argv: [fixture('crash'), 'segv'],
      env: { ...childEnvironment(process.env), _RR_TRACE_DIR: root },
      timeoutMs: 30_000,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isDebuggerError(e) && e.code === 'backend_unavailable', String(e)).toBe(true);
    const kind = isDebuggerError(e) ? e.details?.['rr'] : undefined;
    expect(['no-pmu', 'paranoid', 'cpu', 'virtualization']).toContain(kind);
    await ctx.annotate(`rr cannot record here (${kind}): ${(e as Error).message}`, 'outcome');
  });
});
