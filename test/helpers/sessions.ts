// Real sessions for integration tests, closed after each test whatever happens.
import { afterEach } from 'vitest';
import type { ForkMode, LaunchSpec, TargetSpec } from '../../src/backends/debuggerBackend.js';
import type { RunOutcome, Session } from '../../src/session/session.js';
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

/** What integration tests open besides a plain launch, in the shape they were written with. */
export type TargetRequest = {
  load?: LaunchSpec;
  sysroot?: string;
  forks?: ForkMode;
  timeoutMs: number;
} & (
  | { kind: 'core'; core: string; load: LaunchSpec }
  | { kind: 'attach'; pid: number; remote?: string }
  | { kind: 'remote'; remote: string }
  | { kind: 'launch'; remote: string; load: LaunchSpec }
);

/** Opens a GDB session on a core, an attach, a stub or a gdbserver --multi launch. */
export async function openTarget(
  manager: SessionManager,
  request: TargetRequest,
): Promise<{ session: Session; outcome?: RunOutcome; warnings: string[]; generatedBy?: string }> {
  const common = {
    ...(request.sysroot !== undefined ? { sysroot: request.sysroot } : {}),
    ...(request.forks ? { forks: request.forks } : {}),
    ...(request.load ? { program: request.load } : {}),
  };
  let target: TargetSpec;
  switch (request.kind) {
    case 'core':
      target = { kind: 'core', core: request.core, ...common, program: request.load };
      break;
    case 'attach':
      target = { kind: 'attach', pid: request.pid, ...(request.remote ? { remote: request.remote } : {}), ...common };
      break;
    case 'remote':
      target = { kind: 'remote', remote: request.remote, ...common };
      break;
    case 'launch':
      target = { kind: 'launch', remote: request.remote, ...common, program: request.load };
      break;
  }
  const opened = await manager.open('gdb', target, { timeoutMs: request.timeoutMs });
  return {
    session: opened.session,
    ...(opened.outcome ? { outcome: opened.outcome } : {}),
    warnings: opened.report.warnings,
    ...(opened.report.generatedBy ? { generatedBy: opened.report.generatedBy } : {}),
  };
}

/** A loaded session that follows forks as `mode` says. */
export async function loadedWithForks(name: string, mode: ForkMode, manager = newManager()): Promise<Session> {
  const { session } = await manager.open(
    'gdb',
    { kind: 'launch', program: { program: fixture(name), args: [] }, forks: mode },
    { timeoutMs: 30_000 },
  );
  return session;
}
