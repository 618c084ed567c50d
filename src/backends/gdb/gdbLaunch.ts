// Loading a program to launch: its symbols, argv (literal), working directory and environment,
// and the terminal it will run on.
//
// No shell ever starts a program. With `startup-with-shell off`, GDB 13 splits the argument text
// on white space only, so an empty argument or one holding white space cannot be passed; with it
// on, GDB runs `$SHELL -c "exec PROGRAM ARGS"` and quotes neither `|` nor a backtick in PROGRAM
// (issue 11: a program named `<root>/q|sh` with such an argument ran a command). So GDB's SHELL is
// our launcher (process/launcher.ts), which takes the argv as hex tokens and execs the program;
// without it such arguments are refused, never passed to a shell.

import { ensureLauncher, type LauncherStatus, launchPlan } from '../../process/launcher.js';
import { ProgramTerminal } from '../../process/programTerminal.js';
import { execArguments } from '../../protocols/mi/commands/exec.js';
import { gdbSet } from '../../protocols/mi/commands/gdb.js';
import { fileExecAndSymbols, inferiorTtySet } from '../../protocols/mi/commands/target.js';
import { assertSingleLine } from '../../protocols/mi/miCommand.js';
import { elfHasDebugInfo, readElf } from '../../util/elf.js';
import { DebuggerError } from '../../util/errors.js';
import type { DoctorCheck, LaunchSpec } from '../debuggerBackend.js';
import { sanitizerEnvironment, sanitizersIn } from '../runtime/sanitizerBuild.js';
import type { GdbContext } from './gdbContext.js';
import {
  defaultPrinterCacheDir,
  libstdcxxPrintersOnce,
  loadLibstdcxxPrinters,
  programUsesLibstdcxx,
} from './gdbPrettyPrinters.js';

export interface LoadReport {
  warnings: string[];
  hasDebugInfo: boolean;
}

/**
 * Loads the program's symbols (and, for a launch, what it runs with). `throughStub`: it will run
 * under gdbserver --multi, which gets the argv in a packet, not through our launcher.
 */
export async function loadProgram(
  g: GdbContext,
  spec: LaunchSpec,
  signal?: AbortSignal,
  options: { throughStub?: boolean } = {},
): Promise<LoadReport> {
  const warnings: string[] = [];
  const loaded = await fileExecAndSymbols(g.mi, spec.program, { signal, captureConsole: true });
  // MI mode prints nothing about missing symbols; the ELF sections tell.
  const elf = await readElf(spec.program).catch(() => undefined);
  const hasDebugInfo =
    elf === undefined ? !/No debugging symbols found/.test(`${loaded.console}${loaded.log}`) : elfHasDebugInfo(elf);
  if (!hasDebugInfo) {
    warnings.push(`${spec.program} has no debug info: no source lines, locals or argument names (rebuild with -g)`);
  }
  // C++: libstdc++'s printers, loaded explicitly (auto-load stays off), so std::string, vector,
  // map show their values within the same bounds as everything else.
  if (await programUsesLibstdcxx(spec.program).catch(() => false)) {
    const printers = await loadLibstdcxxPrinters((c) => g.cli(c, { signal }), {
      printers: libstdcxxPrintersOnce(),
      cacheDir: defaultPrinterCacheDir(),
    });
    if (printers.state !== 'loaded') warnings.push(printers.detail);
  }
  await setArguments(g, spec.program, spec.args, options.throughStub === true, signal, spec.stdinFile);
  if (spec.cwd !== undefined) {
    assertSingleLine(spec.cwd, 'cwd');
    await gdbSet(g.mi, `cwd ${spec.cwd}`, { signal });
  }
  // SHELL was set for GDB's own use; the program should not inherit it.
  await g.cli('unset environment SHELL', { signal });
  // A sanitized program stops alive at its report (abort_on_error), without LeakSanitizer, which
  // cannot run under ptrace; the user's own options (env, or passed through) are merged, never overridden.
  const sanitizers = await sanitizersIn(spec.program).catch(() => []);
  const tuned = sanitizers.length > 0 ? sanitizerEnvironment(spec.env, g.options.env, sanitizers) : undefined;
  if (tuned) warnings.push(...tuned.notes);
  for (const [name, value] of Object.entries({ ...spec.env, ...tuned?.additions })) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new DebuggerError('invalid_argument', `environment variable name ${JSON.stringify(name)} is not valid`);
    }
    assertSingleLine(value, `env.${name}`);
    await gdbSet(g.mi, `environment ${name}=${value}`, { signal });
  }
  return { warnings, hasDebugInfo };
}

async function setArguments(
  g: GdbContext,
  program: string,
  args: readonly string[],
  throughStub: boolean,
  signal?: AbortSignal,
  stdinFile?: string,
): Promise<void> {
  args.forEach((a, i) => {
    assertSingleLine(a, `args[${i}]`);
  });
  if (throughStub && stdinFile !== undefined) {
    throw new DebuggerError(
      'invalid_argument',
      'stdin_file: gdbserver starts the program on its own machine, with its own stdin; give gdbserver the file there (gdbserver … PROGRAM < FILE), or run the program here',
      { fields: ['stdin_file'] },
    );
  }
  if (throughStub) {
    // gdbserver --multi gets the argv in its vRun packet and starts the program with no shell of
    // ours. Measured with gdbserver 13.1: it refuses an argument with white space ("can't handle
    // command-line argument containing whitespace"), drops an empty one, and hands the program its
    // own backslash before a quote or a backslash (`it's` arrives as `it\'s`). Those are refused
    // here rather than passed changed; the others arrive as given ($, `, |, ; included).
    const bad = args.findIndex((a) => a === '' || /[\s'"\\]/.test(a));
    if (bad >= 0) {
      throw new DebuggerError(
        'invalid_argument',
        `args[${bad}]: through gdbserver an argument cannot be empty or hold white space, a quote or a backslash (gdbserver refuses or changes it); run the program here, or under gdbserver started with its arguments`,
        { fields: ['args'] },
      );
    }
    await gdbSet(g.mi, 'startup-with-shell off', { signal });
    await execArguments(g.mi, args.join(' '), { signal });
    return;
  }
  // Plain arguments: no shell. Others: hex tokens for the launcher, which GDB runs as its shell
  // and follows into the program (same pid; breakpoints go in only after that exec).
  const plan = launchPlan(program, args, await ensureLauncher(), stdinFile);
  await gdbSet(g.mi, `startup-with-shell ${plan.startupWithShell ? 'on' : 'off'}`, { signal });
  await execArguments(g.mi, plan.argsText, { signal });
}

/** A path that runs no shell: never left unset, or GDB would run /bin/sh. */
const NO_SHELL = '/nonexistent/dbg-mcp-no-shell';

/** What GDB is to run as its SHELL: the launcher, or a path that runs nothing. */
export async function gdbShell(): Promise<string> {
  const launcher = await ensureLauncher();
  return launcher.available ? launcher.path : NO_SHELL;
}

/** The doctor's line for the launcher: where it is, or why arguments with spaces are refused. */
export async function launcherDoctorCheck(): Promise<DoctorCheck> {
  return launcherLine(await ensureLauncher());
}

function launcherLine(status: LauncherStatus): DoctorCheck {
  return status.available
    ? { name: 'launcher', ok: true, detail: `program arguments pass literally, with no shell (${status.path})` }
    : {
        name: 'launcher',
        ok: false,
        detail: `no launcher (${status.reason}): program arguments that are empty or hold white space are refused`,
        fix: 'install a C compiler (apt-get install gcc), then restart the server',
      };
}

/** The program's own terminal: every run of it starts there (-inferior-tty-set). */
export async function openTerminal(g: GdbContext, signal?: AbortSignal): Promise<ProgramTerminal> {
  const terminal = await ProgramTerminal.open({ capacity: g.options.outputCapacity });
  try {
    await inferiorTtySet(g.mi, terminal.path, { signal });
  } catch (e) {
    terminal.close();
    throw e;
  }
  return terminal;
}
