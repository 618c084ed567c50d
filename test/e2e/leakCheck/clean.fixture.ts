// Run only by leakCheck.test.ts (see leaves.fixture.ts): a test that starts a program and ends it,
// so the leak check must pass.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { expect, it } from 'vitest';

it('starts spin and ends it', async () => {
  const child = spawn(join(process.env['DBG_MCP_LEAK_CHECKOUT'] as string, 'spin'), [], {
    detached: true,
    stdio: 'ignore',
  });
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  expect((await exited)[1]).toBe('SIGKILL');
});
