// The trace catalogue reads a trace directory the way rr lays it out: one folder per recording,
// each with a version file, and a latest-trace link.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultTraceRoot, listTraces } from '../../../src/backends/rr/rrTraces.js';

const root = mkdtempSync(join(tmpdir(), 'dbg-mcp-traces-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function trace(name: string, bytes: number, when: Date): void {
  mkdirSync(join(root, name));
  writeFileSync(join(root, name, 'version'), '85\n');
  writeFileSync(join(root, name, 'events'), Buffer.alloc(bytes));
  utimesSync(join(root, name), when, when);
}

describe('trace catalogue', () => {
  it('lists recordings newest first, with program, size and the latest one', async () => {
    trace('server-0', 1000, new Date('2026-11-01T10:00:00Z'));
    trace('server-1', 2000, new Date('2026-11-02T10:00:00Z'));
    trace('a.out-0', 10, new Date('2026-10-01T10:00:00Z'));
    mkdirSync(join(root, 'not-a-trace'));
    writeFileSync(join(root, 'stray-file'), 'x');
    symlinkSync('server-1', join(root, 'latest-trace'));
    const traces = await listTraces(root);
    expect(traces.map((t) => t.name)).toEqual(['server-1', 'server-0', 'a.out-0']);
    expect(traces[0]).toMatchObject({ program: 'server', latest: true, bytes: 2003 });
    expect(traces[2]).toMatchObject({ program: 'a.out', latest: false });
  });

  it('an absent directory is an empty catalogue', async () => {
    expect(await listTraces(join(root, 'nope'))).toEqual([]);
  });

  it('finds the root as rr does', () => {
    expect(defaultTraceRoot({ _RR_TRACE_DIR: '/t' })).toBe('/t');
    expect(defaultTraceRoot({ XDG_DATA_HOME: '/d', HOME: '/h' })).toBe('/d/rr');
    expect(defaultTraceRoot({ HOME: '/h' })).toBe('/h/.local/share/rr');
  });
});
