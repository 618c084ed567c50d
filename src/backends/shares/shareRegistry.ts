// Every debugger a person shares on this machine, whichever it is: GDB shares of `dbg-mcp share`
// and LLDB's own protocol servers. The registry (registry.ts) offers these to the layers above;
// they never learn where the files are or what the sockets speak.

import { DebuggerError } from '../../util/errors.js';
import type { DebuggerBackend, ShareEntry, ShareListing } from '../debuggerBackend.js';
import { readGdbShares } from '../gdbShare/gdbShareRecord.js';
import { JoinedGdbBackend } from '../gdbShare/joinedGdbBackend.js';
import { LldbMcpClient } from '../lldbShare/lldbMcpClient.js';
import { LldbShareBackend } from '../lldbShare/lldbShareBackend.js';
import { listenerDistrust, readLldbShares } from '../lldbShare/lldbShareRegistry.js';
import { narrowTargetList } from '../lldbShare/lldbShareText.js';
import { lldbRegistryDirectory, shareDirectory } from './shareFiles.js';

export interface JoinOptions {
  commandTimeoutMs?: number;
  transcript?: (direction: 'send' | 'recv', line: string) => void;
  /** Who joins (the MCP client's name), told to the share. */
  client?: string;
}

/** How long listing waits for one LLDB to say what it debugs. */
const PROBE_MS = 2000;

/** What an LLDB share debugs: asked of the LLDB itself (`target list`, a read). */
async function probeLldb(entry: ShareEntry): Promise<ShareEntry> {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(entry.address);
  if (!m?.[1] || !m[2] || entry.debuggerPid === undefined) return entry;
  if (listenerDistrust(Number(m[2]), entry.debuggerPid)) return entry;
  let client: LldbMcpClient | undefined;
  try {
    client = await LldbMcpClient.connect(m[1], Number(m[2]), { timeoutMs: PROBE_MS });
    const status = narrowTargetList((await client.command('target list', { timeoutMs: PROBE_MS })).text);
    return {
      ...entry,
      state: status.state,
      ...(status.program ? { program: status.program } : {}),
      ...(status.pid !== undefined ? { pid: status.pid } : {}),
    };
  } catch {
    return entry;
  } finally {
    client?.close();
  }
}

/** Every share of this user on this machine, and the registry files passed over (stale, distrusted). */
export async function listShares(env: NodeJS.ProcessEnv = process.env): Promise<ShareListing> {
  const gdb = readGdbShares(shareDirectory(env));
  const lldb = readLldbShares(lldbRegistryDirectory(env));
  const probed = await Promise.all(lldb.shares.map(probeLldb));
  return { shares: [...gdb.shares, ...probed], ignored: [...gdb.ignored, ...lldb.ignored] };
}

/** A backend on the person's debugger of `share`, connected and joined (not yet opened). */
export async function joinShare(
  share: ShareEntry,
  options: JoinOptions,
  signal?: AbortSignal,
): Promise<DebuggerBackend> {
  switch (share.debugger) {
    case 'gdb':
      return JoinedGdbBackend.join(share, options, signal);
    case 'lldb':
      return LldbShareBackend.join(share, options, signal);
    default:
      throw new DebuggerError('backend_unavailable', `a shared ${share.debugger} cannot be joined`);
  }
}
