// The built server with Windows sessions, ended the ways a server ends: its client hangs up (stdin
// closed) or it is killed (SIGKILL: only its guards are left to act). Afterwards nothing of its
// Wine prefix may run: not the sessions' programs, winedbgs and launchers, not what a program
// started in a console of its own, and not Wine's own processes (wineserver, services.exe,
// winedevice.exe, explorer.exe, plugplay.exe, svchost.exe, rpcss.exe); a process reparented to
// init is a leak like any other. No GDB of the server may remain either.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prefixProcesses } from '../../../src/backends/winedbg/wineProcesses.js';
import { repoRoot } from '../../helpers/paths.js';
import { alive, environOf, killQuietly, until } from '../../helpers/procfs.js';
import { RawServer } from '../../helpers/rawServer.js';
import { windowsFixture, windowsToolsMissing } from '../../integration/winedbg/windowsFixtures.js';
import { testXdgCache } from '../../integration/winedbg/wineHarness.js';
import { START_MS } from './winedbgServer.js';

const missing =
  windowsToolsMissing() ??
  (existsSync(join(repoRoot, 'dist', 'dbg-mcp.js')) ? undefined : 'dist/dbg-mcp.js not built: npm run build');
/**
 * Wine's own processes of a prefix. The first two always run; the others as Wine needs them
 * (explorer.exe for a desktop, rpcss.exe for COM): those seen are named in the log. Every process
 * of the prefix must be gone afterwards, these included.
 */
const WINE_ALWAYS = ['wineserver', 'services.exe'];
const WINE_AT_TIMES = ['winedevice.exe', 'explorer.exe', 'plugplay.exe', 'svchost.exe', 'rpcss.exe'];
const servers: RawServer[] = [];

afterEach(() => {
  for (const s of servers.splice(0)) if (s.child.pid !== undefined) killQuietly(s.child.pid);
});

interface Started {
  server: RawServer;
  prefix: string;
  gdbs: number[];
}

/** The server with three Windows sessions: one spinning, one whose child has a console of its own, one stopped. */
async function serverWithSessions(): Promise<Started> {
  // The tests' shared cache: its prefixes are made once per machine.
  const server = await RawServer.start([], { XDG_CACHE_HOME: testXdgCache });
  servers.push(server);
  const start = async (args: Record<string, unknown>): Promise<string> => {
    const r = await server.callTool('dbg_start', { backend: 'winedbg', ...args });
    expect(r.isError, r.text).toBe(false);
    return r.data.session_id;
  };
  await start({ program: windowsFixture('hang'), timeout_ms: 500, on_timeout: 'return' });
  await start({ program: windowsFixture('spawn'), args: ['new-console'], timeout_ms: 2000, on_timeout: 'return' });
  await start({ program: windowsFixture('locals'), stop: 'main' });
  const sessions = (await server.call('dbg_sessions', {})).sessions as { pids: number[]; debugger_pid: number }[];
  expect(sessions).toHaveLength(3);
  const program = sessions[0]?.pids[0] as number;
  const prefix = environOf(program).get('WINEPREFIX') as string;
  expect(prefix, `the program ${program} runs in the server's prefix`).toMatch(/wine-prefix/);
  const gdbs = sessions.map((s) => s.debugger_pid);
  const commands = prefixProcesses(prefix).map((p) => p.command);
  for (const name of WINE_ALWAYS) {
    expect(
      commands.some((c) => c.includes(name)),
      `${name} among ${commands.join(', ')}`,
    ).toBe(true);
  }
  console.log(`also running: ${WINE_AT_TIMES.filter((name) => commands.some((c) => c.includes(name))).join(', ')}`);
  // spawn.exe and its child, in a Unix session of its own.
  expect(commands.filter((c) => /spawn\.exe/.test(c)).length).toBeGreaterThanOrEqual(2);
  expect(gdbs.every(alive)).toBe(true);
  return { server, prefix, gdbs };
}

function leftovers({ prefix, gdbs }: Started): string[] {
  return [...prefixProcesses(prefix).map((p) => `${p.pid} ${p.command}`), ...gdbs.filter(alive).map((p) => `${p} gdb`)];
}

/** Waits (a bound for a hang only) until nothing is left; fails naming what still runs. */
async function nothingLeft(started: Started): Promise<void> {
  try {
    await until(() => leftovers(started).length === 0, 'the prefix to empty', 60_000);
  } catch {
    expect(leftovers(started)).toEqual([]);
  }
}

describe.skipIf(missing !== undefined)(`nothing of Wine outlives the server${missing ? ` (${missing})` : ''}`, () => {
  it('the client hangs up: the server closes every session, then the prefix, and exits 0', {
    timeout: 2 * START_MS,
  }, async () => {
    const started = await serverWithSessions();
    started.server.child.stdin?.end();
    const exit = await started.server.exited;
    expect(exit.code).toBe(0);
    await nothingLeft(started);
  });

  it('SIGKILL: the guards take every process of the prefix and every GDB', { timeout: 2 * START_MS }, async () => {
    const started = await serverWithSessions();
    started.server.child.kill('SIGKILL');
    expect((await started.server.exited).signal).toBe('SIGKILL');
    await nothingLeft(started);
  });
});
