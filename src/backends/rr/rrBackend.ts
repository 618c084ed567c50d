// rr's replay as a backend: rr's replay server starts first (it names the trace's copy of the
// program), the GDB backend loads that program, learns rr's own commands (when, checkpoint,
// restart N) from `rr gdbinit`, and connects. Every forward and reverse action works on it, and
// each stop carries its position in the trace.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { StopEvent } from '../../model/model.js';
import { DebuggerError } from '../../util/errors.js';
import type { BackendCapabilities, OpenReport, TargetSpec } from '../debuggerBackend.js';
import { DelegatingBackend } from '../delegatingBackend.js';
import { GDB_CAPABILITIES, type GdbBackend } from '../gdb/gdbBackend.js';
import { loadProgram } from '../gdb/gdbLaunch.js';
import { connectRemote } from '../gdb/gdbTargets.js';
import { type ReplayServer, startRrReplay } from './rrReplay.js';

const run = promisify(execFile);

export const RR_CAPABILITIES: BackendCapabilities = {
  ...GDB_CAPABILITIES,
  targets: ['replay'],
  reverse: 'always',
  record: false,
  forks: false,
  sysroot: false,
  programTerminal: false,
  rawDialect: 'rr',
};

/** Starts the replay server of a trace; a test may stand another GDB remote server in for rr's. */
export type ReplayServerStarter = (request: {
  trace: string;
  pid?: number;
  env: Record<string, string>;
  timeoutMs: number;
}) => Promise<ReplayServer>;

export interface RrBackendOptions {
  rrPath: string;
  /** The environment rr runs with (already filtered). */
  env: Record<string, string>;
  /** How long the replay server may take to announce itself. */
  timeoutMs: number;
  startServer?: ReplayServerStarter;
}

function firstNumber(text: string): number | undefined {
  const m = /(\d+)/.exec(text);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

export class RrBackend extends DelegatingBackend<GdbBackend> {
  readonly capabilities = RR_CAPABILITIES;
  private server: ReplayServer | undefined;

  constructor(
    gdb: GdbBackend,
    private readonly options: RrBackendOptions,
  ) {
    super(gdb);
  }

  async open(target: TargetSpec, signal?: AbortSignal): Promise<OpenReport> {
    if (target.kind !== 'replay') {
      throw new DebuggerError('invalid_argument', 'the rr backend replays a trace: give trace');
    }
    const start: ReplayServerStarter =
      this.options.startServer ?? ((r) => startRrReplay({ rrPath: this.options.rrPath, ...r }));
    this.server = await start({
      trace: target.trace,
      ...(target.pid !== undefined ? { pid: target.pid } : {}),
      env: this.options.env,
      timeoutMs: this.options.timeoutMs,
    });
    const server = this.server;
    const program = target.program?.program ?? server.program;
    if (!program) {
      throw new DebuggerError('invalid_argument', 'program: rr did not name the recorded program; give program', {
        field: 'program',
      });
    }
    const gdb = this.inner.context;
    const { warnings } = await loadProgram(gdb, { program, args: [] }, signal);
    await this.loadRrCommands();
    this.inner.addStopProbe((stop) => this.readPosition(stop));
    await connectRemote(gdb, server.address, true, { signal });
    return { warnings, program, reportsStop: true };
  }

  /** rr's gdb commands, sourced into our GDB as rr's own launcher does. */
  private async loadRrCommands(): Promise<void> {
    const { stdout } = await run(this.options.rrPath, ['gdbinit'], { timeout: 10_000 });
    const dir = mkdtempSync(join(tmpdir(), 'dbg-mcp-rrinit-'));
    try {
      const file = join(dir, 'rr.gdbinit');
      writeFileSync(file, stdout, { mode: 0o600 });
      await this.inner.cliText(`source ${file}`, { timeoutMs: 10_000 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** The stop's place in the trace: rr's event number and the current thread's ticks. */
  private async readPosition(stop: StopEvent): Promise<void> {
    const said = async (command: string): Promise<string> =>
      (await this.inner.cliText(command, { timeoutMs: 2000, captureConsole: true })).console;
    const event = firstNumber(await said('when'));
    const ticks = firstNumber(await said('when-ticks'));
    if (event !== undefined || ticks !== undefined) {
      stop.when = { ...(event !== undefined ? { event } : {}), ...(ticks !== undefined ? { ticks } : {}) };
    }
  }

  override async close(): Promise<void> {
    try {
      await this.inner.close();
    } finally {
      // The replay server goes after the debugger that talks to it.
      await this.server?.close();
    }
  }
}
