// The attach policy (--attach-pids) applied to a Windows pid. Windows pids are the wineserver's,
// not the kernel's, so the server's check of a Unix process does not apply; this one does:
// - none: refused, as for a Unix pid;
// - own and any: the pid must name a process of this server's Wine prefix (every process of a
//   prefix runs as the wineserver's user, which is the server's own: the wineserver refuses
//   clients of another uid), and not one of Wine's own (services.exe, winedevice.exe… serve every
//   program of the prefix: stopping one would stall the others; winedbg and our launcher belong
//   to sessions);
// - a list names Unix pids, and the Unix pid behind a Windows one cannot be read from outside
//   Wine: a Windows pid is refused, with the way to allow it.

import { DebuggerError } from '../../util/errors.js';
import type { WindowsProcess } from './winedbgText.js';

/** The server's --attach-pids, as the registry passes it on. */
export type AttachPolicySetting = 'none' | 'own' | 'any' | readonly number[];

const WINE_OWN = new Set([
  'services.exe',
  'winedevice.exe',
  'plugplay.exe',
  'svchost.exe',
  'rpcss.exe',
  'explorer.exe',
  'wineboot.exe',
  'winemenubuilder.exe',
  'conhost.exe',
  'start.exe',
  'winedbg.exe',
]);

function refuse(why: string): never {
  throw new DebuggerError('invalid_argument', `attach: ${why}`, { field: 'attach' });
}

/** The image name of a path as winedbg prints it ("C:\\windows\\system32\\services.exe" or "services.exe"). */
function imageName(name: string): string {
  return (name.split(/[\\/]/).pop() ?? name).toLowerCase();
}

/** Wine's own processes, winedbg, and our launcher. */
function isWineOwn(name: string): boolean {
  const image = imageName(name);
  return WINE_OWN.has(image) || image.startsWith('dbgmcp-launch');
}

/** Refuses before anything is listed: what the policy alone decides. */
export function checkAttachPolicy(pid: number, policy: AttachPolicySetting): void {
  if (!Number.isSafeInteger(pid) || pid <= 0) refuse(`${pid} is not a Windows process id`);
  if (policy === 'none') refuse('attaching is off on this server (start it with --attach-pids own, any or a list)');
  if (Array.isArray(policy)) {
    refuse(
      `--attach-pids lists Unix pids, and ${pid} is a Windows pid of the Wine prefix (its Unix pid cannot be read from outside Wine): start the server with --attach-pids own or any to attach to Windows programs`,
    );
  }
}

/** The process `pid` names among the prefix's, when the policy lets a session attach to it. */
export function checkWindowsAttach(
  pid: number,
  policy: AttachPolicySetting,
  processes: readonly WindowsProcess[],
): WindowsProcess {
  checkAttachPolicy(pid, policy);
  const found = processes.find((p) => p.pid === pid);
  if (!found) {
    const programs = processes.filter((p) => p.mark === undefined && !isWineOwn(p.name));
    const list = programs
      .slice(0, 8)
      .map((p) => `0x${p.pid.toString(16)} ${p.name}`)
      .join(', ');
    refuse(
      `no Windows process ${pid} (0x${pid.toString(16)}) runs in this server's Wine prefix${list ? `; programs there: ${list}` : ''} (dbg_command "winedbg info process" lists every process)`,
    );
  }
  if (isWineOwn(found.name)) {
    refuse(
      `${found.name} (0x${pid.toString(16)}) is one of Wine's own processes, serving every program of the prefix; attach to a program instead`,
    );
  }
  return found;
}
