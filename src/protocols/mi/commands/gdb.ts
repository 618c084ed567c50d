// GDB's own commands: settings, version, exit, and the CLI run through MI.

import type { MiCommandResult, MiSendOptions } from '../miConnection.js';
import { frameArgs, type MiFrameOptions, type MiSender } from './miSender.js';

/**
 * `-gdb-set NAME VALUE`. GDB hands the rest of the line to its CLI setting parser as written, so
 * the text goes raw (quoting would reach the setting as quote characters: see miCommand.ts).
 */
export function gdbSet(mi: MiSender, setting: string, s?: MiSendOptions): Promise<MiCommandResult> {
  return mi.send('gdb-set', { raw: setting }, s);
}

export function gdbVersion(mi: MiSender, s?: MiSendOptions): Promise<MiCommandResult> {
  return mi.send('gdb-version', [], { ...s, captureConsole: true });
}

export function gdbExit(mi: MiSender, s?: MiSendOptions): Promise<MiCommandResult> {
  return mi.send('gdb-exit', [], s);
}

/** One CLI command through MI (`-interpreter-exec console`), in a thread and frame if given. */
export function consoleCommand(
  mi: MiSender,
  o: MiFrameOptions & { command: string },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  return mi.send('interpreter-exec', [...frameArgs(o), 'console', o.command], s);
}
