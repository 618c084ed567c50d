// End-to-end in this process: the SDK Client connected to createServer() over the SDK's in-memory
// transport, with the same `call` as the spawned server (helpers/mcp.ts). Everything a tool does
// is real (gdb, the program, the MCP layer and its schemas); what is skipped is a node process
// started per test and JSON over a pipe, which the spawned-server tests keep for what only a
// process shows (stdout purity, stderr logs, signals, hang-up, the CLI).
//
// Closed after each test: every session is closed, and then none of the gdbs and programs the
// server ran may be alive (read from /proc, not asked of the code under test).
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, expect } from 'vitest';
import { parseCommandLine } from '../../src/cli/options.js';
import { type CreatedServer, createServer } from '../../src/server/createServer.js';
import { setLogLevel } from '../../src/util/log.js';
import { callTool, type McpCaller } from './mcp.js';
import { fixturesDir, serverArgs } from './paths.js';
import { alive, descendants, describeProcs } from './procfs.js';

export interface InProcessHarness extends McpCaller {
  /** The server's own objects, for a test that must look inside (its session manager). */
  created: CreatedServer;
}

const open: { harness: InProcessHarness; gdbsBefore: Set<number> }[] = [];

afterEach(async () => {
  const closing = open.splice(0);
  const leaks: string[] = [];
  // One after the other: each leaves what it held dead before the next is judged.
  for (const { harness } of closing) leaks.push(...(await shutDown(harness)));
  if (closing[0]) leaks.push(...strayGdbs(closing[0].gdbsBefore));
  expect(leaks, 'what the in-process server left behind').toEqual([]);
});

/** gdbs this process started (in process, the server's gdbs are its direct children). */
function gdbChildren(): Set<number> {
  return new Set(
    descendants()
      .filter((p) => p.ppid === process.pid && p.comm === 'gdb')
      .map((p) => p.pid),
  );
}

/** gdbs started since `before` and still alive, with no open harness left to own them. */
function strayGdbs(before: Set<number>): string[] {
  const strays = [...gdbChildren()].filter((pid) => !before.has(pid) && alive(pid));
  return describeProcs(descendants().filter((p) => strays.includes(p.pid))).map((p) => `gdb ${p}`);
}

/** Closes the client and every session; answers what is still alive that should not be. */
async function shutDown(h: InProcessHarness): Promise<string[]> {
  // What the sessions hold, asked through the tool an agent would use.
  const listed = await h
    .call('dbg_sessions', {})
    .then((r) => (r.data.sessions ?? []) as { id: string; debugger_pid?: number; pids?: number[]; joined?: string }[])
    .catch(() => []);
  await h.client.close().catch(() => {});
  await h.created.shutdown();
  const left: string[] = [];
  if (h.created.sessions.size !== 0) left.push(`${h.created.sessions.size} session(s) still open`);
  // A person's debugger joined, and their program, are theirs: closing leaves them running.
  for (const s of listed.filter((l) => l.joined === undefined)) {
    for (const pid of [s.debugger_pid, ...(s.pids ?? [])]) {
      if (pid !== undefined && alive(pid)) left.push(`pid ${pid} of session ${s.id}`);
    }
  }
  return left;
}

/**
 * The server of `dbg-mcp [args]` in this process, the fixtures directory as its workspace root
 * unless `args` names roots. `env` holds DBG_MCP_* settings, as the spawned server's environment.
 */
export async function startInProcess(args: string[] = [], env: Record<string, string> = {}): Promise<InProcessHarness> {
  const parsed = parseCommandLine(
    [...(args.includes('--root') ? [] : ['--root', fixturesDir]), ...serverArgs(args, env)],
    env,
  );
  if (parsed.command !== 'serve') throw new Error(`startInProcess serves; "${parsed.command}" is the CLI's`);
  const config = { ...parsed.config, roots: parsed.config.roots.map((r) => resolve(r)) };
  // The call log (info) is the spawned server's to test (callLog.test.ts); here it is noise.
  setLogLevel(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const gdbsBefore = gdbChildren();
  const created = createServer(config);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await created.server.connect(serverSide);
  const client = new Client({ name: 'dbg-mcp-test', version: '1' });
  await client.connect(clientSide);
  const harness: InProcessHarness = {
    client,
    created,
    call: (name, callArgs, options) => callTool(client, name, callArgs, options),
    async close() {
      const at = open.findIndex((o) => o.harness === harness);
      if (at >= 0) open.splice(at, 1);
      const leaks = await shutDown(harness);
      // Strays are judged only when no other harness is open to own them.
      if (open.length === 0) leaks.push(...strayGdbs(gdbsBefore));
      if (leaks.length > 0) throw new Error(`the in-process server left behind: ${leaks.join('; ')}`);
    },
  };
  open.push({ harness, gdbsBefore });
  return harness;
}
