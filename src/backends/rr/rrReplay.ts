// The replay side of rr: `rr replay -s 0 TRACE` starts a GDB remote server on a port it picks
// and announces ("Launch gdb with … target extended-remote 127.0.0.1:PORT /path/exe"). GDB then
// connects as to any extended-remote target. The server process lives in its own process
// group and goes with the session.

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { signalGroup, spawnInGroup, stopGroup } from '../../process/spawnGroup.js';
import { DebuggerError } from '../../util/errors.js';
import { classifyRrFailure, parseReplayLaunch, replayArgv } from './rrText.js';

export interface ReplayServerSpec {
  file: string;
  args: readonly string[];
  env: Record<string, string>;
  /** Reads the server's output so far; returns its address once it listens. */
  announcement: (output: string) => { address: string; program?: string } | undefined;
  /** Turns the output of a server that exited early into an error. */
  failure: (output: string) => DebuggerError;
  timeoutMs: number;
}

export interface ReplayServer {
  address: string;
  /** The program as the server names it (rr: the trace's copy of the executable). */
  program?: string;
  pid: number | undefined;
  close(): Promise<void>;
}

/** Starts a GDB remote server process and waits for it to say where it listens. */
export function spawnReplayServer(spec: ReplayServerSpec): Promise<ReplayServer> {
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawnInGroup(spec.file, spec.args, { env: spec.env });
  } catch (e) {
    return Promise.reject(
      new DebuggerError('backend_unavailable', `could not start ${spec.file}: ${(e as Error).message}`),
    );
  }
  const close = async (): Promise<void> => {
    if (child.pid !== undefined) signalGroup(child.pid, 'SIGTERM');
    await stopGroup(child, { termAfterMs: 0, killAfterMs: 1000 });
  };
  return new Promise<ReplayServer>((resolve, reject) => {
    let output = '';
    let settled = false;
    const finish = (result: ReplayServer | DebuggerError): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (result instanceof DebuggerError) {
        void close();
        reject(result);
      } else {
        resolve(result);
      }
    };
    const onData = (chunk: Buffer): void => {
      if (output.length < 256 * 1024) output += chunk.toString('utf8');
      const found = spec.announcement(output);
      if (found) finish({ ...found, pid: child.pid, close });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.stdin.on('error', () => {});
    child.once('error', (e) =>
      finish(new DebuggerError('backend_unavailable', `could not start ${spec.file}: ${e.message}`)),
    );
    child.once('exit', () => finish(spec.failure(output)));
    const timer = setTimeout(
      () =>
        finish(new DebuggerError('timeout', `${spec.file} did not announce its server within ${spec.timeoutMs} ms`)),
      spec.timeoutMs,
    );
    timer.unref();
  });
}

/** The rr replay server of `trace` (optionally of one of its processes). */
export function startRrReplay(options: {
  rrPath: string;
  trace: string;
  pid?: number;
  env: Record<string, string>;
  timeoutMs: number;
}): Promise<ReplayServer> {
  return spawnReplayServer({
    file: options.rrPath,
    args: replayArgv(options.trace, 0, options.pid),
    env: options.env,
    timeoutMs: options.timeoutMs,
    announcement: (text) => {
      const launch = parseReplayLaunch(text);
      return launch.address
        ? { address: launch.address, ...(launch.program ? { program: launch.program } : {}) }
        : undefined;
    },
    failure: (text) => {
      const problem = classifyRrFailure(text);
      return new DebuggerError(
        'backend_unavailable',
        `rr cannot replay ${options.trace}: ${problem.message}. Fix: ${problem.fix}`,
        {
          rr: problem.kind,
        },
      );
    },
  });
}
