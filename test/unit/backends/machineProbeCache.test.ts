// The probe's verdicts kept for the rest of the boot: reused only for the same boot, kernel and
// gdb binary, never when the probe could not decide, and a damaged file is a miss, not an error.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { MachineProbe } from '../../../src/backends/machineProbe.js';
import {
  type ProbeCacheKey,
  probeCacheKey,
  readCachedProbe,
  writeCachedProbe,
} from '../../../src/backends/machineProbeCache.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function cacheFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'probe-cache-'));
  dirs.push(dir);
  return join(dir, 'sub', 'machine-probe.json');
}

const key: ProbeCacheKey = {
  bootId: '4b1c0b5e-0000-4000-8000-000000000000',
  kernel: '6.1.0-firecracker',
  gdb: '/usr/bin/gdb',
  gdbSize: 10_000_000,
  gdbMtimeMs: 1_700_000_000_000,
};

const dead: MachineProbe = {
  hardware: { watchpoints: 'dead', breakpoints: 'dead', detail: 'never fired', ms: 420 },
  calls: { inferiorCalls: 'work', detail: 'calling getpid() in the program worked' },
  record: { reverse: 'broken', detail: "Couldn't write extended state status" },
};

describe('the kept machine probe', () => {
  it('is read back for the same boot, kernel and gdb', () => {
    const file = cacheFile();
    expect(writeCachedProbe(key, dead, file)).toBe(true);
    expect(readCachedProbe(key, file)).toEqual(dead);
  });

  it('is not used after a reboot, another kernel or another gdb', () => {
    const file = cacheFile();
    writeCachedProbe(key, dead, file);
    expect(readCachedProbe({ ...key, bootId: 'another boot' }, file)).toBeUndefined();
    expect(readCachedProbe({ ...key, kernel: '6.6.0' }, file)).toBeUndefined();
    expect(readCachedProbe({ ...key, gdbMtimeMs: key.gdbMtimeMs + 1 }, file)).toBeUndefined();
    expect(readCachedProbe({ ...key, gdb: '/usr/local/bin/gdb' }, file)).toBeUndefined();
  });

  it('never keeps a verdict the probe could not reach', () => {
    const file = cacheFile();
    const unknown: MachineProbe = { ...dead, hardware: { ...dead.hardware, watchpoints: 'unknown' } };
    expect(writeCachedProbe(key, unknown, file)).toBe(false);
    const noRecordVerdict: MachineProbe = { ...dead, record: { reverse: 'unknown', detail: 'no answer' } };
    expect(writeCachedProbe(key, noRecordVerdict, file)).toBe(false);
    expect(readCachedProbe(key, file)).toBeUndefined();
  });

  it('takes a damaged or foreign file for a miss', () => {
    const file = cacheFile();
    writeCachedProbe(key, dead, file);
    writeFileSync(file, '{"version":1,"key":');
    expect(readCachedProbe(key, file)).toBeUndefined();
    writeFileSync(file, JSON.stringify({ version: 99, key, probe: dead }));
    expect(readCachedProbe(key, file)).toBeUndefined();
    // A file of the version before process record was probed: its verdicts lack `record`.
    const { record: _, ...older } = dead;
    writeFileSync(file, JSON.stringify({ version: 1, key, probe: older }));
    expect(readCachedProbe(key, file)).toBeUndefined();
  });

  it('keys on the gdb binary a name resolves to, on this machine', () => {
    // The tests need gdb on this machine (it is what they drive).
    const here = probeCacheKey('gdb');
    expect(here?.gdb).toMatch(/gdb/);
    expect(here?.bootId).toMatch(/^[0-9a-f-]{36}$/);
    expect(probeCacheKey('no-such-gdb-anywhere', '/nonexistent')).toBeUndefined();
  });
});
