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

import { DebuggerError } from '../../util/errors.js';
import type { CommandOptions, CommandOutput, RawPolicy } from '../debuggerBackend.js';
import type { GdbBackend } from '../gdb/gdbBackend.js';
import { type AttachPolicySetting, checkWindowsAttach } from './windowsAttach.js';
import { parseInfoShare } from './winedbgText.js';
import type { WinedbgTrace } from './winedbgTrace.js';
import type { WineServices } from './wineServices.js';

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

/** What a raw command of a session may reach. */
export interface CommandContext {
  gdb: GdbBackend;
  services: WineServices;
  attachPolicy: AttachPolicySetting;
  /** The session's winedbg trace, while its program runs. */
  trace: WinedbgTrace | undefined;
  /** The Windows pids of the session's own program. */
  ownPids: readonly number[];
}

/** Runs one raw command where it belongs, under the policy. */
export async function runCommand(
  ctx: CommandContext,
  text: string,
  options: CommandOptions,
  signal?: AbortSignal,
): Promise<CommandOutput> {
  const route = routeCommand(text, options.policy);
  if ('refused' in route) {
    throw new DebuggerError(
      'invalid_argument',
      `refused: ${route.refused}`,
      { fields: ['command'] },
      { reason: 'policy' },
    );
  }
  const timing = {
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(signal ? { signal } : {}),
  };
  switch (route.to) {
    case 'gdb':
      return ctx.gdb.command(route.text, options, signal);
    case 'prompt': {
      const reply = await ctx.services.promptCommand(route.text, timing);
      return { output: reply.text, truncated: reply.dropped > 0 };
    }
    case 'exceptions':
      return { output: exceptionRecords(ctx.trace), truncated: false };
    case 'modules':
      return { output: await modulesOf(ctx, route.pid, timing), truncated: false };
  }
}

/** The session's Windows exceptions, as winedbg's trace recorded them. */
function exceptionRecords(trace: WinedbgTrace | undefined): string {
  if (!trace) return 'no program is running under this session';
  const lines = trace.recorded.map(
    (e) =>
      `0x${e.code.toString(16).padStart(8, '0')} ${e.name} in process 0x${e.pid.toString(16)}, thread 0x${e.tid.toString(16)}`,
  );
  return lines.length > 0 ? lines.join('\n') : 'no exception since the program started';
}

/** `info share` of a process no session debugs: the prompt attaches, lists, detaches. */
async function modulesOf(
  ctx: CommandContext,
  pid: number,
  timing: { timeoutMs?: number; signal?: AbortSignal },
): Promise<string> {
  if (ctx.ownPids.includes(pid)) return "this session's own program: dbg_inspect view=libraries lists its modules";
  const found = checkWindowsAttach(pid, ctx.attachPolicy, await ctx.services.processes(timing.signal));
  const hex = `0x${pid.toString(16)}`;
  const attached = await ctx.services.promptCommand(`attach ${hex}`, timing);
  try {
    const reply = await ctx.services.promptCommand('info share', timing);
    const modules = parseInfoShare(reply.text);
    if (modules.length === 0) return `${found.name} (${hex}): ${attached.text.trim()}\n${reply.text.trim()}`;
    return [
      `${found.name} (${hex}): ${modules.length} modules`,
      ...modules.map((m) => `${m.kind}\t0x${m.start.toString(16)}-0x${m.end.toString(16)}\t${m.debugInfo}\t${m.name}`),
    ].join('\n');
  } finally {
    await ctx.services.promptCommand('detach', { timeoutMs: 10_000 }).catch(() => undefined);
  }
}
