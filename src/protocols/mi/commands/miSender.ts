// What a typed MI command needs of a connection: one send. MiConnection is one; a backend's own
// wrapper (which adds the stuck-command rescue, say) is another.

import type { MiCommandResult, MiSendOptions } from '../miConnection.js';

export interface MiSender {
  send(
    operation: string,
    args?: readonly string[] | { raw: string },
    options?: MiSendOptions,
  ): Promise<MiCommandResult>;
}

/** MI's `--thread N --frame M` options. GDB refuses `--frame` without `--thread`. */
export interface MiFrameOptions {
  thread?: number | undefined;
  frame?: number | undefined;
}

export function frameArgs(o: MiFrameOptions): string[] {
  const out: string[] = [];
  if (o.thread !== undefined) out.push('--thread', String(o.thread));
  if (o.frame !== undefined) out.push('--frame', String(o.frame));
  return out;
}
