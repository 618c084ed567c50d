// A real GDB over MI with nothing of the backend between: MiConnection on a spawned gdb, for
// integration tests that find out what GDB itself does (the launcher, the raw-command policy).
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { ProgramTerminal } from '../../src/process/programTerminal.js';
import type { MiCommandResult, MiSendOptions } from '../../src/protocols/mi/miConnection.js';
import { MiConnection } from '../../src/protocols/mi/miConnection.js';
import type { MiAsyncRecord, MiRecord } from '../../src/protocols/mi/miRecords.js';
import { WAIT_MS } from './outcomes.js';

export interface RawGdb {
  connection: MiConnection;
  child: ChildProcessWithoutNullStreams;
  terminal: ProgramTerminal;
  /** Every exec async record (`*stopped`, `*running`) so far. */
  execRecords: MiAsyncRecord[];
  /** Console and log text no command captured (what GDB says between commands). */
  streams(): string;
  send(
    operation: string,
    args?: readonly string[] | { raw: string },
    options?: MiSendOptions,
  ): Promise<MiCommandResult>;
  /** A CLI command through `-interpreter-exec console`, its console and log text captured. */
  cli(text: string, options?: MiSendOptions): Promise<MiCommandResult>;
  /** The next `*stopped` record after `since` (an index into execRecords). */
  nextStop(since: number, ms?: number): Promise<MiAsyncRecord>;
  /** Program output so far. */
  output(): string;
  close(): Promise<void>;
}

export interface RawGdbOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export async function startRawGdb(options: RawGdbOptions = {}): Promise<RawGdb> {
  const terminal = await ProgramTerminal.open();
  const child = spawn('gdb', ['--interpreter=mi4', '-nx', '-q'], {
    env: options.env ?? { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/' },
    cwd: options.cwd,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  }) as ChildProcessWithoutNullStreams;
  const execRecords: MiAsyncRecord[] = [];
  let streamText = '';
  const waiters: (() => void)[] = [];
  const connection = new MiConnection(child.stdin, {
    defaultTimeoutMs: WAIT_MS,
    onRecord: (record: MiRecord, captured: boolean) => {
      if ((record.kind === 'console' || record.kind === 'log') && !captured) streamText += record.text;
      if (record.kind !== 'exec') return;
      execRecords.push(record);
      for (const w of waiters.splice(0)) w();
    },
  });
  child.stdout.on('data', (chunk: Buffer) => connection.receive(chunk));
  child.stdin.on('error', () => {});
  child.on('exit', () => connection.fail('gdb exited'));
  const send = (operation: string, args: readonly string[] | { raw: string } = [], opts: MiSendOptions = {}) =>
    connection.send(operation, args, opts);
  for (const setting of ['mi-async on', 'pagination off', 'confirm off', 'width 0', 'height 0', 'auto-load off']) {
    await send('gdb-set', { raw: setting });
  }
  await send('inferior-tty-set', [terminal.path]);
  const gdb: RawGdb = {
    connection,
    child,
    terminal,
    execRecords,
    streams: () => streamText,
    send,
    cli: (text, opts = {}) => send('interpreter-exec', ['console', text], { captureConsole: true, ...opts }),
    async nextStop(since, ms = WAIT_MS) {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = execRecords.slice(since).find((r) => r.class === 'stopped');
        if (found) return found;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no *stopped within ${ms} ms; exec records: ${JSON.stringify(execRecords)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    output: () => terminal.output.read(0, 1 << 20).data.toString('utf8'),
    async close() {
      terminal.close();
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await exited;
    },
  };
  return gdb;
}
