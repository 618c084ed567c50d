// Run only by leakCheck.test.ts (see leaves.fixture.ts): a test that starts a program and ends it,
// so the leak check must pass.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect, it } from 'vitest';
import { fixture } from '../../helpers/paths.js';

it('starts spin and ends it', async () => {
  const child = spawn(fixture('spin'), [], { detached: true, stdio: 'ignore' });
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  expect((await exited)[1]).toBe('SIGKILL');
});
