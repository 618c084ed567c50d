// End-to-end: the built server (dist/dbg-mcp.js) over stdio, driven by the MCP SDK client: for
// what only a process shows (its stdout, stderr, exit, signals, CLI). Tool behaviour alone is
// faster in process: helpers/inProcess.ts, with the same `call`.

import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach } from 'vitest';
import * as z from 'zod/v4';
import { EVIDENCE_VERSION, errorShape, sessionShape } from '../../src/server/answers/shapes.js';
import { defaultConfig } from '../../src/server/config.js';
import { allTools } from '../../src/server/tools/index.js';
import { fixturesDir, repoRoot, serverArgs } from './paths.js';

export interface CallResult {
  /** structuredContent of the answer. */
  data: any;
  text: string;
  isError: boolean;
  /** The error code when isError. */
  code?: string;
  /** Bytes of the whole result as JSON (what the agent pays for). */
  size: number;
}

export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** What every harness offers a test: the SDK client, one call helper, and its shutdown. */
export interface McpCaller {
  client: Client;
  call(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallResult>;
  close(): Promise<void>;
}

export interface McpHarness extends McpCaller {
  transport: StdioClientTransport;
  /** stderr lines the server wrote (JSON logs). */
  stderr: string[];
}

/** One tool call through `client`, its answer shaped for assertions (shared by both harnesses). */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: CallOptions = {},
): Promise<CallResult> {
  const result = await client.callTool(
    { name, arguments: args },
    { timeout: options.timeoutMs ?? 60_000, ...(options.signal ? { signal: options.signal } : {}) },
  );
  checkContract(name, result.structuredContent, result.isError === true);
  const data = withoutVersion(result.structuredContent);
  const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
  return {
    data,
    text,
    isError: result.isError === true,
    ...(result.isError ? { code: data.error?.code } : {}),
    size: JSON.stringify(result).length,
  };
}

const open: McpHarness[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()));
});

/** Starts dist/dbg-mcp.js with the fixtures directory as workspace root, unless `args` names roots. */
export async function startServer(args: string[] = [], env: Record<string, string> = {}): Promise<McpHarness> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      join(repoRoot, 'dist', 'dbg-mcp.js'),
      ...(args.includes('--root') ? [] : ['--root', fixturesDir]),
      ...serverArgs(args, env),
    ],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
    stderr: 'pipe',
  });
  const stderr: string[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const client = new Client({ name: 'dbg-mcp-test', version: '1' });
  await client.connect(transport);
  const harness: McpHarness = {
    client,
    transport,
    stderr,
    call: (name, callArgs, options) => callTool(client, name, callArgs, options),
    async close() {
      await client.close().catch(() => {});
    },
  };
  open.push(harness);
  return harness;
}

/**
 * An answer's structuredContent without `evidence_version`, after checking that every answer
 * carries the contract's version (errors included): the tests then compare the tool's own fields.
 */
export function withoutVersion(structured: unknown): any {
  const data = { ...((structured ?? {}) as Record<string, unknown>) };
  if (data['evidence_version'] !== EVIDENCE_VERSION) {
    throw new Error(`answer without evidence_version ${EVIDENCE_VERSION}: ${JSON.stringify(structured).slice(0, 300)}`);
  }
  delete data['evidence_version'];
  return data;
}

const tools = new Map(allTools({ ...defaultConfig(), raw: 'read' }).map((t) => [t.name, t]));
const answerExtras = {
  session: sessionShape.optional(),
  warnings: z.array(z.string()).optional(),
  evidence_version: z.literal(EVIDENCE_VERSION),
};

/**
 * Every answer the end-to-end tests see is checked against the published contract (the full
 * shapes of docs/schema, not the slim ones of tools/list): a tool that answers outside its shape
 * fails the test that called it.
 */
export function checkContract(tool: string, structured: unknown, isError: boolean): void {
  const def = tools.get(tool);
  if (!def) return;
  const schema = isError
    ? z.object({ error: errorShape, session: answerExtras.session, evidence_version: answerExtras.evidence_version })
    : def.output.extend(answerExtras);
  const parsed = schema.safeParse(structured);
  if (!parsed.success) {
    throw new Error(
      `${tool} answered outside its contract: ${parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .join('; ')}`,
    );
  }
}
