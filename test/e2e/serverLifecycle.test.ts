// However the server ends — killed, terminated, or its client gone — no gdb and no debugged
// program outlives it. How soon is bench/shutdownBench.mjs's to measure; a wait here only catches
// a hang, so a loaded machine cannot fail it.
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HANG_MS, HANG_TEST_MS } from '../helpers/outcomes.js';
import { fixture } from '../helpers/paths.js';
import { alive } from '../helpers/procfs.js';
import { RawServer } from '../helpers/rawServer.js';

async function gone(pids: number[], withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (pids.every((p) => !alive(p))) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return pids.every((p) => !alive(p));
}

async function serverWithPrograms(): Promise<{ child: ChildProcess; pids: number[] }> {
  const server = await RawServer.start();
  // One program spinning, one blocked reading its terminal, one stopped at main.
  const started = [
    await server.call('dbg_start', { program: fixture('spin'), timeout_ms: 200, on_timeout: 'return' }),
    await server.call('dbg_start', {
      program: fixture('stdin_echo'),
      stdin_eof: false,
      stdin: '',
      timeout_ms: 200,
      on_timeout: 'return',
    }),
    await server.call('dbg_start', { program: fixture('hello'), stop: 'main' }),
  ];
  const sessions = (await server.call('dbg_sessions', {})).sessions;
  expect(started.map((s) => s.session_id).sort()).toEqual(sessions.map((s: { id: string }) => s.id).sort());
  const pids = sessions.flatMap((s: { pids: number[]; debugger_pid: number }) => [...s.pids, s.debugger_pid]);
  expect(pids.length).toBe(6);
  for (const p of pids) expect(alive(p)).toBe(true);
  return { child: server.child, pids };
}

describe('server lifecycle', () => {
  it('SIGKILL of the server: gdb sees end of input and takes its program along', {
    timeout: HANG_TEST_MS,
  }, async () => {
    const { child, pids } = await serverWithPrograms();
    child.kill('SIGKILL');
    expect(await gone(pids, HANG_MS)).toBe(true);
  });

  it('SIGTERM: the shutdown path (exit code 0), nothing left', { timeout: HANG_TEST_MS }, async () => {
    const { child, pids } = await serverWithPrograms();
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await gone(pids, HANG_MS)).toBe(true);
  });

  it('the client closing stdin: the shutdown path (exit code 0), nothing left', { timeout: HANG_TEST_MS }, async () => {
    const { child, pids } = await serverWithPrograms();
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.stdin?.end();
    expect(await exited).toBe(0);
    expect(await gone(pids, HANG_MS)).toBe(true);
  });
});
