// dbg_doctor: what this machine can debug. The checks run real tools (gdb, an inferior call, an rr
// recording), so one run is kept for a few minutes and shared by calls that overlap it.

import * as z from 'zod/v4';
import type { BackendKind, DoctorCheck } from '../../backends/debuggerBackend.js';
import { runDoctor } from '../../backends/registry.js';
import { backendPaths } from '../config.js';
import { defineTool } from '../defineTool.js';

export const DOCTOR_CACHE_MS = 5 * 60_000;

interface CachedRun {
  at: number;
  checks: Promise<DoctorCheck[]>;
}

const cache = new Map<string, CachedRun>();

function doctorRun(
  paths: Partial<Record<BackendKind, string>>,
  passthroughEnv: readonly string[],
  refresh: boolean,
): { run: CachedRun; reused: boolean } {
  const key = `${JSON.stringify(paths)}\0${passthroughEnv.join(',')}`;
  const hit = cache.get(key);
  if (hit && !refresh && Date.now() - hit.at < DOCTOR_CACHE_MS) return { run: hit, reused: true };
  const run: CachedRun = { at: Date.now(), checks: runDoctor({ paths, passthroughEnv }) };
  cache.set(key, run);
  // A run that fails is not kept: the next call tries again.
  run.checks.catch(() => {
    if (cache.get(key) === run) cache.delete(key);
  });
  return { run, reused: false };
}

export function renderChecks(checks: readonly DoctorCheck[]): string {
  const width = Math.max(...checks.map((c) => c.name.length));
  return checks
    .map(
      (c) => `${c.ok ? 'ok' : 'no'}  ${c.name.padEnd(width)}  ${c.detail}${!c.ok && c.fix ? ` (fix: ${c.fix})` : ''}`,
    )
    .join('\n');
}

const output = z.object({
  checks: z.array(
    z.object({
      name: z.string(),
      ok: z.boolean(),
      detail: z.string(),
      fix: z.string().optional().describe('How to make it work; absent when it works.'),
    }),
  ),
  checked_at: z.string(),
  cached: z.boolean(),
});

export const doctorTool = defineTool({
  name: 'dbg_doctor',
  title: 'Doctor',
  description: 'What works here: each debugger and capability with ok, detail and fix. Cached 5 minutes.',
  input: z.strictObject({ refresh: z.boolean().optional().describe('Check again now.') }),
  output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(args, ctx) {
    ctx.progress(0, 'checking debuggers');
    const { run, reused: cached } = doctorRun(
      backendPaths(ctx.config),
      ctx.config.passthroughEnv,
      args.refresh === true,
    );
    const checks = await run.checks;
    const checkedAt = new Date(run.at).toISOString();
    return {
      data: {
        checks: checks.map((c) => ({ name: c.name, ok: c.ok, detail: c.detail, ...(c.fix ? { fix: c.fix } : {}) })),
        checked_at: checkedAt,
        cached,
      },
      text: `${renderChecks(checks)}\n(checked ${checkedAt}${cached ? ', kept from an earlier call' : ''})`,
    };
  },
});
