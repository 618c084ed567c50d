// The replay server's lifecycle, for real: rr replay on this machine (which fails here with a
// reason we must explain), and gdbserver standing in for rr's server where rr cannot replay.
import { describe, expect, it } from 'vitest';
import { spawnReplayServer, startRrReplay } from '../../../src/backends/rr/rrReplay.js';
import { childEnvironment } from '../../../src/process/childEnvironment.js';
import { DebuggerError } from '../../../src/util/errors.js';
import { findOnPath } from '../../../src/util/which.js';
import { saw } from '../../helpers/outcomes.js';
import { fixture } from '../../helpers/paths.js';
import { alive } from '../../helpers/procfs.js';
import { rrHere } from '../../helpers/rrProbe.js';

describe('replay server', () => {
  it("learns a stand-in server's address from what it prints, and leaves nothing when closed", async () => {
    const gdbserver = findOnPath(['gdbserver']);
    expect(gdbserver, 'gdbserver must be installed (.ci/run installs it)').toBeDefined();
    const server = await spawnReplayServer({
      file: gdbserver as string,
      args: ['127.0.0.1:0', fixture('hello')],
      env: childEnvironment(process.env),
      timeoutMs: 10_000,
      announcement: (text) => {
        const port = /Listening on port (\d+)/.exec(text)?.[1];
        return port ? { address: `127.0.0.1:${port}` } : undefined;
      },
      failure: (text) => new DebuggerError('backend_unavailable', text),
    });
    expect(server.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(alive(server.pid)).toBe(true);
    await server.close();
    expect(alive(server.pid)).toBe(false);
  });

  it('a server that exits before listening is an error with its reason', async (ctx) => {
    const rr = findOnPath(['rr']);
    expect(rr, 'rr must be installed (.ci/run installs it)').toBeDefined();
    const works = rrHere().records;
    const attempt = startRrReplay({
      rrPath: rr as string,
      trace: '/nonexistent/trace-0',
      env: childEnvironment(process.env),
      timeoutMs: 10_000,
    });
    await expect(attempt).rejects.toMatchObject({ code: 'backend_unavailable' });
    const message = await attempt.catch((e: Error) => e.message);
    // rr reads the trace before it opens a performance counter, so on every machine (measured on
    // AMD and AMX Intel VMs without a PMU) the reason is the missing trace, named with its path.
    expect(message).toMatch(/\/nonexistent\/trace-0.*(There is no trace there|not found)/);
    await saw(ctx, `${works ? 'rr records here' : 'rr cannot record here'}; a missing trace: ${message}`);
  });
});

describe('replay session', () => {
  it('connects, loads symbols, runs forwards and closes everything, with gdbserver standing in for rr', async () => {
    const { SessionManager } = await import('../../../src/session/sessionManager.js');
    const { RrBackend } = await import('../../../src/backends/rr/rrBackend.js');
    const { GdbBackend } = await import('../../../src/backends/gdb/gdbBackend.js');
    const gdbserver = findOnPath(['gdbserver']) as string;
    const manager = new SessionManager({ idleTimeoutMs: 0 });
    let serverPid: number | undefined;
    try {
      const opened = await manager.open(
        'rr',
        { kind: 'replay', trace: '/stand-in', program: { program: fixture('crash'), args: [] } },
        {
          timeoutMs: 10_000,
          backend: async (options) =>
            new RrBackend(
              await GdbBackend.launch({
                env: childEnvironment(process.env),
                ...(options.paths.gdb ? { gdbPath: options.paths.gdb } : {}),
              }),
              {
                rrPath: findOnPath(['rr']) as string,
                env: childEnvironment(process.env),
                timeoutMs: 10_000,
                startServer: async ({ env }) => {
                  const server = await spawnReplayServer({
                    file: gdbserver,
                    args: ['--no-startup-with-shell', '127.0.0.1:0', fixture('crash'), 'segv'],
                    env,
                    timeoutMs: 10_000,
                    announcement: (text) => {
                      const port = /Listening on port (\d+)/.exec(text)?.[1];
                      return port ? { address: `127.0.0.1:${port}` } : undefined;
                    },
                    failure: (text) => new DebuggerError('backend_unavailable', text),
                  });
                  serverPid = server.pid;
                  return server;
                },
              },
            ),
        },
      );
      const { session } = opened;
      expect(opened.outcome?.kind).toBe('stopped');
      expect(session.target.kind).toBe('replay');
      expect(session.capabilities.reverse).toBe('always');
      const crashed = await session.run({ action: 'continue', timeoutMs: 10_000 });
      expect(crashed).toMatchObject({
        kind: 'stopped',
        stop: { signal: { name: 'SIGSEGV' }, frame: { function: 'store' } },
      });
      await manager.close(session.id);
      expect(alive(serverPid)).toBe(false);
    } finally {
      await manager.closeAll();
    }
  });
});
