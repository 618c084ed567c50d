// A session on an rr recording: rr's replay server starts first (it names the trace's copy of
// the program), GDB loads that program, learns rr's own commands (when, checkpoint, restart N)
// from `rr gdbinit`, and connects. Every forward and reverse action works on it, and each stop
// carries its position in the trace.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GdbBackend } from '../backends/gdb/gdbBackend.js';
import { connectRemote } from '../backends/gdb/gdbTargets.js';
import { type ReplayServer, startRrReplay } from '../backends/rr/rrReplay.js';
import type { StopEvent } from '../model/model.js';
import { childEnvironment } from '../process/childEnvironment.js';
import { DebuggerError } from '../util/errors.js';
import type { SessionManager } from './sessionManager.js';
import type { OpenedTarget, TargetRequest } from './sessionTargets.js';

const run = promisify(execFile);

type ReplayRequest = Extract<TargetRequest, { kind: 'replay' }>;

/** rr's gdb commands, sourced into our GDB as rr's own launcher does. */
async function loadRrCommands(gdb: GdbBackend, rrPath: string): Promise<void> {
  const { stdout } = await run(rrPath, ['gdbinit'], { timeout: 10_000 });
  const dir = mkdtempSync(join(tmpdir(), 'dbg-mcp-rrinit-'));
  try {
    const file = join(dir, 'rr.gdbinit');
    writeFileSync(file, stdout, { mode: 0o600 });
    await gdb.command(`source ${file}`, { timeoutMs: 10_000 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function firstNumber(text: string): number | undefined {
  const m = /(\d+)/.exec(text);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/** The stop's place in the trace: rr's event number and the current thread's ticks. */
async function readPosition(gdb: GdbBackend, stop: StopEvent): Promise<void> {
  const event = firstNumber((await gdb.command('when', { timeoutMs: 2000 })).output);
  const ticks = firstNumber((await gdb.command('when-ticks', { timeoutMs: 2000 })).output);
  if (event !== undefined || ticks !== undefined) {
    stop.when = { ...(event !== undefined ? { event } : {}), ...(ticks !== undefined ? { ticks } : {}) };
  }
}

/**
 * Opens a replay. `startServer` is rr's replay server unless a test stands another GDB remote
 * server in for it (rr cannot record or replay on machines without performance counters).
 */
export async function openReplay(
  manager: SessionManager,
  request: ReplayRequest,
  signal?: AbortSignal,
  startServer: (env: Record<string, string>) => Promise<ReplayServer> = (env) =>
    startRrReplay({
      rrPath: request.rrPath,
      trace: request.trace,
      ...(request.pid !== undefined ? { pid: request.pid } : {}),
      env,
      timeoutMs: request.timeoutMs,
    }),
): Promise<OpenedTarget> {
  const server = await startServer(childEnvironment(process.env, manager.options.passthroughEnv));
  let session: Awaited<ReturnType<SessionManager['create']>> | undefined;
  try {
    const program = request.load?.program ?? server.program;
    if (!program) {
      throw new DebuggerError('invalid_argument', 'program: rr did not name the recorded program; give program', {
        field: 'program',
      });
    }
    session = await manager.create({ kind: 'replay', program, args: [], trace: request.trace }, { noTerminal: true });
    session.addCleanup(server.close);
    session.reversible = true;
    const warnings = [...(await session.load({ program, args: [] }, signal)).warnings];
    const gdb = session.backend;
    if (!(gdb instanceof GdbBackend)) throw new DebuggerError('internal', 'a replay needs the gdb backend');
    await loadRrCommands(gdb, request.rrPath);
    gdb.addStopProbe((stop) => readPosition(gdb, stop));
    const outcome = await session.open(
      () => connectRemote(gdb, server.address, true, { signal }),
      request.timeoutMs,
      signal,
    );
    return { session, outcome, warnings };
  } catch (e) {
    if (session) await manager.close(session.id);
    else await server.close();
    throw e;
  }
}
