// Loading a program to launch: its symbols, argv (literal), working directory and environment,
// and the terminal it will run on.

import { ProgramTerminal } from '../../process/programTerminal.js';
import { execArguments } from '../../protocols/mi/commands/exec.js';
import { gdbSet } from '../../protocols/mi/commands/gdb.js';
import { fileExecAndSymbols, inferiorTtySet } from '../../protocols/mi/commands/target.js';
import { assertSingleLine } from '../../protocols/mi/miCommand.js';
import { elfHasDebugInfo, readElf } from '../../util/elf.js';
import { DebuggerError } from '../../util/errors.js';
import type { LaunchSpec } from '../debuggerBackend.js';
import { sanitizerEnvironment, sanitizersIn } from '../runtime/sanitizerBuild.js';
import { planArguments } from './gdbArguments.js';
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

/** Loads the program's symbols (and, for a launch, what it runs with). */
export async function loadProgram(g: GdbContext, spec: LaunchSpec, signal?: AbortSignal): Promise<LoadReport> {
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
  await setArguments(g, spec.args, signal);
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

async function setArguments(g: GdbContext, args: readonly string[], signal?: AbortSignal): Promise<void> {
  args.forEach((a, i) => {
    assertSingleLine(a, `args[${i}]`);
  });
  const plan = planArguments(args);
  await gdbSet(g.mi, `startup-with-shell ${plan.shell ? 'on' : 'off'}`, { signal });
  await execArguments(g.mi, plan.text, { signal });
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
