// Nothing of Wine outlives the server, whichever way it ends: killed (SIGKILL: only the guards
// are left to act), terminated (SIGTERM), or hung up (its stdin ends). The server is stood in
// for by wineHolder.ts, run as a process of its own; it leaves its prefix's wineserver,
// services.exe and kin running, GDBs, winedbgs, held programs and the children they started (one
// in a Unix session of its own). Afterwards no process may carry the prefix's WINEPREFIX or a
// session's mark, and no GDB may remain: an orphan reparented to init is a leak like any other.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'rolldown';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lockOwner, ownerAlive } from '../../../src/backends/winedbg/lockFile.js';
import {
  prefixProcesses,
  processesWithEnvironment,
  SESSION_VARIABLE,
} from '../../../src/backends/winedbg/wineProcesses.js';
import { repoRoot } from '../../helpers/paths.js';
import { alive, killQuietly, until } from '../../helpers/procfs.js';
import { windowsToolsMissing } from './windowsFixtures.js';
import { PREFIX_TIMEOUT_MS } from './wineHarness.js';

const missing = windowsToolsMissing();
const bundle = join(repoRoot, 'test', '.tmp', 'wineHolder.mjs');
const holders: ChildProcess[] = [];

interface Ready {
  prefix: string;
  server: number;
  sessions: string[];
  gdbs: number[];
}

async function startHolder(): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = spawn(process.execPath, [bundle], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] });
  holders.push(child);
  let err = '';
  child.stderr?.on('data', (c: Buffer) => {
    err = (err + c.toString()).slice(-4000);
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`the holder did not get ready: ${err}`)),
      PREFIX_TIMEOUT_MS - 10_000,
    );
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /^READY (.*)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(JSON.parse(m[1] as string) as Ready);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the holder exited (${code}) before it was ready: ${err}`));
    });
  });
  return { child, ready };
}

/** Everything of the run still alive: Wine processes of the prefix, marked ones, GDBs. */
function leftovers(ready: Ready): string[] {
  const left = prefixProcesses(ready.prefix).map((p) => `${p.pid} ${p.command}`);
  for (const id of ready.sessions) {
    for (const p of processesWithEnvironment(SESSION_VARIABLE, id)) left.push(`${p.pid} ${p.command} (session ${id})`);
  }
  for (const pid of ready.gdbs) if (alive(pid)) left.push(`${pid} gdb`);
  return [...new Set(left)];
}

function checkStarted(ready: Ready): void {
  const commands = prefixProcesses(ready.prefix).map((p) => p.command);
  // The shared processes, winedbg, and spawn.exe with its two children.
  expect(commands.some((c) => /wineserver/.test(c))).toBe(true);
  expect(commands.some((c) => /services\.exe/.test(c))).toBe(true);
  expect(commands.filter((c) => /winedbg\.exe/.test(c)).length).toBeGreaterThanOrEqual(3);
  expect(commands.filter((c) => /spawn\.exe/.test(c)).length).toBeGreaterThanOrEqual(4);
  expect(ready.gdbs.every(alive)).toBe(true);
}

describe.skipIf(missing !== undefined)(`nothing of Wine outlives the server${missing ? ` (${missing})` : ''}`, () => {
  beforeAll(async () => {
    mkdirSync(join(repoRoot, 'test', '.tmp'), { recursive: true });
    await build({
      input: join(repoRoot, 'test', 'integration', 'winedbg', 'wineHolder.ts'),
      platform: 'node',
      external: [/^@lydell\/node-pty/, /^rolldown/],
      output: { file: bundle, format: 'esm' },
      logLevel: 'silent',
    });
  }, PREFIX_TIMEOUT_MS);
  afterEach(() => {
    for (const h of holders.splice(0)) if (h.pid !== undefined) killQuietly(h.pid);
  });

  it(
    'SIGKILL: the guards kill every Wine process of the prefix, every marked process and every GDB',
    async () => {
      const { child, ready } = await startHolder();
      checkStarted(ready);
      child.kill('SIGKILL');
      const ms = await until(
        () => leftovers(ready).length === 0,
        `nothing left: ${leftovers(ready).join(', ')}`,
        30_000,
      );
      console.log(`after SIGKILL, everything gone in ${ms} ms`);
      // The guards see the holder's pipe close while its exit is still under way (the kernel
      // closes its files first): wait for the exit itself before reading the lease.
      if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
      // The lease names a dead owner: the next server takes the slot over.
      const owner = lockOwner(`${ready.prefix}.lease`);
      expect(owner === undefined || !ownerAlive(owner)).toBe(true);
    },
    PREFIX_TIMEOUT_MS,
  );

  it(
    'SIGTERM: an orderly close ends everything and returns the lease',
    async () => {
      const { child, ready } = await startHolder();
      checkStarted(ready);
      child.kill('SIGTERM');
      const ms = await until(
        () => leftovers(ready).length === 0,
        `nothing left: ${leftovers(ready).join(', ')}`,
        30_000,
      );
      console.log(`after SIGTERM, everything gone in ${ms} ms`);
      await until(() => child.exitCode !== null, 'the holder to exit', 10_000);
      expect(child.exitCode).toBe(0);
      expect(lockOwner(`${ready.prefix}.lease`)).toBeUndefined();
    },
    PREFIX_TIMEOUT_MS,
  );

  it(
    'hang-up (stdin ends): the same orderly close',
    async () => {
      const { child, ready } = await startHolder();
      checkStarted(ready);
      child.stdin?.end();
      const ms = await until(
        () => leftovers(ready).length === 0,
        `nothing left: ${leftovers(ready).join(', ')}`,
        30_000,
      );
      console.log(`after the hang-up, everything gone in ${ms} ms`);
      await until(() => child.exitCode !== null, 'the holder to exit', 10_000);
      expect(lockOwner(`${ready.prefix}.lease`)).toBeUndefined();
    },
    PREFIX_TIMEOUT_MS,
  );
});
