// The trace catalogue: rr recordings under the trace root (_RR_TRACE_DIR, or rr's default
// ~/.local/share/rr), with program, date, size and — when rr can read it — the processes and
// their exit statuses.

import { execFile } from 'node:child_process';
import { readdir, readlink, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseRrPs, type RrProcess } from './rrText.js';

const run = promisify(execFile);

/** Where rr puts traces for this environment, as rr itself decides. */
export function defaultTraceRoot(env: NodeJS.ProcessEnv): string {
  if (env['_RR_TRACE_DIR']) return env['_RR_TRACE_DIR'];
  const data = env['XDG_DATA_HOME'] || join(env['HOME'] || homedir(), '.local', 'share');
  return join(data, 'rr');
}

export interface TraceEntry {
  name: string;
  path: string;
  /** The recorded program, from the trace's name (rr names it `<program>-<n>`). */
  program: string;
  modified: string;
  bytes: number;
  latest: boolean;
  processes?: RrProcess[];
}

async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isFile()) total += (await stat(join(dir, entry.name))).size;
  }
  return total;
}

/** Traces newest first. `rrPath` adds each trace's processes (`rr ps`), at most `limit` traces. */
export async function listTraces(
  root: string,
  options: { rrPath?: string; limit?: number } = {},
): Promise<TraceEntry[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  let latest: string | undefined;
  try {
    latest = await readlink(join(root, 'latest-trace'));
  } catch {
    latest = undefined;
  }
  const traces: TraceEntry[] = [];
  for (const name of names) {
    if (name === 'latest-trace' || name.startsWith('.')) continue;
    const path = join(root, name);
    try {
      const info = await stat(path);
      if (!info.isDirectory()) continue;
      // Every rr trace directory carries a version file; anything else here is not a trace.
      await stat(join(path, 'version'));
      traces.push({
        name,
        path,
        program: name.replace(/-\d+$/, ''),
        modified: info.mtime.toISOString(),
        bytes: await sizeOf(path),
        latest: latest !== undefined && (latest === name || latest === path),
      });
    } catch {
      // not a trace
    }
  }
  traces.sort((a, b) => b.modified.localeCompare(a.modified));
  const kept = traces.slice(0, options.limit ?? 100);
  if (options.rrPath) {
    for (const t of kept) {
      try {
        const { stdout } = await run(options.rrPath, ['ps', t.path], { timeout: 5000 });
        t.processes = parseRrPs(stdout);
      } catch {
        // rr cannot read it (another rr version): list it without processes
      }
    }
  }
  return kept;
}
