// An older gdb that refuses mi4 is driven through mi3. The stand-in is a wrapper around the real
// gdb that refuses mi4 exactly as gdb refuses an interpreter it lacks.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GdbBackend } from '../../../src/backends/gdb/gdbBackend.js';
import { childEnvironment } from '../../../src/process/childEnvironment.js';
import { SessionManager } from '../../../src/session/sessionManager.js';
import { fixture } from '../../helpers/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'dbg-mcp-mi3-'));
const wrapper = join(dir, 'gdb-without-mi4');
writeFileSync(
  wrapper,
  `#!/bin/sh\ncase "$1" in --interpreter=mi4) echo "Interpreter \\\`mi4' unrecognized" >&2; exit 1;; esac\nexec gdb "$@"\n`,
);
chmodSync(wrapper, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('mi3 fallback', () => {
  it('speaks mi3 to a gdb that refuses mi4, and still debugs', async () => {
    const backend = await GdbBackend.launch({ gdbPath: wrapper, env: childEnvironment(process.env) });
    try {
      expect(backend.info.protocol).toBe('mi3');
      expect(backend.info.version).toMatch(/GNU gdb/);
    } finally {
      await backend.close();
    }
    const manager = new SessionManager({ backends: { paths: { gdb: wrapper } }, idleTimeoutMs: 0 });
    try {
      const { session } = await manager.launch({ program: fixture('crash'), args: ['segv'] });
      const out = await session.run({ action: 'run', startMode: 'none', timeoutMs: 10_000 });
      expect(out).toMatchObject({
        kind: 'stopped',
        stop: { signal: { name: 'SIGSEGV' }, frame: { function: 'store' } },
      });
    } finally {
      await manager.closeAll();
    }
  });

  it('says plainly when gdb cannot be found', async () => {
    await expect(
      GdbBackend.launch({ gdbPath: join(dir, 'no-such-gdb'), env: childEnvironment(process.env) }),
    ).rejects.toMatchObject({
      code: 'backend_unavailable',
      message: expect.stringMatching(/gdb not found/),
    });
  });
});
