// -exec-* commands: start, resume, step and stop the program. Each answers ^running at once; the
// stop arrives later as *stopped.

import type { MiCommandResult, MiSendOptions } from '../miConnection.js';
import { frameArgs, type MiSender } from './miSender.js';

export interface ExecOptions {
  thread?: number | undefined;
  reverse?: boolean | undefined;
}

function execArgs(o: ExecOptions): string[] {
  return [...frameArgs({ thread: o.thread }), ...(o.reverse ? ['--reverse'] : [])];
}

/** `-exec-run`, or with `--start` a run that stops at main. */
export function execRun(mi: MiSender, o: { start?: boolean }, s?: MiSendOptions): Promise<MiCommandResult> {
  return mi.send('exec-run', o.start ? ['--start'] : [], s);
}

export function execContinue(mi: MiSender, o: ExecOptions, s?: MiSendOptions): Promise<MiCommandResult> {
  return mi.send('exec-continue', execArgs(o), s);
}

export type StepKind = 'next' | 'step' | 'step-instruction' | 'next-instruction';

/** `-exec-next`, `-exec-step` and their instruction forms, `count` times. */
export function execStep(
  mi: MiSender,
  kind: StepKind,
  o: ExecOptions & { count?: number | undefined },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  const count = o.count !== undefined && o.count > 1 ? [String(o.count)] : [];
  return mi.send(`exec-${kind}`, [...execArgs(o), ...count], s);
}

export function execFinish(mi: MiSender, o: ExecOptions, s?: MiSendOptions): Promise<MiCommandResult> {
  return mi.send('exec-finish', execArgs(o), s);
}

/** `-exec-until [LOCATION]`: without one, the next line greater than this one. */
export function execUntil(
  mi: MiSender,
  o: ExecOptions & { location?: string | undefined },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  return mi.send('exec-until', [...execArgs(o), ...(o.location !== undefined ? [o.location] : [])], s);
}

export function execJump(
  mi: MiSender,
  o: ExecOptions & { location: string },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  return mi.send('exec-jump', [...execArgs(o), o.location], s);
}

export function execInterrupt(mi: MiSender, s?: MiSendOptions): Promise<MiCommandResult> {
  return mi.send('exec-interrupt', [], s);
}

/** The program's arguments, as GDB keeps the text (it does not unquote it: see miCommand.ts). */
export function execArguments(mi: MiSender, text: string, s?: MiSendOptions): Promise<MiCommandResult> {
  return mi.send('exec-arguments', { raw: text }, s);
}
