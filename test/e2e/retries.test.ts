// Retries are safe, over loopback HTTP and the unix socket: dbg_start with a request_id gives a
// retry the session the first try opened (the same answer while nothing moved, the session as it
// is now after), refuses the id with other arguments, and waits for a try still under way; a
// cancelled start is closed unless it carried a request_id; a run cut short at its deadline, or
// whose answer was lost, is read later by its operation_id.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkContract } from '../helpers/mcp.js';
import { type NetClient, type NetworkServer, privateDir, startNetworkServer } from '../helpers/networkServer.js';
import { fixture } from '../helpers/paths.js';
import { alive, descendants, until } from '../helpers/procfs.js';

const ALICE = 'alice-0123456789abcdef0123456789';
const BOB = 'bob-0123456789abcdef0123456789ab';
const TRANSPORTS = [
  ['loopback HTTP', 'legacy'],
  ['the unix socket', 'auto'],
] as const;

function tokenFile(): string {
  const path = join(privateDir(), 'tokens');
  writeFileSync(path, `alice:${ALICE}\nbob:${BOB}\n`);
  chmodSync(path, 0o600);
  return path;
}

function serve(via: (typeof TRANSPORTS)[number][0]): Promise<NetworkServer> {
  const where = via === 'loopback HTTP' ? ['--http', '127.0.0.1:0'] : ['--unix', join(privateDir(), 'dbg.sock')];
  return startNetworkServer([...where, '--token-file', tokenFile()]);
}

async function call(c: NetClient, name: string, args: Record<string, unknown>) {
  const r = await c.call(name, args);
  checkContract(name, r.data, r.isError);
  return r;
}

function pidsOf(server: NetworkServer, comm: string): number[] {
  return descendants(server.child.pid)
    .filter((p) => p.comm === comm)
    .map((p) => p.pid);
}

/** Starts a call and cancels it once its progress says the program runs; resolves with the progress seen. */
async function cancelWhileRunning(
  c: NetClient,
  name: string,
  args: Record<string, unknown>,
  onRunning: () => void = () => {},
): Promise<string[]> {
  const controller = new AbortController();
  const messages: string[] = [];
  const pending = c.call(name, args, {
    signal: controller.signal,
    onprogress: (p) => {
      messages.push(p.message ?? '');
      if (/^running for/.test(p.message ?? '') && !controller.signal.aborted) {
        onRunning();
        controller.abort();
      }
    },
  });
  await expect(pending).rejects.toThrow(/abort/i);
  return messages;
}

function loggedCalls(server: NetworkServer, tool: string): number {
  return server.logs.filter((l) => l.message === 'tool call' && l.tool === tool).length;
}

/** Resolves when the server has logged `count` finished calls of `tool`. */
function callsLogged(server: NetworkServer, tool: string, count: number): Promise<unknown> {
  return until(() => loggedCalls(server, tool) >= count, `${count} ${tool} call(s) to end`, 60_000);
}

describe('dbg_start with a request_id', { timeout: 120_000 }, () => {
  for (const [via, era] of TRANSPORTS) {
    it(`gives a retry the same session, refuses the id with other arguments, over ${via}`, async () => {
      const server = await serve(via);
      const alice = await server.connect({ token: ALICE, era });
      const args = { program: fixture('crash'), args: ['segv'], request_id: 'task-1' };
      const first = await call(alice, 'dbg_start', args);
      expect(first.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGSEGV' });
      const id = first.data.session_id as string;
      // The same arguments (in another order): the first answer again, no second session.
      const again = await call(alice, 'dbg_start', { request_id: 'task-1', args: ['segv'], program: fixture('crash') });
      expect(again.data.session_id).toBe(id);
      expect(again.text).toBe(first.text);
      expect((await call(alice, 'dbg_sessions', {})).data.sessions).toHaveLength(1);
      const other = await call(alice, 'dbg_start', { ...args, args: ['assert'] });
      expect(other).toMatchObject({ isError: true, code: 'invalid_argument' });
      expect(other.data.error.message).toMatch(
        new RegExp(`^request_id: "task-1" was used with other arguments \\(session ${id}\\)`),
      );
      // Another client's task-1 is another request.
      const bob = await server.connect({ token: BOB, era });
      const bobs = await call(bob, 'dbg_start', args);
      expect(bobs.data.session_id).not.toBe(id);
      // Once the program moved on, a retry says where it is now.
      expect((await call(alice, 'dbg_run', { session_id: id, action: 'continue' })).data.outcome.kind).toBe('exited');
      const later = await call(alice, 'dbg_start', args);
      expect(later.data).toMatchObject({ session_id: id, outcome: { kind: 'exited' } });
      expect(later.text).toContain(`request_id "task-1": session ${id}, which its first try opened, as it is now`);
      // Two tries at once: one session; the second waited for the first.
      const [a, b] = await Promise.all(
        [0, 1].map(() => call(alice, 'dbg_start', { program: fixture('hello'), stop: 'main', request_id: 'task-2' })),
      );
      expect(a?.data.session_id).toBe(b?.data.session_id);
      expect((await call(alice, 'dbg_sessions', {})).data.sessions).toHaveLength(2);
      // A closed session frees its request_id: the next try opens a new one.
      await call(alice, 'dbg_close', { session_id: a?.data.session_id });
      const reopened = await call(alice, 'dbg_start', {
        program: fixture('hello'),
        stop: 'main',
        request_id: 'task-2',
      });
      expect(reopened.isError).toBe(false);
      expect(reopened.data.session_id).not.toBe(a?.data.session_id);
      expect(server.logs.filter((l) => l.message === 'dbg_start retried').length).toBeGreaterThanOrEqual(3);
    });
  }
});

describe('a cancelled dbg_start', { timeout: 120_000 }, () => {
  for (const [via, era] of TRANSPORTS) {
    it(`is closed without a request_id, and kept for its retry with one, over ${via}`, async () => {
      const server = await serve(via);
      const c = await server.connect({ token: ALICE, era });
      let spin: number[] = [];
      await cancelWhileRunning(c, 'dbg_start', { program: fixture('spin'), timeout_ms: 120_000 }, () => {
        spin = pidsOf(server, 'spin');
      });
      expect(spin).toHaveLength(1);
      await callsLogged(server, 'dbg_start', 1);
      expect((await call(c, 'dbg_sessions', {})).data.sessions).toEqual([]);
      await until(() => !alive(spin[0] as number), 'the program of the cancelled start to be killed', 10_000);
      expect(server.logs.find((l) => l.message === 'tool call' && l.tool === 'dbg_start')?.durationMs).toBeLessThan(
        120_000,
      );

      const args = { program: fixture('spin'), timeout_ms: 120_000, request_id: 'spin-1' };
      await cancelWhileRunning(c, 'dbg_start', args, () => {
        spin = pidsOf(server, 'spin');
      });
      await callsLogged(server, 'dbg_start', 2);
      // Kept: interrupted where it spun, waiting for the retry.
      const listed = (await call(c, 'dbg_sessions', {})).data.sessions;
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({ state: 'stopped', pids: spin });
      const retry = await call(c, 'dbg_start', args);
      expect(retry.isError, retry.text).toBe(false);
      expect(retry.data).toMatchObject({ session_id: listed[0].id, outcome: { kind: 'stopped' } });
      expect(retry.text).toMatch(/spin \(\) at spin\.c:8/);
      await call(c, 'dbg_close', { session_id: listed[0].id });
      await until(() => !alive(spin[0] as number), 'the program to be killed', 10_000);
    });
  }
});

describe('operations', { timeout: 120_000 }, () => {
  for (const [via, era] of TRANSPORTS) {
    it(`reads a run cut short at its deadline, and one whose answer was lost, by operation_id, over ${via}`, async () => {
      const server = await serve(via);
      const c = await server.connect({ token: ALICE, era });
      // dbg_start's wait cut short: the program waits for input that comes later.
      const started = await call(c, 'dbg_start', {
        program: fixture('stdin_echo'),
        timeout_ms: 300,
        on_timeout: 'return',
      });
      expect(started.data.outcome).toEqual({ kind: 'running' });
      const op = started.data.operation_id as string;
      expect(op).toMatch(/^[0-9a-f]{6}$/);
      expect(started.text).toContain(`dbg_run action=wait operation_id=${op}`);
      const id = started.data.session_id as string;
      expect((await call(c, 'dbg_sessions', {})).data.sessions[0].operations).toEqual([
        { id: op, action: 'dbg_start', state: 'running' },
      ]);
      await call(c, 'dbg_io', { session_id: id, action: 'write', data: 'crash\n' });
      const read = await call(c, 'dbg_run', { session_id: id, action: 'wait', operation_id: op });
      expect(read.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGSEGV' });
      expect(read.data.views.crash.hint).toMatch(/NULL pointer dereference in main at stdin_echo\.c:12/);
      expect(read.text).toContain(`operation ${op} (dbg_start) ended:`);
      // Read once.
      const twice = await call(c, 'dbg_run', { session_id: id, action: 'wait', operation_id: op });
      expect(twice).toMatchObject({ isError: true, code: 'invalid_argument' });
      expect(twice.data.error.message).toMatch(/has no operation/);
      await call(c, 'dbg_close', { session_id: id });

      // dbg_run's wait cut short, read while it still runs (same id), then read with an interrupt.
      const spin = (await call(c, 'dbg_start', { program: fixture('spin'), stop: 'main' })).data.session_id;
      const cont = await call(c, 'dbg_run', { session_id: spin, action: 'continue', timeout_ms: 300 });
      expect(cont.data.outcome).toEqual({ kind: 'running' });
      const runOp = cont.data.operation_id as string;
      const still = await call(c, 'dbg_run', {
        session_id: spin,
        action: 'wait',
        operation_id: runOp,
        timeout_ms: 300,
      });
      expect(still.data).toMatchObject({ outcome: { kind: 'running' }, operation_id: runOp });
      const ended = await call(c, 'dbg_run', {
        session_id: spin,
        action: 'wait',
        operation_id: runOp,
        timeout_ms: 300,
        on_timeout: 'interrupt',
      });
      expect(ended.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGINT' });
      expect(ended.text).toMatch(/spin \(\) at spin\.c:8/);

      // A run whose caller went away (a cancel, a dropped connection): its id was in the progress
      // notes; the program was interrupted, and the end waits to be read.
      const messages = await cancelWhileRunning(c, 'dbg_run', {
        session_id: spin,
        action: 'continue',
        timeout_ms: 120_000,
      });
      const lost = /\(operation ([0-9a-f]{6})\)$/.exec(messages.find((m) => /^running for/.test(m)) ?? '')?.[1];
      expect(lost, messages.join(' | ')).toMatch(/^[0-9a-f]{6}$/);
      // This call's own log line (the line of the call before may come later than its answer).
      await until(
        () =>
          server.logs.some(
            (l) =>
              l.message === 'tool call' &&
              l.tool === 'dbg_run' &&
              (l.arguments as { timeout_ms?: number } | undefined)?.timeout_ms === 120_000,
          ),
        'the cancelled dbg_run to end',
        60_000,
      );
      expect((await call(c, 'dbg_sessions', {})).data.sessions[0].operations).toEqual([
        { id: lost, action: 'continue', state: 'done' },
      ]);
      const found = await call(c, 'dbg_run', { session_id: spin, action: 'wait', operation_id: lost });
      expect(found.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGINT' });
      expect(found.text).toContain(`operation ${lost} (continue) ended:`);
    });
  }
});
