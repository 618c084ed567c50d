// Real sessions for integration tests, closed after each test whatever happens.
import { afterEach } from 'vitest';
import type { Session } from '../../src/session/session.js';
import { SessionManager } from '../../src/session/sessionManager.js';
import { fixture } from './paths.js';

const managers: SessionManager[] = [];

afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.closeAll()));
});

export function newManager(): SessionManager {
  const m = new SessionManager({ idleTimeoutMs: 0 });
  managers.push(m);
  return m;
}

/** A loaded (not started) session on a fixture program. */
export async function loaded(name: string, args: string[] = [], manager = newManager()): Promise<Session> {
  const { session } = await manager.launch({ program: fixture(name), args });
  return session;
}
