// -break-* and -catch-* commands.

import type { MiCommandResult, MiSendOptions } from '../miConnection.js';
import { frameArgs, type MiFrameOptions, type MiSender } from './miSender.js';

export interface BreakInsertOptions {
  location: string;
  temporary?: boolean | undefined;
  hardware?: boolean | undefined;
  disabled?: boolean | undefined;
  condition?: string | undefined;
  ignoreCount?: number | undefined;
  thread?: number | undefined;
}

/** `-break-insert -f …`: -f keeps a location that does not resolve yet as a pending breakpoint. */
export function breakInsert(mi: MiSender, o: BreakInsertOptions, s?: MiSendOptions): Promise<MiCommandResult> {
  const args: string[] = ['-f'];
  if (o.temporary) args.push('-t');
  if (o.hardware) args.push('-h');
  if (o.disabled) args.push('-d');
  if (o.condition) args.push('-c', o.condition);
  if (o.ignoreCount) args.push('-i', String(o.ignoreCount));
  if (o.thread !== undefined) args.push('-p', String(o.thread));
  // `--` ends the options: a location may itself start with '-' (explicit locations).
  args.push('--', o.location);
  return mi.send('break-insert', args, s);
}

export function breakWatch(
  mi: MiSender,
  o: MiFrameOptions & { expression: string; access: 'write' | 'read' | 'access' },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  const flag = o.access === 'read' ? ['-r'] : o.access === 'access' ? ['-a'] : [];
  // --thread/--frame pick the scope the expression is read in (MI's global options, first).
  return mi.send('break-watch', [...frameArgs(o), ...flag, o.expression], s);
}

/** `-break-condition N [EXPR]`: without an expression, the condition is removed. */
export function breakCondition(
  mi: MiSender,
  o: { number: string; condition: string },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  return mi.send('break-condition', o.condition === '' ? [o.number] : [o.number, o.condition], s);
}

export function breakAfter(
  mi: MiSender,
  o: { number: string; count: number },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  return mi.send('break-after', [o.number, String(o.count)], s);
}

export function breakChange(
  mi: MiSender,
  op: 'delete' | 'enable' | 'disable',
  numbers: readonly string[],
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  return mi.send(`break-${op}`, numbers, s);
}

export function breakList(mi: MiSender, s?: MiSendOptions): Promise<MiCommandResult> {
  return mi.send('break-list', [], s);
}

/** `-break-info N`: one breakpoint, in -break-list's table shape. */
export function breakInfo(mi: MiSender, number: string, s?: MiSendOptions): Promise<MiCommandResult> {
  return mi.send('break-info', [number], s);
}

/** `-catch-throw`, `-catch-catch`, `-catch-rethrow` (C++), with a type regexp. */
export function catchException(
  mi: MiSender,
  o: { event: 'throw' | 'catch' | 'rethrow'; temporary?: boolean | undefined; regexp?: string | undefined },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  return mi.send(
    `catch-${o.event}`,
    [...(o.temporary ? ['-t'] : []), ...(o.regexp !== undefined ? ['-r', o.regexp] : [])],
    s,
  );
}

/** `-catch-load`, `-catch-unload`: a shared library whose name matches the regexp. */
export function catchLibrary(
  mi: MiSender,
  o: { event: 'load' | 'unload'; temporary?: boolean | undefined; regexp: string },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  return mi.send(`catch-${o.event}`, [...(o.temporary ? ['-t'] : []), o.regexp], s);
}
