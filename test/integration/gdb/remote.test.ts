// gdbserver: `target remote` to a program it started, extended-remote (gdbserver --multi) to
// run and attach, and the two ways a link fails: refused at the start, dropped later.
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { type CrashViewData, gatherView } from '../../../src/session/evidence.js';
import { expectExited, expectStopped, failure, WAIT_MS, waitForPhase } from '../../helpers/outcomes.js';
import { fixture } from '../../helpers/paths.js';
import { newManager, openTarget } from '../../helpers/sessions.js';
import { freePort, printed, requireTool, startProcess, traceState, waitUntil } from '../../helpers/targets.js';

/** gdbserver on a free loopback port: `--once` with a program and its arguments, or `--multi`. */
async function gdbserver(
  mode: '--once' | '--multi',
  program: string[] = [],
): Promise<{ server: ChildProcess; address: string }> {
  const path = requireTool('gdbserver', 'gdbserver');
  const port = await freePort();
  // No shell between gdbserver and the program (as dbg-mcp starts programs itself).
  const server = startProcess(path, [mode, '--no-startup-with-shell', `127.0.0.1:${port}`, ...program]);
  await printed(server, 'Listening on port');
  return { server, address: `127.0.0.1:${port}` };
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

const load = (name: string, args: string[] = []) => ({ program: fixture(name), args });

describe('gdbserver', () => {
  it('target remote: the program waits at its entry, runs on to its crash, and the crash view is whole', async () => {
    const { server, address } = await gdbserver('--once', [fixture('crash'), 'segv']);
    const { session, outcome } = await openTarget(newManager(), {
      kind: 'remote',
      remote: address,
      load: load('crash'),
      timeoutMs: WAIT_MS,
    });
    expect(expectStopped(outcome ?? { kind: 'running' }).stop.frame?.function).toBe('_start');
    const { stop } = expectStopped(await session.run({ action: 'continue', timeoutMs: WAIT_MS }));
    expect(stop.signal?.name).toBe('SIGSEGV');
    expect(stop.faultAddress).toBe('0x0');
    const view = await session.query(['stopped'], 'crash', (b) => gatherView(b, session.snapshot, { view: 'crash' }));
    expect((view.data as CrashViewData).hint).toMatch(/^NULL pointer dereference in store at crash\.c:13/);
    expect(session.target).toMatchObject({ kind: 'remote', remote: address });
    await session.close();
    await exited(server); // GDB ended the program, and gdbserver --once with it
  });

  it('a connection refused is an error that says what to start', async () => {
    const port = await freePort();
    // Refused: it gives up after its retry window and says so (waiting out the whole deadline
    // would fail with a timeout instead of this message).
    const f = await failure(
      openTarget(newManager(), { kind: 'remote', remote: `127.0.0.1:${port}`, timeoutMs: WAIT_MS }),
    );
    expect(f.code).toBe('debugger_error');
    expect(f.message).toMatch(
      new RegExp(
        `^cannot connect to 127\\.0\\.0\\.1:${port}: nothing accepted the connection \\(refused for \\d\\.\\d s\\): start gdbserver`,
      ),
    );
  });

  it('a dropped connection makes the session dead with the reason', async () => {
    const { server, address } = await gdbserver('--once', [fixture('spin')]);
    const { session } = await openTarget(newManager(), {
      kind: 'remote',
      remote: address,
      load: load('spin'),
      timeoutMs: WAIT_MS,
    });
    expect((await session.run({ action: 'continue', timeoutMs: 300 })).kind).toBe('running');
    server.kill('SIGKILL');
    await waitForPhase(session, ['dead']);
    const state = session.snapshot.state;
    // GDB says "Remote connection closed", or "Remote communication error" when the reset comes first.
    const reason = state.phase === 'dead' ? state.reason : '';
    expect(reason.startsWith(`the connection to ${address} was lost (Remote `)).toBe(true);
    expect(reason).toMatch(/\(Remote (connection closed|communication error)/);
    const f = await failure(session.run({ action: 'continue' }));
    expect(f.message).toMatch(/the debugger is gone \(the connection to .* was lost/);
  });

  it('extended-remote runs the program through gdbserver --multi, again on restart', async () => {
    const { server, address } = await gdbserver('--multi');
    const { session, outcome } = await openTarget(newManager(), {
      kind: 'launch',
      remote: address,
      load: load('exitcode', ['3']),
      timeoutMs: WAIT_MS,
    });
    expect(outcome).toBeUndefined();
    expect(session.phase).toBe('loaded');
    expect(expectExited(await session.run({ action: 'run', startMode: 'none', timeoutMs: WAIT_MS })).code).toBe(3);
    const second = expectStopped(await session.run({ action: 'restart', startMode: 'main', timeoutMs: WAIT_MS }));
    expect(second.stop.frame?.function).toBe('main');
    await session.close();
    expect(server.exitCode).toBeNull(); // a --multi server outlives its clients
  });

  it('extended-remote attaches to a running process and detaches on close', async () => {
    const { address } = await gdbserver('--multi');
    const spin = startProcess(fixture('spin'));
    await printed(spin, 'spinning');
    const pid = spin.pid ?? 0;
    const { session, outcome } = await openTarget(newManager(), {
      kind: 'attach',
      pid,
      remote: address,
      timeoutMs: WAIT_MS,
    });
    const { stop } = expectStopped(outcome ?? { kind: 'running' });
    expect(stop.signal).toBeUndefined(); // gdbserver reports the attach as "signal 0": no signal at all
    expect(stop.frame?.function).toBe('spin');
    expect(traceState(pid)?.tracerPid).not.toBe(0);
    await session.close();
    await waitUntil(() => traceState(pid)?.tracerPid === 0, 'gdbserver to let go of the process');
    expect(traceState(pid)?.state).toBe('R');
  });
});
