// Opening a target on a started lldb-dap: a program to launch, a running process, a core file, or
// a program behind a gdbserver. Each is one `launch` or `attach` request, which lldb-dap answers
// only after the configuration phase (`initialized` … `configurationDone`: measured, 22.1.8).
//
// A launch runs the program at once, stopped at its first instruction (`stopOnEntry`): the session
// sees it as loaded, breakpoints then resolve against the real process, and `start` goes on from
// there. Its stdio is a terminal of ours (`stdio`), so its output never enters the protocol and it
// starts in a second rather than the 15 s `runInTerminal` took. It inherits lldb-dap's environment,
// which is the filtered one, plus the launch's own variables.

import { readlinkSync } from 'node:fs';
import { ProgramTerminal } from '../../process/programTerminal.js';
import { elfHasDebugInfo, readElf } from '../../util/elf.js';
import { checkCoreFile } from '../../util/elfCore.js';
import { DebuggerError } from '../../util/errors.js';
import type { LaunchSpec, OpenReport, TargetSpec } from '../debuggerBackend.js';
import { explainAttachFailure, machineName, readTraceFacts } from '../gdb/gdbTargets.js';
import type { LldbContext } from './lldbContext.js';
import { FRAME_FORMAT } from './lldbNarrow.js';
import { awaitEntry } from './lldbRunControl.js';

/** The program a local process runs ('' when /proc does not say). */
function executableOf(pid: number): string {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return '';
  }
}

function badCore(message: string): DebuggerError {
  return new DebuggerError('invalid_argument', `core: ${message}`, { field: 'core' });
}

/** The same checks of a core as the GDB backend's, before LLDB reads it (it says less when it is bad). */
async function checkCore(core: string, program: string): Promise<void> {
  const check = await checkCoreFile(core).catch((e: Error) => {
    throw badCore(`cannot read ${core}: ${e.message}`);
  });
  if (check.kind === 'not-elf') throw badCore(`${core} is not a core dump (not an ELF file)`);
  if (check.kind === 'not-core') {
    const what = check.type === 2 ? 'an executable' : check.type === 3 ? 'a shared object or PIE' : 'an ELF file';
    throw badCore(`${core} is ${what}, not a core dump (pass the program as program and its dump as core)`);
  }
  if (check.kind === 'truncated') {
    throw badCore(
      `${core} is truncated: ${check.size} bytes of the ${check.needed} its headers describe (the dump was cut short: disk full, ulimit -c, or an interrupted copy); dump the process again`,
    );
  }
  const elf = await readElf(program).catch(() => undefined);
  if (elf && elf.machine !== check.machine) {
    throw badCore(
      `${core} is a ${machineName(check.machine)} dump but ${program} is a ${machineName(elf.machine)} program: give the program that crashed`,
    );
  }
}

async function debugInfoWarnings(program: string): Promise<string[]> {
  const elf = await readElf(program).catch(() => undefined);
  return elf && !elfHasDebugInfo(elf)
    ? [`${program} has no debug info: no source lines, locals or argument names (rebuild with -g)`]
    : [];
}

/** host:port as LLDB's `gdb-remote` reads it; the policy checked it, this keeps the command one word. */
function remoteAddress(remote: string): string {
  if (!/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(remote)) {
    throw new DebuggerError('invalid_argument', `remote: ${JSON.stringify(remote)} is not host:port`, {
      fields: ['remote'],
    });
  }
  return remote;
}

/** The configuration phase: lldb-dap answers launch and attach only after configurationDone. */
async function configure<T>(g: LldbContext, request: Promise<T>, timeoutMs: number): Promise<T> {
  request.catch(() => {});
  const initialized = g.nextEvent('initialized', timeoutMs);
  initialized.catch(() => {});
  await Promise.race([initialized, request]);
  await g.request('configurationDone', undefined, { timeoutMs });
  return request;
}

/**
 * lldb-dap answers the first `threads` request with the threads it saw at launch or attach, kept
 * for clients that ask before the first stop (measured: one thread of three at a deadlock's first
 * pause); asking once now lets the next answer be the real list.
 */
async function takeInitialThreads(g: LldbContext): Promise<void> {
  const body = await g.request('threads', undefined, { timeoutMs: 5000 }).catch(() => undefined);
  // Numbered in lldb-dap's order (LLDB's own, the main thread first), before a stop names its thread:
  // an attach's first stop can name another thread first.
  for (const t of body?.threads ?? []) g.threadNumbers.number(t.id);
}

function launchArguments(spec: LaunchSpec, terminal: ProgramTerminal): Record<string, unknown> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(spec.env ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new DebuggerError('invalid_argument', `environment variable name ${JSON.stringify(name)} is not valid`);
    }
    env[name] = value;
  }
  return {
    program: spec.program,
    args: [...spec.args],
    ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
    env,
    stopOnEntry: true,
    // A stdin file is read to its EOF; output still goes to the program's terminal.
    stdio: [spec.stdinFile ?? terminal.path, terminal.path, terminal.path],
    customFrameFormat: FRAME_FORMAT,
  };
}

/** Launches the program stopped at its first instruction (an entry stop the session never sees). */
export async function launchStopped(
  g: LldbContext,
  args: Record<string, unknown>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  const entry = awaitEntry(g, timeoutMs);
  entry.catch(() => {});
  await configure(g, g.request('launch', args, { timeoutMs, ...(signal ? { signal } : {}) }), timeoutMs);
  await entry;
  await takeInitialThreads(g);
}

export async function openTarget(
  g: LldbContext,
  target: TargetSpec,
  setTerminal: (terminal: ProgramTerminal) => void,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<OpenReport> {
  if (target.sysroot !== undefined) {
    throw new DebuggerError('backend_unavailable', 'the lldb backend takes no sysroot (the gdb backend does)');
  }
  if (target.forks !== undefined && target.forks !== 'parent') {
    throw new DebuggerError(
      'backend_unavailable',
      'the lldb backend follows the parent at a fork only (the gdb backend follows children)',
    );
  }
  const options = { signal, timeoutMs };
  switch (target.kind) {
    case 'launch': {
      if (target.remote !== undefined) {
        throw new DebuggerError(
          'backend_unavailable',
          'the lldb backend does not run programs through gdbserver --multi: start gdbserver with the program and give remote without extended',
        );
      }
      if (target.record) throw new DebuggerError('backend_unavailable', 'the lldb backend does not record execution');
      const warnings = await debugInfoWarnings(target.program.program);
      const terminal = await ProgramTerminal.open(
        g.options.outputCapacity !== undefined ? { capacity: g.options.outputCapacity } : {},
      );
      setTerminal(terminal);
      g.state.target = 'launch';
      const args = launchArguments(target.program, terminal);
      g.state.launchArgs = args;
      await launchStopped(g, args, timeoutMs, signal);
      return { warnings, reportsStop: false, program: target.program.program };
    }
    case 'attach': {
      if (target.remote !== undefined) {
        throw new DebuggerError('backend_unavailable', 'the lldb backend attaches to local processes only');
      }
      // Marked first: the process is announced before the answer, and it is never to be swept.
      g.state.target = 'attach';
      const program = target.program?.program ?? executableOf(target.pid);
      const args = {
        pid: target.pid,
        ...(program ? { program } : {}),
        // Without it the process runs on after configurationDone (measured).
        stopOnEntry: true,
        customFrameFormat: FRAME_FORMAT,
      };
      try {
        await configure(g, g.request('attach', args, { signal, timeoutMs: Math.max(timeoutMs, 60_000) }), timeoutMs);
      } catch (e) {
        if (!(e instanceof DebuggerError) || e.code !== 'debugger_error' || g.state.exited) throw e;
        throw explainAttachFailure(target.pid, e.message, readTraceFacts(target.pid));
      }
      await takeInitialThreads(g);
      return { warnings: [], reportsStop: true, ...(program ? { program } : {}) };
    }
    case 'core': {
      await checkCore(target.core, target.program.program);
      g.state.target = 'core';
      const args = {
        coreFile: target.core,
        program: target.program.program,
        customFrameFormat: FRAME_FORMAT,
      };
      await configure(g, g.request('attach', args, { signal, timeoutMs: Math.max(timeoutMs, 120_000) }), timeoutMs);
      await takeInitialThreads(g);
      return {
        warnings: await debugInfoWarnings(target.program.program),
        reportsStop: true,
        program: target.program.program,
      };
    }
    case 'remote': {
      const address = remoteAddress(target.remote);
      g.state.target = 'remote';
      // Not `gdbRemotePort`: against gdbserver 13 it fails ("can't make continue packet for this
      // resume"); the `gdb-remote` command works (measured).
      const args = {
        ...(target.program ? { program: target.program.program } : {}),
        attachCommands: [`gdb-remote ${address}`],
        stopOnEntry: true,
        customFrameFormat: FRAME_FORMAT,
      };
      // A refused `gdb-remote` is an error on the console at once, after which lldb-dap waits
      // about 35 s and then reports a process 0 (measured): the console line ends the wait.
      let watcher: ((text: string) => void) | undefined;
      const failed = new Promise<never>((_, reject) => {
        watcher = (text) => {
          const m = /^error: (.*(?:connect|refused|timed out).*)$/im.exec(text);
          if (m?.[1]) reject(new DebuggerError('debugger_error', m[1]));
        };
        g.state.consoleWatchers.add(watcher);
      });
      failed.catch(() => {});
      try {
        await Promise.race([failed, configure(g, g.request('attach', args, options), timeoutMs)]);
      } catch (e) {
        if (!(e instanceof DebuggerError) || e.code !== 'debugger_error' || g.state.exited) throw e;
        const refused = /refused|failed to connect|Connection/i.test(e.message);
        throw new DebuggerError(
          'debugger_error',
          refused
            ? `cannot connect to ${address}: nothing accepted the connection (start gdbserver :PORT prog there first)`
            : `cannot connect to ${address}: ${e.message}`,
          { field: 'remote' },
        );
      } finally {
        if (watcher) g.state.consoleWatchers.delete(watcher);
      }
      await takeInitialThreads(g);
      const warnings = target.program ? await debugInfoWarnings(target.program.program) : [];
      return { warnings, reportsStop: true, ...(target.program ? { program: target.program.program } : {}) };
    }
    case 'replay':
      throw new DebuggerError('backend_unavailable', 'the lldb backend does not replay rr traces (backend=rr does)');
    case 'joined':
      throw new DebuggerError(
        'backend_unavailable',
        "a person's shared debugger is joined through its share, not opened",
      );
  }
}
