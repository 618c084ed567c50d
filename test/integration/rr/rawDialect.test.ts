// Raw commands under --raw read are read in the session's dialect: rr's own (`when`, `checkpoint`,
// `restart N`) on a replay session, plain GDB's elsewhere, where `checkpoint` forks the live
// program by a call into it. rr cannot record here, so gdbserver stands in for rr's replay server
// (as in replayServer.test.ts): what is checked is the policy's verdict on each session, not rr.
import { afterAll, describe, expect, it } from 'vitest';
import { GdbBackend } from '../../../src/backends/gdb/gdbBackend.js';
import { RrBackend } from '../../../src/backends/rr/rrBackend.js';
import { spawnReplayServer } from '../../../src/backends/rr/rrReplay.js';
import { childEnvironment } from '../../../src/process/childEnvironment.js';
import type { Session } from '../../../src/session/session.js';
import { SessionManager } from '../../../src/session/sessionManager.js';
import { DebuggerError } from '../../../src/util/errors.js';
import { findOnPath } from '../../../src/util/which.js';
import { fixture } from '../../helpers/paths.js';
import { loaded } from '../../helpers/sessions.js';

const manager = new SessionManager({ idleTimeoutMs: 0 });

afterAll(() => manager.closeAll());

async function replaySession(): Promise<Session> {
  const gdbserver = findOnPath(['gdbserver']);
  const rr = findOnPath(['rr']);
  if (!gdbserver || !rr) throw new Error('gdbserver and rr must be installed (.ci/run installs them)');
  const opened = await manager.open(
    'rr',
    { kind: 'replay', trace: '/stand-in', program: { program: fixture('data'), args: [] } },
    {
      timeoutMs: 10_000,
      backend: async () =>
        new RrBackend(await GdbBackend.launch({ env: childEnvironment(process.env) }), {
          rrPath: rr,
          env: childEnvironment(process.env),
          timeoutMs: 10_000,
          startServer: ({ env }) =>
            spawnReplayServer({
              file: gdbserver,
              args: ['--no-startup-with-shell', '127.0.0.1:0', fixture('data')],
              env,
              timeoutMs: 10_000,
              announcement: (text) => {
                const port = /Listening on port (\d+)/.exec(text)?.[1];
                return port ? { address: `127.0.0.1:${port}` } : undefined;
              },
              failure: (text) => new DebuggerError('backend_unavailable', text),
            }),
        }),
    },
  );
  expect(opened.outcome?.kind).toBe('stopped');
  return opened.session;
}

/** The policy's refusal of `command` on `session`, or undefined when the policy let it through. */
async function policyRefusal(session: Session, command: string): Promise<string | undefined> {
  try {
    const phases = ['loaded', 'stopped', 'running', 'exited'] as const;
    await session.command(command, { policy: 'read', timeoutMs: 5000 }, { phases, doing: 'run a raw command' });
    return undefined;
  } catch (e) {
    return e instanceof DebuggerError && e.reason === 'policy' ? e.message : undefined;
  }
}

describe('the raw-command dialect follows the session', () => {
  it("an rr session allows rr's when, checkpoint and restart N, and refuses its back and bare restart", async () => {
    const session = await replaySession();
    expect(session.capabilities.rawDialect).toBe('rr');
    expect(await policyRefusal(session, 'back')).toMatch(/dbg_run's/);
    expect(await policyRefusal(session, 'restart')).toMatch(/number of a checkpoint/);
    expect(await policyRefusal(session, 'eval "shell id"')).toMatch(/`eval` builds a command/);
    // Last: rr's `restart N` is `run cN`, which a stand-in server takes as a plain run.
    for (const command of ['when', 'when-ticks', 'checkpoint', 'restart 1']) {
      expect(await policyRefusal(session, command), command).toBeUndefined();
    }
    await manager.close(session.id);
  });

  it('a GDB session refuses them: checkpoint forks the live program, when is not a GDB command', async () => {
    const s = await loaded('data');
    await s.run({ action: 'run', startMode: 'main', timeoutMs: 10_000 });
    expect(s.capabilities.rawDialect).toBe('gdb');
    expect(await policyRefusal(s, 'checkpoint')).toMatch(/forks it/);
    expect(await policyRefusal(s, 'restart 1')).toMatch(/forks it/);
    expect(await policyRefusal(s, 'when')).toMatch(/not a GDB command/);
    await s.close();
  });
});
