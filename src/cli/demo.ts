// `dbg-mcp demo`: builds a bundled crashing program, starts this very server over stdio with the
// MCP SDK client, and plays an agent's turn: one dbg_start that runs to the crash and returns the
// evidence, one follow-up, and the close. Each call and its answer are printed as they happen.

import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { packageRoot, serverEntry } from '../util/version.js';

const repo = packageRoot();

function show(title: string, body: string): void {
  process.stdout.write(`\n── ${title} ${'─'.repeat(Math.max(0, 72 - title.length))}\n${body}\n`); // stdout-ok: the demo is not serving MCP
}

export async function runDemo(): Promise<number> {
  const work = mkdtempSync(join(tmpdir(), 'dbg-mcp-demo-'));
  const program = join(work, 'crash');
  try {
    // Built from a copy in the work directory, so the debug info names the file plainly (crash.c).
    copyFileSync(join(repo, 'fixtures', 'c', 'crash.c'), join(work, 'crash.c'));
    execFileSync('gcc', ['-g', '-O0', '-fno-omit-frame-pointer', '-o', 'crash', 'crash.c'], { cwd: work });
  } catch (e) {
    process.stderr.write(`dbg-mcp demo: could not build the demo program with gcc: ${(e as Error).message}\n`);
    return 1;
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [serverEntry(), '--root', work],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'dbg-mcp-demo', version: '1' });
  try {
    await client.connect(transport);
    const tools = await client.listTools();
    show('tools/list', tools.tools.map((t) => t.name).join(', '));
    const call = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
      show(`call ${name}`, JSON.stringify(args));
      const result = await client.callTool({ name, arguments: args });
      const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
      show(`answer${result.isError ? ' (error)' : ''}`, text);
      return (result.structuredContent ?? {}) as Record<string, unknown>;
    };
    const started = await call('dbg_start', { program, args: ['segv'] });
    const id = String(started['session_id']);
    await call('dbg_inspect', { session_id: id, view: 'frame', frame: 2 });
    await call('dbg_close', { session_id: id });
    return 0;
  } finally {
    await client.close().catch(() => {});
    rmSync(work, { recursive: true, force: true });
  }
}
