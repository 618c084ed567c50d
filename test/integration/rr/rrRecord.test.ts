// rr on this machine, for real. Where rr can record, a recording is made and listed; where it
// cannot (no performance counters in most VMs), the failure must be one we explain, and the
// replay tests are skipped with that reason printed.
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

const rr = findOnPath(['rr']);
const root = mkdtempSync(join(tmpdir(), 'dbg-mcp-rr-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('rr record', () => {
  it('records a crashing program, or says precisely why rr cannot record here', { timeout: 60_000 }, async () => {
    expect(rr, 'rr must be installed (.ci/run installs it)').toBeDefined();
    try {
      const rec = await recordWithRr({
        rrPath: rr as string,
        argv: [fixture('crash'), 'segv'],
        env: { ...childEnvironment(process.env), _RR_TRACE_DIR: root },
        timeoutMs: 30_000,
      });
      // rr works here: the recording exists, is listed, and holds the crash.
      expect(rec.output).toContain('mode segv');
      const traces = await listTraces(root, { rrPath: rr as string });
      expect(traces.map((t) => t.path)).toContain(rec.trace);
      expect(traces[0]?.processes?.[0]?.exit).toBe(-11);
    } catch (e) {
      expect(isDebuggerError(e) && e.code === 'backend_unavailable').toBe(true);
      const kind = isDebuggerError(e) ? e.details?.['rr'] : undefined;
      console.log(`rr cannot record on this machine (${kind}): ${(e as Error).message}`);
      expect(['no-pmu', 'paranoid', 'cpu', 'virtualization']).toContain(kind);
    }
  });
});
