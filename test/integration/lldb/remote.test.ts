// The LLDB backend connected to a gdbserver (LLDB's `gdb-remote`, as lldb-dap's gdbRemotePort
// fails against gdbserver 13: docs/notes/lldb-dap.md): the first stop is where the stub holds the
// program, a continue reaches its crash with the stack and locals, closing ends the program, and
// nothing listening is said plainly.
import { describe, expect, it } from 'vitest';
import { lldbDapCandidates } from '../../../src/backends/lldb/lldbPath.js';
import { SessionManager } from '../../../src/session/sessionManager.js';
import { findOnPath } from '../../../src/util/which.js';
import { fixture, fixturesDir } from '../../helpers/paths.js';
import { alive } from '../../helpers/procfs.js';
import { freePort, printed, startProcess, waitUntil } from '../../helpers/targets.js';

const lldbDap = lldbDapCandidates()[0];
const gdbserver = findOnPath(['gdbserver']);
const WAIT_MS = 30_000;
const at = { phases: ['stopped'] as const, doing: 'test' };

describe.skipIf(lldbDap === undefined || gdbserver === undefined)(
  `the lldb backend through gdbserver (${lldbDap ?? 'no lldb-dap'}, ${gdbserver ?? 'no gdbserver'})`,
  () => {
    it('stops where the stub holds the program, runs to the crash, and ends it at close', {
      timeout: 90_000,
    }, async () => {
      const port = await freePort();
      const stub = startProcess(gdbserver as string, [`127.0.0.1:${port}`, fixture('crash'), 'segv']);
      await printed(stub, 'Listening on port');
      const m = new SessionManager({ idleTimeoutMs: 0, backends: { paths: {}, sourceRoots: [fixturesDir] } });
      try {
        const opened = await m.open(
          'lldb',
          { kind: 'remote', remote: `127.0.0.1:${port}`, program: { program: fixture('crash'), args: [] } },
          { timeoutMs: WAIT_MS },
        );
        expect(opened.outcome).toMatchObject({ kind: 'stopped', stop: { reason: 'unknown', rawReason: 'entry' } });
        const s = opened.session;
        const crash = await s.run({ action: 'continue', timeoutMs: WAIT_MS });
        expect(crash).toMatchObject({
          kind: 'stopped',
          stop: { reason: 'signal-received', signal: { name: 'SIGSEGV' }, frame: { function: 'store', line: 13 } },
        });
        const view = await s.inspect({ view: 'crash' }, at);
        expect(view.data?.view === 'crash' && view.data.hint).toMatch(
          /NULL pointer dereference in store at crash\.c:13|invalid memory access/,
        );
        const pid = stub.pid as number;
        await m.closeAll();
        await waitUntil(() => !alive(pid), 'gdbserver to end with its program', WAIT_MS);
      } finally {
        await m.closeAll();
      }
    });

    it('nothing listening: said plainly', { timeout: 60_000 }, async () => {
      const port = await freePort();
      const m = new SessionManager({ idleTimeoutMs: 0, backends: { paths: {} } });
      try {
        await expect(
          m.open('lldb', { kind: 'remote', remote: `127.0.0.1:${port}` }, { timeoutMs: WAIT_MS }),
        ).rejects.toThrow(new RegExp(`cannot connect to 127\\.0\\.0\\.1:${port}`));
        expect(m.size).toBe(0);
      } finally {
        await m.closeAll();
      }
    });
  },
);
