// Run only by leakCheck.test.ts, in a vitest of its own (leakCheck/vitest.config.ts): a test that
// leaves a program running, so the leak check must fail and name it.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';

it('starts spin and leaves it running', () => {
  const child = spawn(join(process.env['DBG_MCP_LEAK_CHECKOUT'] as string, 'spin'), [], {
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
  expect(child.pid).toBeGreaterThan(0);
  console.log(`leaked pid ${child.pid}`);
});
