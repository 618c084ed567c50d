// winedbg's gdb proxy for one session: `winedbg --gdb --no-start --port 0 <program args…>` to start
// a program, or `… --port 0 <windows pid>` to attach to one. GDB then connects with
// `target remote localhost:<port>`: the kernel picks the port, and it is read from /proc as the
// prefix's wineserver's newest LISTEN socket (Wine 8 keeps Windows sockets in the wineserver),
// one start at a time per prefix (proxyPort.ts).
//
// Measured (Wine 8.0): the proxy stops the program at ntdll's initial DbgBreakPoint (after the
// exe, ntdll, kernel32 and msvcrt are mapped, before any of the program's code); attaching stops
// it in a new thread running DbgUiRemoteBreakin. A program winedbg starts gets a console of its
// own (CREATE_NEW_CONSOLE) and its output is lost, which is why programs with output are started
// by wineLauncher.ts and attached to instead. When GDB goes away (killed, or its connection
// closed), winedbg does not notice: it keeps the program stopped and spins at 100% CPU, so the
// session end always kills winedbg's group itself. Killing winedbg kills the program it debugs
// (Windows' kill-on-debugger-exit, done by the wineserver).
//
// Process tree: the child we spawn is `start.exe /exec winedbg.exe` in a session and group of its
// own; winedbg.exe is double-forked (parent init) but stays in that group; a program it starts
// has a session of its own (CREATE_NEW_CONSOLE). All of them carry the session's mark
// (wineProcesses.ts SESSION_VARIABLE), which is how the end finds the last of them.

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { guardSession, releaseSession } from '../../process/orphanGuard.js';
import { identify } from '../../process/processTree.js';
import { signalGroup, spawnInGroup, waitForExit } from '../../process/spawnGroup.js';
import { DebuggerError } from '../../util/errors.js';
import { log } from '../../util/log.js';
import { listeningSockets, waitForNewListeningPort } from './proxyPort.js';
import { WinedbgTrace } from './winedbgTrace.js';
import { guardEnvironment, releaseEnvironment } from './wineGuard.js';
import type { WinePrefix } from './winePrefix.js';
import { killWineProcesses, SESSION_VARIABLE, sessionProcesses } from './wineProcesses.js';

export type ProxyTarget = { program: string; args: readonly string[] } | { windowsPid: number };

export interface ProxyOptions {
  prefix: WinePrefix;
  target: ProxyTarget;
  /** Names this session's Windows processes (their environment carries it). */
  sessionId: string;
  cwd?: string;
  /** Until winedbg listens: a cold wineserver start is 1-10 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Bytes of winedbg's own stderr text kept for an error message (the trace is parsed apart). */
const STDERR_KEPT = 4096;

/** Checked at the start boundary: an argv entry is cut at a NUL by the C runtime. */
function checkArgv(args: readonly string[]): void {
  if (args.length > 64) throw new DebuggerError('invalid_argument', 'at most 64 program arguments');
  for (const a of args) {
    if (a.includes('\0')) throw new DebuggerError('invalid_argument', 'a program argument holds a NUL');
    if (a.length > 4096)
      throw new DebuggerError('invalid_argument', 'a program argument is longer than 4096 characters');
  }
}

export class WinedbgProxy {
  readonly child: ChildProcessWithoutNullStreams;
  readonly port: number;
  readonly trace: WinedbgTrace;
  readonly sessionId: string;
  /** From spawn to listening. */
  readonly listenMs: number;
  private readonly stderrTail: { text: string };

  private constructor(
    child: ChildProcessWithoutNullStreams,
    port: number,
    trace: WinedbgTrace,
    sessionId: string,
    listenMs: number,
    stderrTail: { text: string },
  ) {
    this.child = child;
    this.port = port;
    this.trace = trace;
    this.sessionId = sessionId;
    this.listenMs = listenMs;
    this.stderrTail = stderrTail;
  }

  static async start(options: ProxyOptions): Promise<WinedbgProxy> {
    const { prefix, target, sessionId } = options;
    if (/[\n\r\0=]/.test(sessionId)) throw new DebuggerError('invalid_argument', 'bad session id');
    const args = ['--gdb', '--no-start', '--port', '0'];
    if ('windowsPid' in target) {
      if (!Number.isSafeInteger(target.windowsPid) || target.windowsPid <= 0) {
        throw new DebuggerError('invalid_argument', `not a Windows process id: ${target.windowsPid}`);
      }
      args.push(String(target.windowsPid));
    } else {
      checkArgv([target.program, ...target.args]);
      // A program named by digits alone would be taken for a pid to attach to.
      if (/^(0x[0-9a-f]+|\d+)$/i.test(target.program)) {
        throw new DebuggerError('invalid_argument', `a program named ${target.program} would be read as a process id`);
      }
      args.push(target.program, ...target.args);
    }
    guardEnvironment(SESSION_VARIABLE, sessionId);
    const env = prefix.environment({ [SESSION_VARIABLE]: sessionId, WINEDEBUG: '-all,trace+winedbg' });
    // One start at a time per prefix: the new LISTEN socket of the wineserver is then ours.
    return prefix.serially(async () => {
      const serverBefore = prefix.serverPid();
      const before = new Set(serverBefore === undefined ? [] : listeningSockets(serverBefore).keys());
      const started = Date.now();
      const child = spawnInGroup(prefix.wineTools.winedbg, args, { env, cwd: options.cwd });
      const pgid = child.pid;
      if (pgid === undefined) throw new DebuggerError('backend_unavailable', 'winedbg did not start');
      guardSession(identify(pgid));
      const trace = new WinedbgTrace();
      const stderrTail = { text: '' };
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => {
        trace.push(chunk);
        stderrTail.text = (stderrTail.text + chunk).slice(-STDERR_KEPT);
      });
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        stderrTail.text = (stderrTail.text + chunk).slice(-STDERR_KEPT);
      });
      child.stdin.end();
      let exited: string | undefined;
      child.once('exit', (code, signal) => {
        exited = `winedbg exited (${signal ?? `code ${code}`}) before its gdb proxy listened`;
      });
      try {
        const port = await waitForNewListeningPort(() => prefix.serverPid(), before, {
          timeoutMs: options.timeoutMs ?? 60_000,
          signal: options.signal,
          failure: () => (exited ? `${exited}: ${said(stderrTail.text)}` : undefined),
        });
        return new WinedbgProxy(child, port, trace, sessionId, Date.now() - started, stderrTail);
      } catch (e) {
        await endSession(child, sessionId);
        throw e;
      }
    });
  }

  /** What winedbg printed besides its trace, for an error message. */
  get said(): string {
    return said(this.stderrTail.text);
  }

  /**
   * Ends the session's Windows processes: winedbg's group, then whatever still carries the
   * session's mark (the program, what it started, its console). The wineserver and the other
   * sessions' programs are not touched.
   */
  async close(): Promise<number[]> {
    return endSession(this.child, this.sessionId);
  }
}

function said(text: string): string {
  const lines = text
    .split('\n')
    .filter((l) => l.trim() && !/:trace:winedbg:|wine32|multiarch|dpkg|apt-get/.test(l))
    .slice(-5);
  return lines.join(' | ') || '(nothing)';
}

async function endSession(child: ChildProcessWithoutNullStreams, sessionId: string): Promise<number[]> {
  const pgid = child.pid;
  if (pgid !== undefined) {
    // The seed's stop: TERM, then KILL after two seconds. Wine sets no SIGTERM handler, so
    // winedbg ends at the TERM and the grace is only paid by a winedbg that is not answering.
    signalGroup(pgid, 'SIGTERM');
    if (!(await waitForExit(child, 2000))) {
      log('info', 'winedbg did not end at SIGTERM: killed', { pid: pgid, session: sessionId });
      signalGroup(pgid, 'SIGKILL');
      await waitForExit(child, 2000);
    }
    releaseSession(pgid);
  }
  const killed = await killWineProcesses(() => sessionProcesses(sessionId));
  releaseEnvironment(SESSION_VARIABLE, sessionId);
  return killed;
}
