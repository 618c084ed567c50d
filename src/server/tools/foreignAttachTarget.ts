// dbg_start attach for a backend whose pids are not this machine's (capabilities.pidSpace: the
// winedbg backend takes the Windows pids of its Wine prefix). The server's check of a Unix
// process (/proc: its uid, whether it started the server) means nothing for such a pid, so the
// server decides here only what the policy alone decides — attaching off (none), or a list,
// which names Unix pids — and the backend checks the pid in its own terms (it must name a
// program of the prefix, not one of Wine's own processes).

import { DebuggerError } from '../../util/errors.js';
import type { ServerConfig } from '../config.js';
import { checkTargetArgs, type StartArgs, type StartTarget } from './startTarget.js';

function refuse(field: string, why: string): never {
  throw new DebuggerError('invalid_argument', `${field}: ${why}`, { fields: [field] });
}

export function foreignAttachTarget(args: StartArgs & { attach: number }, config: ServerConfig): StartTarget {
  checkTargetArgs(args);
  if (args.remote !== undefined) refuse('remote', 'a Windows pid is attached to here, in the Wine prefix');
  if (args.program !== undefined) {
    refuse('program', "attaching by Windows pid reads the program's symbols from its modules: leave program out");
  }
  const policy = config.attachPids;
  if (policy === 'none')
    refuse('attach', 'attaching is off on this server (start it with --attach-pids own, any or a list)');
  if (Array.isArray(policy)) {
    refuse(
      'attach',
      `--attach-pids lists Unix pids, and ${args.attach} is a Windows pid (its Unix pid cannot be read from outside Wine): start the server with --attach-pids own or any to attach to Windows programs`,
    );
  }
  const kind = args.backend ?? 'gdb';
  return {
    kind,
    target: { kind: 'attach', pid: args.attach },
    what: `attached to Windows pid ${args.attach} (0x${args.attach.toString(16)})`,
  };
}
