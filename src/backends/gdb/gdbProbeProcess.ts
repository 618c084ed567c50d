// A short-lived GDB for probes (does this machine's hardware debugging work? can it call
// functions?): MI over pipes, its own process group, no init files, the program's terminal on
// /dev/null, and a close that leaves nothing behind whatever state it was left in. It is not a
// session backend: no pty, no events beyond the stops a probe waits for.

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { guardSession, releaseSession } from '../../process/orphanGuard.js';
import { identify } from '../../process/processTree.js';
import { spawnInGroup, stopGroup } from '../../process/spawnGroup.js';
import { type MiCommandResult, MiConnection, type MiSendOptions } from '../../protocols/mi/miConnection.js';
import type { MiTuple } from '../../protocols/mi/miRecords.js';
import { DebuggerError } from '../../util/errors.js';

export interface GdbProbeProcessOptions {
  gdbPath: string;
  env: Record<string, string>;
  /** Deadline of each command; probes only ever wait this long to catch a hang. */
  commandTimeoutMs?: number;
  /** Where the program's stdin/stdout/stderr go (GDB's `tty`); default /dev/null. */
  programTerminal?: string;
  /**
   * Read separate debug files (/usr/lib/debug). Off by default: with libc6-dbg installed, GDB
   * reads libc's and ld.so's DWARF while the program starts (measured: a continue through the
   * loader took 124 ms with them and 12 ms without), and no probe needs them.
   */
  separateDebugInfo?: boolean;
}

/** What ended a wait for the program: a stop (or exit), an unasked error line of GDB's, or nothing. */
export type ProbeRunEnd = { stop: MiTuple } | { error: string } | { none: string };

export class GdbProbeProcess {
  private readonly stops: MiTuple[] = [];
  private waiter: ((stop: MiTuple | undefined) => void) | undefined;
  /** Told of GDB's unasked log lines (`&"…"`) while someone waits in `runUntilStopOrError`. */
  private logWaiter: ((text: string) => void) | undefined;
  private exited = false;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    readonly connection: MiConnection,
    private readonly commandTimeoutMs: number,
  ) {}

  /** Starts gdb and sends the settings every probe wants, pipelined. */
  static async start(options: GdbProbeProcessOptions): Promise<GdbProbeProcess> {
    const commandTimeoutMs = options.commandTimeoutMs ?? 10_000;
    const child = spawnInGroup(options.gdbPath, ['--interpreter=mi4', '-nx', '-q'], { env: options.env });
    let self: GdbProbeProcess | undefined;
    const connection = new MiConnection(
      { write: (chunk) => child.stdin.write(chunk) },
      {
        defaultTimeoutMs: commandTimeoutMs,
        onRecord: (record, captured) => {
          if (record.kind === 'exec' && record.class === 'stopped') self?.pushStop(record.results);
          else if (record.kind === 'log' && !captured) self?.logWaiter?.(record.text);
        },
      },
    );
    self = new GdbProbeProcess(child, connection, commandTimeoutMs);
    const started = self;
    const spawnFailed = new Promise<never>((_, reject) => {
      child.once('error', (e) => {
        started.exited = true;
        connection.fail(`could not start ${options.gdbPath}: ${e.message}`);
        reject(new DebuggerError('backend_unavailable', `could not start ${options.gdbPath}: ${e.message}`));
      });
    });
    spawnFailed.catch(() => {});
    child.stdin.on('error', () => {});
    child.stdout.on('data', (chunk: Buffer) => connection.receive(chunk));
    child.stdout.on('end', () => connection.receiveEnd());
    child.stderr.resume();
    child.on('exit', (code, signal) => {
      started.exited = true;
      connection.fail(`gdb exited (${signal ?? `code ${code}`})`);
      started.pushStop(undefined);
    });
    if (child.pid !== undefined) guardSession(identify(child.pid));
    const set = (text: string): Promise<MiCommandResult> => connection.send('gdb-set', { raw: text });
    try {
      await Promise.race([
        spawnFailed,
        Promise.all([
          set('confirm off'),
          set('pagination off'),
          set('width 0'),
          set('auto-load off'),
          set('startup-with-shell off'),
          connection.send('inferior-tty-set', [options.programTerminal ?? '/dev/null']),
          ...(options.separateDebugInfo ? [] : [set('debug-file-directory')]),
          // Older or differently built GDBs lack it; without it nothing is fetched anyway here.
          set('debuginfod enabled off').catch(() => undefined),
        ]),
      ]);
    } catch (e) {
      await started.close();
      throw e;
    }
    return started;
  }

  send(operation: string, args: readonly string[] | { raw: string } = [], options?: MiSendOptions) {
    return this.connection.send(operation, args, options);
  }

  /** A CLI command for what MI lacks (starti, kill), with its console text. */
  cli(text: string, options: MiSendOptions = {}): Promise<MiCommandResult> {
    return this.connection.send('interpreter-exec', ['console', text], { captureConsole: true, ...options });
  }

  /** `-data-evaluate-expression`: the value text. */
  async evaluate(expression: string): Promise<string> {
    const r = await this.connection.send('data-evaluate-expression', [expression]);
    const value = r.results['value'];
    if (typeof value !== 'string') throw new DebuggerError('debugger_error', `no value for ${expression}`);
    return value;
  }

  /**
   * The next `*stopped` record (stops and exits alike), or undefined when gdb died or the wait
   * passed its deadline. Stops that arrive before anyone waits are queued, never lost.
   */
  nextStop(timeoutMs = this.commandTimeoutMs): Promise<MiTuple | undefined> {
    const queued = this.stops.shift();
    if (queued) return Promise.resolve(queued);
    if (this.exited) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        resolve(undefined);
      }, timeoutMs);
      timer.unref();
      this.waiter = (stop) => {
        clearTimeout(timer);
        this.waiter = undefined;
        resolve(stop);
      };
    });
  }

  /** Resumes (`-exec-continue`, or a CLI `starti`) and waits for the stop it leads to. */
  async resume(
    start: () => Promise<unknown> = () => this.connection.send('exec-continue'),
  ): Promise<MiTuple | undefined> {
    this.stops.length = 0;
    await start();
    return this.nextStop();
  }

  /**
   * Resumes with `start` and waits, up to `timeoutMs`, for the stop, or for the first unasked
   * error line GDB writes meanwhile (warnings aside): a run that GDB cannot carry out may print
   * the same error for ever without a stop (process record on an AMX CPU, GDB 13).
   */
  async runUntilStopOrError(start: () => Promise<unknown>, timeoutMs: number): Promise<ProbeRunEnd> {
    this.stops.length = 0;
    let onError: ((text: string) => void) | undefined;
    const error = new Promise<ProbeRunEnd>((resolve) => {
      onError = (text) => {
        if (/^warning:/i.test(text.trim())) return;
        resolve({ error: text.trim() });
      };
    });
    this.logWaiter = onError;
    try {
      await start();
      const stop = this.nextStop(timeoutMs).then(
        (s): ProbeRunEnd => (s ? { stop: s } : { none: this.exited ? 'gdb exited' : `no stop within ${timeoutMs} ms` }),
      );
      return await Promise.race([stop, error]);
    } finally {
      this.logWaiter = undefined;
      if (this.waiter) this.waiter(undefined);
    }
  }

  /** Kills the program, asks gdb to quit, then makes sure its whole process group is gone. */
  async close(): Promise<void> {
    const pid = this.child.pid;
    if (!this.exited) {
      // Each may fail (no program, gdb already going): the group sweep below is the guarantee.
      await this.cli('kill', { timeoutMs: 2000 }).catch(() => undefined);
      await this.connection.send('gdb-exit', [], { timeoutMs: 2000 }).catch(() => undefined);
    }
    await stopGroup(this.child, { termAfterMs: 1000, killAfterMs: 1000 });
    if (pid !== undefined) releaseSession(pid);
  }

  private pushStop(stop: MiTuple | undefined): void {
    if (this.waiter) this.waiter(stop);
    else if (stop) this.stops.push(stop);
  }
}
