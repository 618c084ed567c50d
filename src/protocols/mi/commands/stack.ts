// -stack-* commands: frames, their arguments, the depth of a stack, and a frame's variables.

import type { MiCommandResult, MiSendOptions } from '../miConnection.js';
import { frameArgs, type MiFrameOptions, type MiSender } from './miSender.js';

export interface FrameRange {
  thread?: number | undefined;
  low?: number | undefined;
  high?: number | undefined;
}

function range(o: FrameRange): string[] {
  return o.low !== undefined && o.high !== undefined ? [String(o.low), String(o.high)] : [];
}

export function stackListFrames(mi: MiSender, o: FrameRange, s?: MiSendOptions): Promise<MiCommandResult> {
  return mi.send('stack-list-frames', [...frameArgs({ thread: o.thread }), ...range(o)], s);
}

/** How much of each value: names only, scalars and every type (simple), or every value (all). */
export type ValuesMode = 'no-values' | 'simple-values' | 'all-values';

export function stackListArguments(
  mi: MiSender,
  o: FrameRange & { values: ValuesMode },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  return mi.send('stack-list-arguments', [...frameArgs({ thread: o.thread }), `--${o.values}`, ...range(o)], s);
}

export function stackInfoDepth(
  mi: MiSender,
  o: { thread?: number | undefined; max: number },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  return mi.send('stack-info-depth', [...frameArgs({ thread: o.thread }), String(o.max)], s);
}

export function stackListVariables(
  mi: MiSender,
  o: MiFrameOptions & { values: ValuesMode },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  return mi.send('stack-list-variables', [...frameArgs(o), `--${o.values}`], s);
}
