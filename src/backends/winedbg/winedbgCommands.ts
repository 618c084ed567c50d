// Raw commands on a winedbg session: GDB's dialect through the proxy (a Windows process has one
// debugger at a time, and it is GDB's), plus winedbg's own `Wine-dbg>` prompt for what GDB cannot
// see: the prefix's Windows processes and threads, the modules of a process no session debugs,
// and the session's exception records. A command goes to the prompt when it starts with
// `winedbg ` ("winedbg info process"); `info process`, which GDB does not have, goes there too.
//
// The prompt is one per server and holds no process (see wineServices.ts). Its policy, under
// either raw policy: a command that would attach it to a process, let one run or end the prompt
// is refused (attach, detach, kill, quit, run, cont, step…); `read` allows only the listings.
// The line rules are winedbgPrompt.ts's (one line, checked twice).

import type { RawPolicy } from '../debuggerBackend.js';

/** What a raw command on this backend is: for GDB, for the prompt, or one of ours. */
export type WinedbgCommand =
  | { to: 'gdb'; text: string }
  | { to: 'prompt'; text: string }
  /** `info share PID`: attach at the prompt, list the modules, detach. */
  | { to: 'modules'; pid: number }
  /** `info exception`: the session's exception records, from winedbg's trace. */
  | { to: 'exceptions' };

const PREFIX = /^\s*winedbg(?:\s+(.*))?$/s;

/** Prompt commands `read` allows: listings of the prefix, no process needed. */
const READ_ONLY = /^(info\s+(process|thread|threads|wnd|system)|help)(\s|$)/;
/** Refused under every policy: they would attach the shared prompt, let a process run, or end it. */
const NEVER =
  /^(attach|detach|kill|quit|q|exit|run|r|cont|c|step|s|next|n|stepi|si|nexti|ni|finish|f|pass|until|u)(\s|$)/;

/** Parses a Windows pid as winedbg writes them (hex with 0x) or as a decimal number. */
export function parseWindowsPid(text: string): number | undefined {
  const t = text.trim();
  const n = /^0x[0-9a-f]+$/i.test(t) ? Number.parseInt(t, 16) : /^\d+$/.test(t) ? Number(t) : Number.NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** Where `text` goes, or a refusal (a string saying why). */
export function routeCommand(text: string, policy: RawPolicy): WinedbgCommand | { refused: string } {
  const m = PREFIX.exec(text);
  if (!m) {
    if (/^\s*info\s+process\s*$/.test(text)) return { to: 'prompt', text: 'info process' };
    return { to: 'gdb', text };
  }
  const command = (m[1] ?? '').trim();
  if (command === '') return { refused: 'winedbg: name a prompt command, e.g. "winedbg info process"' };
  const share = /^info\s+share(?:\s+(\S+))?$/.exec(command);
  if (share) {
    const pid = share[1] === undefined ? undefined : parseWindowsPid(share[1]);
    if (pid === undefined) {
      return {
        refused:
          'winedbg info share needs a Windows pid ("winedbg info share 0x2c8", from "winedbg info process"); this session\'s own modules: dbg_inspect view=libraries',
      };
    }
    return { to: 'modules', pid };
  }
  if (/^info\s+exceptions?$/.test(command)) return { to: 'exceptions' };
  if (NEVER.test(command)) {
    return {
      refused: `winedbg ${command.split(/\s/)[0]}: the prompt is shared by the server and holds no process; run control goes through dbg_run, a process through dbg_start attach`,
    };
  }
  if (policy === 'read' && !READ_ONLY.test(command)) {
    return {
      refused: `winedbg ${command}: this server allows read-only commands (winedbg info process, info thread, info share PID, info exception, info wnd)`,
    };
  }
  return { to: 'prompt', text: command };
}
