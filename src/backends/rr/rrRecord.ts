// `rr record` of a program's argv (never through a shell), bounded in time and output. A crash
// or a non-zero exit of the program is a normal outcome; rr failing to record is an error that
// says why (rrText.ts) and what to do.

import { existsSync } from 'node:fs';
import { OutputRing } from '../../process/outputRing.js';
import { signalGroup, spawnInGroup, waitForExit } from '../../process/spawnGroup.js';
import { DebuggerError } from '../../util/errors.js';
import { machineProbe } from '../machineProbe.js';
import { classifyRrFailure, parseTraceDir, recordArgv } from './rrText.js';

export interface RrRecordOptions {
  rrPath: string;
  /** argv[0] is the program (an absolute path). */
  argv: readonly string[];
  cwd?: string;
  /** The whole environment of rr and the program (already filtered), including _RR_TRACE_DIR. */
  env: Record<string, string>;
  stdin?: string;
  timeoutMs: number;
  /** Where the trace goes; default: rr's own choice under _RR_TRACE_DIR. */
  traceDir?: string;
  /** Bytes of output kept (the tail). */
  outputBytes?: number;
  /** rr's chaos mode: scheduling varied on purpose, so a race shows in fewer runs. */
  chaos?: boolean;
  signal?: AbortSignal;
}

export interface RrRecording {
  trace: string;
  /** rr's own exit status (it passes on the program's). */
  exitCode: number | null;
  /** Set when the program (or rr) was ended by a signal. */
  signal?: string;
  timedOut: boolean;
  /** The tail of what the program and rr printed (stdout and stderr interleaved). */
  output: string;
  /** Bytes of output before the kept tail. */
  outputDropped: number;
  durationMs: number;
}

export async function recordWithRr(options: RrRecordOptions): Promise<RrRecording> {
  const started = Date.now();
  const ring = new OutputRing(options.outputBytes ?? 16 * 1024);
  let stderrHead = '';
  const child = spawnInGroup(options.rrPath, recordArgv(options.argv, options.traceDir, options.chaos ?? false), {
    env: options.env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const failed = new Promise<Error>((resolve) => child.once('error', resolve));
  child.stdout.on('data', (chunk: Buffer) => ring.write(chunk));
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderrHead.length < 64 * 1024) stderrHead += chunk.toString('utf8');
    ring.write(chunk);
  });
  child.stdin.on('error', () => {});
  child.stdin.end(options.stdin ?? '');

  let timedOut = false;
  const stop = (): void => {
    if (child.pid !== undefined) signalGroup(child.pid, 'SIGTERM');
    setTimeout(() => child.pid !== undefined && signalGroup(child.pid, 'SIGKILL'), 2000).unref();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs);
  timer.unref();
  options.signal?.addEventListener('abort', stop, { once: true });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const outcome = await Promise.race([exited.then(() => undefined), failed]);
  clearTimeout(timer);
  options.signal?.removeEventListener('abort', stop);
  if (outcome instanceof Error) {
    throw new DebuggerError('backend_unavailable', `could not start rr (${options.rrPath}): ${outcome.message}`);
  }
  await waitForExit(child, 100);
  const trace = parseTraceDir(stderrHead) ?? options.traceDir;
  if (!trace || !existsSync(trace)) {
    const problem = classifyRrFailure(stderrHead, undefined, (await machineProbe()).record.reverse);
    throw new DebuggerError('backend_unavailable', `rr cannot record here: ${problem.message}. Fix: ${problem.fix}`, {
      rr: problem.kind,
    });
  }
  const tail = ring.read(ring.begin, ring.capacity);
  return {
    trace,
    exitCode: child.exitCode,
    ...(child.signalCode ? { signal: child.signalCode } : {}),
    timedOut,
    output: tail.data.toString('utf8'),
    outputDropped: ring.begin,
    durationMs: Date.now() - started,
  };
}
