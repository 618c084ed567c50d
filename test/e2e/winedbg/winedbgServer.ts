// What the winedbg end-to-end tests share: the in-process server over the fixtures (programs in
// fixtures/c/build/windows, sources in fixtures/windows), its Wine prefix made ready once per
// test process (in the tests' shared cache, reused across runs), and a look from /proc at what
// of a session is left in the prefix.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSharedWineProcess, prefixProcesses } from '../../../src/backends/winedbg/wineProcesses.js';
import { wineServices } from '../../../src/backends/winedbg/wineServices.js';
import { startInProcess } from '../../helpers/inProcess.js';
import type { CallResult, McpCaller } from '../../helpers/mcp.js';
import { repoRoot } from '../../helpers/paths.js';
import { windowsFixture } from '../../integration/winedbg/windowsFixtures.js';
import { testXdgCache } from '../../integration/winedbg/wineHarness.js';

export { PREFIX_TIMEOUT_MS } from '../../integration/winedbg/wineHarness.js';

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
 * What a session may leave in the prefix and must not: a program running `image`, a winedbg gdb
 * proxy, a launcher. Wine's own processes and the server's shared Wine-dbg> prompt (a winedbg
 * with no --gdb) are the prefix's.
 */
export function leftovers(prefixDir: string, image: string): string[] {
  return prefixProcesses(prefixDir)
    .filter((p) => !isSharedWineProcess(p.command))
    .map((p) => ({ pid: p.pid, line: commandLine(p.pid) }))
    .filter((p) => p.line.includes(image) || p.line.includes('--gdb') || p.line.includes('dbgmcp-launch'))
    .map((p) => `${p.pid} ${p.line}`);
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
