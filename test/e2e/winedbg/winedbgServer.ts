// What the winedbg end-to-end tests share: the in-process server over the fixtures (programs in
// fixtures/c/build/windows, sources in fixtures/windows), its Wine prefix made ready once per
// test process (in the tests' shared cache, reused across runs), and a look from /proc at what
// of a session is left in the prefix.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { isSharedWineProcess, prefixProcesses } from '../../../src/backends/winedbg/wineProcesses.js';
import { wineServices } from '../../../src/backends/winedbg/wineServices.js';
import { startInProcess } from '../../helpers/inProcess.js';
import type { CallResult, McpCaller } from '../../helpers/mcp.js';
import { repoRoot } from '../../helpers/paths.js';
import { windowsFixture } from '../../integration/winedbg/windowsFixtures.js';
import { testXdgCache } from '../../integration/winedbg/wineHarness.js';

export { PREFIX_TIMEOUT_MS } from '../../integration/winedbg/wineHarness.js';

// The in-process servers of a file share this process's Wine services (a persistent wineserver,
// the Wine-dbg> prompt), as one server process would; the file's end is that server's end, so
// nothing of Wine outlives the file (the leak check, helpers/leakSetup.ts, holds it to that).
afterAll(() => wineServices.close(), 120_000);

/** A dbg_start can pay for Wine's start-up and the proxy: bounds a hang, not the speed. */
export const START_MS = 240_000;

/** The server's Wine prefix, made ready before the first test (a cold one takes 10-60 s). */
export async function readyPrefix(): Promise<string> {
  process.env['XDG_CACHE_HOME'] = testXdgCache;
  return (await wineServices.prefix()).dir;
}

export function winedbgServer(): Promise<McpCaller> {
  return startInProcess(['--root', join(repoRoot, 'fixtures')]);
}

export function start(h: McpCaller, name: string, args: Record<string, unknown> = {}): Promise<CallResult> {
  return h.call('dbg_start', { backend: 'winedbg', program: windowsFixture(name), ...args }, { timeoutMs: START_MS });
}

/** argv of a process, NUL-separated entries joined by spaces ('' when it is gone). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/**
 * The processes sessions own in the prefix: programs, winedbg gdb proxies, launchers (Wine's own
 * processes and the server's shared Wine-dbg> prompt, a winedbg without --gdb, are the prefix's).
 */
export function sessionProcesses(prefixDir: string): Map<number, string> {
  return new Map(
    prefixProcesses(prefixDir)
      .filter((p) => !isSharedWineProcess(p.command))
      .map((p) => [p.pid, commandLine(p.pid)] as const)
      .filter(
        ([, line]) => /\.exe\b/i.test(line) && (line.includes('--gdb') || !/winedbg\.exe|start\.exe/i.test(line)),
      ),
  );
}

/** What a session running `image` may leave in the prefix and must not, when it is the only one. */
export function leftovers(prefixDir: string, image: string): string[] {
  return [...sessionProcesses(prefixDir)]
    .filter(([, line]) => line.includes(image) || line.includes('--gdb') || line.includes('dbgmcp-launch'))
    .map(([pid, line]) => `${pid} ${line}`);
}

/** A Windows program started with `wine` in the server's prefix, outside any session. */
export function runUnderWine(prefixDir: string, name: string): void {
  const prefix = wineServices.openedPrefix;
  if (!prefix || prefix.dir !== prefixDir) throw new Error('the server has not opened its prefix');
  const child = spawn(prefix.wineTools.wine, [windowsFixture(name)], {
    env: prefix.environment(),
    stdio: 'ignore',
    detached: true,
  });
  child.unref();
}
