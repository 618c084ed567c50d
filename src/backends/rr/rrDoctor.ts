// rr's doctor line: record /bin/true for real; when that fails, say why in rr's terms and the fix.

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnvironment } from '../../process/childEnvironment.js';
import { findOnPath } from '../../util/which.js';
import type { DoctorCheck, DoctorOptions } from '../debuggerBackend.js';
import { machineProbe } from '../machineProbe.js';
import { classifyRrFailure } from './rrText.js';

function run(
  file: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: timeoutMs, env: childEnvironment(process.env) }, (error, stdout, stderr) => {
      const code = error
        ? typeof (error as { code?: unknown }).code === 'number'
          ? (error as { code: number }).code
          : null
        : 0;
      resolve({ code, out: String(stdout), err: String(stderr) || (error && code === null ? error.message : '') });
    });
  });
}

export async function rrDoctor(options: DoctorOptions): Promise<DoctorCheck[]> {
  const rr = options.paths.rr ?? findOnPath(['rr']);
  if (!rr) return [{ name: 'rr', ok: false, detail: 'rr not found', fix: 'apt-get install rr' }];
  let paranoid: string | undefined;
  try {
    paranoid = readFileSync('/proc/sys/kernel/perf_event_paranoid', 'utf8').trim();
  } catch {
    paranoid = undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'dbg-mcp-rr-'));
  try {
    const r = await run(rr, ['record', '-o', join(dir, 'trace'), '/bin/true'], 20_000);
    if (r.code === 0)
      return [{ name: 'rr', ok: true, detail: `records and replays (perf_event_paranoid=${paranoid ?? '?'})` }];
    const problem = classifyRrFailure(
      `${r.err}\n${r.out}`,
      paranoid === undefined ? undefined : Number(paranoid),
      (await machineProbe()).record.reverse,
    );
    return [{ name: 'rr', ok: false, detail: `cannot record: ${problem.message}`, fix: problem.fix }];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
