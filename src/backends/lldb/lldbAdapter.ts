// One lldb-dap process and its connection: spawned in its own process group (one signal reaches
// lldb-server and the program too), watched by the orphan guard, initialized, and stopped. The
// backend may go through several: lldb-dap 22 stops reporting a process's events for good once
// one has exited (its event thread ends at the exit: measured, and so its source reads), so a
// program run again after an exit or a kill gets a new adapter (LldbBackend.relaunch).

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { guardSession, releaseSession } from '../../process/orphanGuard.js';
import { identify, type ProcessIdentity } from '../../process/processTree.js';
import { groupAlive, signalGroup, spawnInGroup, stopGroup } from '../../process/spawnGroup.js';
import { DapConnection, type DapRequestOptions } from '../../protocols/dap/dapConnection.js';
import type { DapCommand, DapRequests } from '../../protocols/dap/dapRequests.js';
import { DebuggerError } from '../../util/errors.js';
import type { LldbBackendOptions } from './lldbContext.js';

const STDERR_LINES = 20;

export interface AdapterListener {
  onEvent(event: DebugProtocol.Event): void;
  /** lldb-dap exited, with the reason in words (its last stderr lines included). */
  onExit(reason: string): void;
}

export class LldbAdapter {
  /** `lldb version 22.1.8`, from the initialize response. */
  version = '';
  /**
   * lldb-dap as first seen. It leads a session of its own (spawnInGroup), in which lldb-server
   * and the launched program run: sweeping that session takes what the program forked, also a
   * child that moved to a process group of its own.
   */
  identity: ProcessIdentity | undefined;
  private exitedFlag = false;
  private stopping: Promise<void> | undefined;
  private readonly stderrLines: string[] = [];
  private stderrPartial = '';

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    readonly connection: DapConnection,
  ) {}

  get pid(): number | undefined {
    return this.child.pid;
  }

  get exited(): boolean {
    return this.exitedFlag;
  }

  get capabilities(): Readonly<DebugProtocol.Capabilities> | undefined {
    return this.connection.capabilities;
  }

  stderrTail(): string[] {
    return this.stderrPartial ? [...this.stderrLines, this.stderrPartial] : [...this.stderrLines];
  }

  static async start(options: LldbBackendOptions, listener: AdapterListener): Promise<LldbAdapter> {
    const path = options.lldbDapPath;
    let child: ChildProcessWithoutNullStreams;
    try {
      // --no-lldbinit: no ~/.lldbinit. The settings every target needs go here, before any target
      // exists, rather than as initCommands, which lldb-dap echoes on the console.
      child = spawnInGroup(
        path,
        [
          '--no-lldbinit',
          '--pre-init-command',
          // The program is untrusted: no script from its symbol files.
          'settings set target.load-script-from-symbol-file false',
          '--pre-init-command',
          'settings set target.load-cwd-lldbinit false',
        ],
        { env: options.env },
      );
    } catch (e) {
      throw new DebuggerError('backend_unavailable', `could not start ${path}: ${(e as Error).message}`);
    }
    const connection = new DapConnection(
      { write: (chunk) => child.stdin.write(chunk) },
      {
        defaultTimeoutMs: options.commandTimeoutMs ?? 30_000,
        ...(options.transcript ? { transcript: options.transcript } : {}),
        onEvent: (event) => listener.onEvent(event),
        // lldb-dap 22 asks nothing of a client that does not offer runInTerminal; anything else
        // is answered `success: false` at once (an unanswered request holds its launch).
        onReverseRequest: (request) => {
          throw new Error(`'${request.command}' is not supported by dbg-mcp`);
        },
      },
    );
    const self = new LldbAdapter(child, connection);
    // Should this server be SIGKILLed, lldb-dap and what it started go too (orphanGuard.ts).
    if (child.pid !== undefined) {
      self.identity = identify(child.pid);
      guardSession(self.identity);
    }
    const spawnError = new Promise<never>((_, reject) => {
      child.once('error', (err: NodeJS.ErrnoException) => {
        self.exitedFlag = true;
        connection.fail(`could not start ${path}: ${err.message}`);
        reject(
          new DebuggerError(
            'backend_unavailable',
            err.code === 'ENOENT'
              ? `lldb-dap not found (${path}): apt-get install lldb-22, or point --lldb-dap at it`
              : `could not start ${path}: ${err.message}`,
          ),
        );
      });
    });
    spawnError.catch(() => {});
    child.stdin.on('error', () => {}); // EPIPE when lldb-dap dies: reported through 'exit'
    child.stdout.on('data', (chunk: Buffer) => connection.receive(chunk));
    child.stdout.on('end', () => connection.receiveEnd());
    child.stderr.on('data', (chunk: Buffer) => self.collectStderr(chunk));
    child.on('exit', (code, signal) => {
      self.exitedFlag = true;
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      const tail = self.stderrTail().filter((l) => l.trim() !== '');
      const reason = `lldb-dap ${how}${tail.length > 0 ? `; its last words: ${tail.slice(-3).join(' | ')}` : ''}`;
      connection.fail(reason);
      listener.onExit(reason);
    });
    try {
      const init = connection.request(
        'initialize',
        {
          clientID: 'dbg-mcp',
          clientName: 'dbg-mcp',
          adapterID: 'lldb-dap',
          linesStartAt1: true,
          columnsStartAt1: true,
          pathFormat: 'path',
          supportsRunInTerminalRequest: false,
          supportsMemoryReferences: true,
        },
        { timeoutMs: options.startTimeoutMs ?? 30_000 },
      );
      const body = (await Promise.race([spawnError, init])).body as Record<string, unknown> | undefined;
      const version = body?.['$__lldb_version'];
      if (typeof version === 'string') self.version = version.trim();
    } catch (e) {
      const tail = self.stderrTail().join('\n');
      await self.stop(false);
      if (e instanceof DebuggerError && e.code === 'backend_unavailable') throw e;
      throw new DebuggerError(
        'backend_unavailable',
        `lldb-dap did not start: ${(e as Error).message}${tail ? ` (stderr: ${tail.slice(-400)})` : ''}`,
      );
    }
    return self;
  }

  request<C extends DapCommand>(
    command: C,
    args: DapRequests[C]['arguments'],
    options: DapRequestOptions = {},
  ): Promise<DapRequests[C]['response']> {
    return this.connection.request(command, args, options);
  }

  private collectStderr(chunk: Buffer): void {
    const text = this.stderrPartial + chunk.toString('utf8');
    const lines = text.split('\n');
    this.stderrPartial = (lines.pop() ?? '').slice(-500);
    for (const line of lines) {
      this.stderrLines.push(line.slice(0, 500));
      if (this.stderrLines.length > STDERR_LINES) this.stderrLines.shift();
    }
  }

  /**
   * Ends lldb-dap: `disconnect` ends the program (`terminate`) or detaches it, then its input
   * closes and its group is stopped. After a detach lldb-dap lingers about 5 s before it exits
   * (measured), with nothing left to protect: it is not waited for.
   */
  stop(terminate: boolean): Promise<void> {
    this.stopping ??= (async () => {
      if (!this.exitedFlag) {
        await this.connection
          .request('disconnect', { terminateDebuggee: terminate }, { timeoutMs: terminate ? 2000 : 5000 })
          .catch(() => {});
        this.child.stdin.end();
      }
      await stopGroup(this.child, { termAfterMs: terminate ? 1000 : 0, killAfterMs: 1000 });
      if (this.child.pid !== undefined) releaseSession(this.child.pid);
      this.connection.fail('the session is closed');
    })();
    return this.stopping;
  }

  /** Whether lldb-dap's process group still has members. */
  get groupAlive(): boolean {
    return this.child.pid !== undefined && groupAlive(this.child.pid);
  }

  signal(signal: NodeJS.Signals): boolean {
    return this.child.pid !== undefined && signalGroup(this.child.pid, signal);
  }
}
