// Commands about what GDB debugs: the program file, its libraries, threads, attach and targets.

import type { MiCommandResult, MiSendOptions } from '../miConnection.js';
import type { MiSender } from './miSender.js';

export function fileExecAndSymbols(mi: MiSender, program: string, s?: MiSendOptions): Promise<MiCommandResult> {
  return mi.send('file-exec-and-symbols', [program], s);
}

export function fileListSharedLibraries(mi: MiSender, s?: MiSendOptions): Promise<MiCommandResult> {
  return mi.send('file-list-shared-libraries', [], s);
}

export function threadInfo(mi: MiSender, s?: MiSendOptions): Promise<MiCommandResult> {
  return mi.send('thread-info', [], s);
}

export function targetAttach(mi: MiSender, pid: number, s?: MiSendOptions): Promise<MiCommandResult> {
  return mi.send('target-attach', [String(pid)], s);
}

export function targetDetach(mi: MiSender, s?: MiSendOptions): Promise<MiCommandResult> {
  return mi.send('target-detach', [], s);
}

/** `-target-select core FILE`, `remote HOST:PORT`, `extended-remote HOST:PORT`. */
export function targetSelect(
  mi: MiSender,
  o: { kind: 'core' | 'remote' | 'extended-remote'; where: string },
  s?: MiSendOptions,
): Promise<MiCommandResult> {
  return mi.send('target-select', [o.kind, o.where], s);
}

/** The program's terminal: GDB starts every run of the program on this tty. */
export function inferiorTtySet(mi: MiSender, path: string, s?: MiSendOptions): Promise<MiCommandResult> {
  return mi.send('inferior-tty-set', [path], s);
}
