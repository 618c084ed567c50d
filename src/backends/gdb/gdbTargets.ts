// Targets GDB does not launch itself: a core file, a running process (attach), a remote stub
// (gdbserver, QEMU user mode), and the fork settings of a program that makes children. Each is a
// function over a started GdbBackend; the stop a target starts at arrives as the backend's usual
// `stopped` event, so the session sees a core or an attach as it sees any other stop.

import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { StopEvent } from '../../model/model.js';
import { releaseSession } from '../../process/orphanGuard.js';
import { dataEvaluateExpression } from '../../protocols/mi/commands/data.js';
import { gdbSet } from '../../protocols/mi/commands/gdb.js';
import { targetAttach, targetSelect, threadInfo } from '../../protocols/mi/commands/target.js';
import { sleep } from '../../util/deadline.js';
import { readElf } from '../../util/elf.js';
import { checkCoreFile } from '../../util/elfCore.js';
import { DebuggerError } from '../../util/errors.js';
import { findOnPath } from '../../util/which.js';
import type { ForkMode } from '../debuggerBackend.js';
import type { GdbContext } from './gdbContext.js';
import { narrowSelectedFrame, narrowThreads, narrowValue } from './gdbNarrow.js';

/** The target's pids belong to a core or another machine: closing never signals them here. */
export function foreignPids(g: GdbContext): void {
  g.state.pidsAreLocal = false;
  forgetLaunched(g);
}

/** The programs recorded as launched here are not (an attach or a remote link came after). */
export function forgetLaunched(g: GdbContext): void {
  for (const who of g.state.launched.splice(0)) releaseSession(who.pid);
}

/** Marks the target as attached: closing detaches rather than kills. */
export function setAttached(g: GdbContext, attached: boolean): void {
  g.state.attached = attached;
  if (attached) forgetLaunched(g);
}

/** Calls `listener` with every console and log line GDB prints; returns the unsubscribe. */
export function watchText(g: GdbContext, listener: (text: string) => void): () => void {
  g.state.textWatchers.add(listener);
  return () => g.state.textWatchers.delete(listener);
}

/** ELF machines GDB knows by another name (`set architecture`), with the name people use. */
export const ELF_MACHINES: Readonly<Record<number, { name: string; arch: string }>> = {
  3: { name: 'i386', arch: 'i386' },
  8: { name: 'MIPS', arch: 'mips' },
  20: { name: 'PowerPC', arch: 'powerpc:common' },
  21: { name: 'PowerPC64', arch: 'powerpc:common64' },
  22: { name: 's390x', arch: 's390:64-bit' },
  40: { name: 'ARM', arch: 'arm' },
  62: { name: 'x86-64', arch: 'i386:x86-64' },
  183: { name: 'AArch64', arch: 'aarch64' },
  243: { name: 'RISC-V', arch: 'riscv' },
};

const HOST_MACHINES: Readonly<Record<string, number>> = {
  ia32: 3,
  x64: 62,
  arm: 40,
  arm64: 183,
  ppc64: 21,
  s390x: 22,
  riscv64: 243,
};

export function machineName(machine: number): string {
  return ELF_MACHINES[machine]?.name ?? `ELF machine ${machine}`;
}

const knownArchitectures = new Map<string, Promise<boolean>>();

/** Whether `gdb` was built for `arch`: `set architecture` refuses a name it does not know. */
export function gdbKnowsArchitecture(gdb: string, arch: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const key = `${gdb}\0${arch}`;
  let known = knownArchitectures.get(key);
  if (!known) {
    known = new Promise((resolve) => {
      execFile(
        gdb,
        ['-nx', '-q', '-batch', '-ex', `set architecture ${arch}`],
        { env, timeout: 10_000 },
        (error, stdout, stderr) => resolve(!error && !/Undefined item|not recognized/i.test(`${stdout}${stderr}`)),
      );
    });
    knownArchitectures.set(key, known);
  }
  return known;
}

/** The architecture of `program` when this machine cannot run it natively (AArch64 on x86-64). */
export async function foreignArchitecture(program: string): Promise<string | undefined> {
  const elf = await readElf(program).catch(() => undefined);
  const host = HOST_MACHINES[process.arch];
  return elf === undefined || host === undefined || elf.machine === host || (host === 62 && elf.machine === 3)
    ? undefined
    : machineName(elf.machine);
}

/**
 * The GDB for `program`: the configured one when it can debug the program's architecture,
 * else gdb-multiarch (a distribution's plain gdb knows only its own machine).
 */
export async function chooseGdb(
  configured: string,
  program: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<{ gdbPath: string; note?: string }> {
  const elf = program === undefined ? undefined : await readElf(program).catch(() => undefined);
  const host = HOST_MACHINES[process.arch];
  const wanted = elf === undefined ? undefined : ELF_MACHINES[elf.machine];
  if (!elf || elf.machine === host || !wanted) return { gdbPath: configured };
  if (await gdbKnowsArchitecture(configured, wanted.arch, env)) return { gdbPath: configured };
  const multiarch = findOnPath(['gdb-multiarch']);
  if (multiarch && (await gdbKnowsArchitecture(multiarch, wanted.arch, env))) {
    return { gdbPath: multiarch, note: `${wanted.name} program: debugging it with gdb-multiarch` };
  }
  throw new DebuggerError(
    'backend_unavailable',
    `${configured} cannot debug ${wanted.name} programs and no gdb-multiarch was found: apt-get install gdb-multiarch (or --gdb PATH to a gdb built for ${wanted.name})`,
  );
}

// ---- core files ---------------------------------------------------------------------------

const FAULT_SIGNALS = new Set(['SIGSEGV', 'SIGBUS', 'SIGFPE', 'SIGILL']);
/** Warnings GDB prints about every core of some machines, which say nothing about this one. */
const CORE_NOISE = /reg-xstate|File transfers from remote targets can be slow/;

export interface CoreReport {
  /** The command line the kernel (or gcore) recorded: "Core was generated by `./crash segv'". */
  generatedBy?: string;
  warnings: string[];
}

/** The words of a DebuggerError for a core that cannot be used, naming the field. */
function badCore(message: string): DebuggerError {
  return new DebuggerError('invalid_argument', `core: ${message}`, { field: 'core' });
}

/**
 * Opens `core` for the loaded `program`. Its stop is the signal that killed the process
 * ("Program terminated with signal SIGSEGV"), with the fault address from the core's siginfo.
 */
export async function openCore(
  g: GdbContext,
  core: string,
  program: string,
  signal?: AbortSignal,
): Promise<CoreReport> {
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
  foreignPids(g);
  let r: Awaited<ReturnType<typeof targetSelect>>;
  try {
    r = await targetSelect(g.mi, { kind: 'core', where: core }, { signal, timeoutMs: 120_000, captureConsole: true });
  } catch (e) {
    const message = (e as Error).message;
    if (/not a core dump|file format/i.test(message)) throw badCore(message);
    throw e;
  }
  const said = `${r.console}${r.log}`;
  const generatedBy = /Core was generated by `(.*)'\.?$/m.exec(said)?.[1];
  if (/core file may not match specified executable file/.test(said)) {
    throw badCore(
      `${core} was not dumped by ${program}${generatedBy ? ` (the core says it was generated by \`${generatedBy}\`)` : ''}: give the program that crashed, the same build`,
    );
  }
  const warnings = said
    .split('\n')
    .filter((l) => /^warning: /.test(l) && !CORE_NOISE.test(l))
    .slice(0, 3)
    .map((l) => `core: ${l.slice('warning: '.length)}`);
  const recorded = generatedBy?.split(' ')[0];
  if (recorded && basename(recorded) !== basename(program) && !basename(program).startsWith(basename(recorded))) {
    warnings.push(`core: generated by \`${generatedBy}\`, not by ${basename(program)}: check it is the same program`);
  }
  const stop: StopEvent = { reason: 'unknown', stoppedThreads: 'all' };
  const m = /Program terminated with signal (SIG\w+), ([^\n]*?)\.?$/m.exec(said);
  if (m?.[1] && m[2] !== undefined) {
    stop.reason = 'signal-received';
    stop.signal = { name: m[1], meaning: m[2] };
  }
  const frame = narrowSelectedFrame(r.results);
  if (frame) stop.frame = frame;
  const threads = await threadInfo(g.mi, { signal }).catch(() => undefined);
  const current = threads ? narrowThreads(threads.results).currentThreadId : undefined;
  if (current !== undefined) stop.threadId = current;
  if (stop.signal && FAULT_SIGNALS.has(stop.signal.name)) {
    // The core's NT_SIGINFO note: what the kernel said about the fault.
    const v = await dataEvaluateExpression(
      g.mi,
      { expression: '$_siginfo._sifields._sigfault.si_addr' },
      { signal, timeoutMs: 5000 },
    ).catch(() => undefined);
    const address = /0x[0-9a-fA-F]+/.exec(v ? narrowValue(v.results) : '')?.[0];
    if (address) stop.faultAddress = address;
  }
  g.emit({ type: 'stopped', stop });
  return { ...(generatedBy ? { generatedBy } : {}), warnings };
}

/** Writes a core of the stopped program to `path` (GDB's gcore); resolves with its size. */
export async function saveCore(g: GdbContext, path: string, signal?: AbortSignal): Promise<number> {
  if (/^\s|\s$|^~/.test(path)) {
    throw new DebuggerError('invalid_argument', 'path: no leading or trailing blanks, no leading ~', { field: 'path' });
  }
  // gcore reads the rest of the line as the file name; a big process takes a while to dump.
  const r = await g.cli(`gcore ${path}`, { signal, timeoutMs: 300_000, captureConsole: true });
  const said = `${r.console}${r.log}`;
  if (!/Saved corefile/.test(said)) {
    throw new DebuggerError(
      'debugger_error',
      `no core was written: ${said.trim().split('\n').pop() ?? 'GDB said nothing'}`,
    );
  }
  return statSync(path).size;
}

// ---- attach -------------------------------------------------------------------------------

/** What /proc says about why a process cannot be traced. */
export interface TraceFacts {
  /** Pid of the process tracing it now (0: none), undefined when it does not exist. */
  tracerPid: number | undefined;
  tracerName?: string;
  uid?: number;
  /** /proc/sys/kernel/yama/ptrace_scope; undefined without Yama. */
  ptraceScope?: number;
  ownUid: number;
}

function readStatus(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
}

export function readTraceFacts(pid: number): TraceFacts {
  const status = readStatus(pid);
  const field = (text: string | undefined, name: string): string | undefined =>
    text === undefined ? undefined : new RegExp(`^${name}:\\s*(\\S+)`, 'm').exec(text)?.[1];
  const tracer = Number(field(status, 'TracerPid') ?? Number.NaN);
  const tracerName = tracer > 0 ? field(readStatus(tracer), 'Name') : undefined;
  let scope: number | undefined;
  try {
    scope = Number(readFileSync('/proc/sys/kernel/yama/ptrace_scope', 'utf8').trim());
  } catch {
    scope = undefined;
  }
  const uid = field(status, 'Uid');
  return {
    tracerPid: Number.isNaN(tracer) ? undefined : tracer,
    ...(tracerName ? { tracerName } : {}),
    ...(uid !== undefined ? { uid: Number(uid) } : {}),
    ...(scope !== undefined && !Number.isNaN(scope) ? { ptraceScope: scope } : {}),
    ownUid: process.getuid?.() ?? -1,
  };
}

/** GDB's "ptrace: Operation not permitted." in plain words, with the way out. */
export function explainAttachFailure(pid: number, message: string, facts: TraceFacts): DebuggerError {
  const fail = (why: string): DebuggerError =>
    new DebuggerError('debugger_error', `cannot attach to process ${pid}: ${why}`, { pid });
  if (facts.tracerPid === undefined || /No such process/.test(message)) {
    return new DebuggerError('invalid_argument', `attach: no process ${pid} is running`, { field: 'attach' });
  }
  if (facts.tracerPid > 0) {
    return fail(
      `it is already traced by process ${facts.tracerPid}${facts.tracerName ? ` (${facts.tracerName})` : ''}; a process has one tracer at a time: detach that debugger or strace first`,
    );
  }
  if (!/not permitted|denied/i.test(message)) return fail(message);
  const root = facts.ownUid === 0;
  if (facts.ptraceScope === 3) return fail('ptrace_scope is 3: attaching is off until the next reboot');
  if (facts.ptraceScope === 2 && !root) {
    return fail(
      'ptrace_scope is 2: only root (CAP_SYS_PTRACE) may attach; run the server as root or with that capability',
    );
  }
  if (facts.uid !== undefined && facts.uid !== facts.ownUid && !root) {
    return fail(`it belongs to uid ${facts.uid} and the server runs as uid ${facts.ownUid}`);
  }
  if (facts.ptraceScope === 1 && !root) {
    return fail(
      'ptrace_scope is 1: only a parent may trace its children; sysctl kernel.yama.ptrace_scope=0 (or run the server with CAP_SYS_PTRACE)',
    );
  }
  return fail(
    `${message.replace(/^ptrace: /, '')} (no CAP_SYS_PTRACE here, as in a container started without it, or the process is not dumpable)`,
  );
}

/** Attaches to `pid` (stopping it); closing the session then detaches instead of killing. */
export async function attachProcess(
  g: GdbContext,
  pid: number,
  signal?: AbortSignal,
  facts: (pid: number) => TraceFacts = readTraceFacts,
): Promise<void> {
  // Marked first: GDB announces the process (=thread-group-started) before it answers, and
  // that process is never to be killed or swept as one this session started.
  setAttached(g, true);
  try {
    await targetAttach(g.mi, pid, { signal, timeoutMs: 60_000 });
  } catch (e) {
    setAttached(g, false);
    if (!(e instanceof DebuggerError) || e.code !== 'debugger_error') throw e;
    throw explainAttachFailure(pid, e.message, facts(pid));
  }
}

// ---- remote stubs -------------------------------------------------------------------------

/** How long a connect is retried while nothing listens yet (QEMU's stub says nothing when ready). */
export const CONNECT_RETRY_MS = 5000;
const CONNECT_PAUSE_MS = 50;
const LINK_LOST = /^(Remote connection closed|Remote communication error[^\n]*)/m;

/**
 * Connects to a gdbserver or QEMU stub at `address` (host:port), retrying while the connection
 * is refused. A link lost later turns the session dead with the reason.
 */
export async function connectRemote(
  g: GdbContext,
  address: string,
  extended: boolean,
  options: { retryMs?: number; signal?: AbortSignal } = {},
): Promise<void> {
  // GDB's own retry waits tcp connect-timeout (15 s) and then says only "Connection timed out".
  await gdbSet(g.mi, 'tcp auto-retry off', { signal: options.signal });
  // GDB resends a packet the stub has not answered within remotetimeout (2 s by default); a stub
  // slowed by a busy machine then answers both, and the handshake reads the wrong reply
  // ("Remote replied unexpectedly to 'vMustReplyEmpty'": seen with winedbg under load).
  await gdbSet(g.mi, 'remotetimeout 20', { signal: options.signal });
  const started = Date.now();
  const deadline = started + (options.retryMs ?? CONNECT_RETRY_MS);
  const kind = extended ? 'extended-remote' : 'remote';
  foreignPids(g);
  for (;;) {
    try {
      await targetSelect(g.mi, { kind, where: address }, { signal: options.signal, timeoutMs: 30_000 });
      break;
    } catch (e) {
      const message = (e as Error).message;
      if (/Connection refused/.test(message) && Date.now() < deadline && !options.signal?.aborted) {
        await sleep(CONNECT_PAUSE_MS, options.signal);
        continue;
      }
      throw explainConnectFailure(address, message, Date.now() - started);
    }
  }
  let lost = false;
  watchText(g, (text) => {
    const m = LINK_LOST.exec(text);
    if (!m || lost) return;
    lost = true;
    g.emit({ type: 'died', reason: `the connection to ${address} was lost (${m[0].trim()})` });
  });
}

export function explainConnectFailure(address: string, message: string, waitedMs: number): DebuggerError {
  const fail = (why: string): DebuggerError =>
    new DebuggerError('debugger_error', `cannot connect to ${address}: ${why}`, { field: 'remote' });
  if (/Connection refused/.test(message)) {
    return fail(
      `nothing accepted the connection (refused for ${(waitedMs / 1000).toFixed(1)} s): start gdbserver (gdbserver :PORT prog) or QEMU (qemu-aarch64 -g PORT prog) there first`,
    );
  }
  if (/cannot resolve|Name or service/.test(message)) return fail('the host name does not resolve');
  if (/timed out/i.test(message)) return fail('the connection timed out (a firewall, or a host that is down)');
  if (/Remote replied unexpectedly|Malformed|not a/i.test(message)) {
    return fail(`what answered is not a GDB remote stub (${message})`);
  }
  return fail(message);
}

/** extended-remote: the program gdbserver --multi runs on `run` (its path over there). */
export async function setRemoteProgram(g: GdbContext, program: string, signal?: AbortSignal): Promise<void> {
  await gdbSet(g.mi, `remote exec-file ${program}`, { signal });
}

/** Where GDB finds the target's libraries (a cross sysroot such as /usr/aarch64-linux-gnu). */
export async function setSysroot(g: GdbContext, dir: string, signal?: AbortSignal): Promise<void> {
  await gdbSet(g.mi, `sysroot ${dir}`, { signal });
}

// ---- forks --------------------------------------------------------------------------------

/** Which side of a fork the session follows: GDB's default parent, the child, or both. */
export async function setForkMode(g: GdbContext, mode: ForkMode, signal?: AbortSignal): Promise<void> {
  if (mode === 'child') {
    await gdbSet(g.mi, 'follow-fork-mode child', { signal });
  } else if (mode === 'both') {
    // Each child becomes an inferior of its own; schedule-multiple lets parent and children run
    // together (without it, continuing one leaves the other stopped and a waitpid() hangs).
    await gdbSet(g.mi, 'detach-on-fork off', { signal });
    await gdbSet(g.mi, 'schedule-multiple on', { signal });
  }
}
