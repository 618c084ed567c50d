// The MCP server factory: registers every tool, resource and prompt on a fresh McpServer. No
// side effects at import; the caller owns the session manager (one per connection).

import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { type CallToolResult, McpServer, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { configureMachineProbe, startMachineProbe } from '../backends/registry.js';
import type { Session } from '../session/session.js';
import { SessionManager, type SessionManagerOptions } from '../session/sessionManager.js';
import type { SessionObserver } from '../session/sessionObserver.js';
import { DebuggerError, toDebuggerError } from '../util/errors.js';
import { log } from '../util/log.js';
import { packageVersion } from '../util/version.js';
import { clientName } from './clientName.js';
import { backendPaths, defaultConfig, type ServerConfig } from './config.js';
import type { ToolContext, ToolDefinition } from './defineTool.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { failure, success } from './response.js';
import { describeIssues } from './schemas.js';
import { allTools } from './tools/index.js';

/**
 * What the server reports as it answers, for /metrics: src/transport/metrics.ts implements it.
 * Optional: stdio has no /metrics and passes none.
 */
export interface CallObserver extends SessionObserver {
  /** outcome: `ok` or the error code; bytes: the JSON of the result. */
  toolCall(tool: string, outcome: string, ms: number, bytes: number): void;
  /**
   * An input refused before a debugger saw it: `schema`, or the `refusal` a DebuggerError's
   * details carry where a policy, a root or a limit refuses (outside_roots, session_limit, …).
   */
  refused(reason: string): void;
}

export interface CreatedServer {
  server: McpServer;
  sessions: SessionManager;
  /** Closes every session (the transport is the caller's). */
  shutdown(): Promise<void>;
}

/**
 * tools/list is paid for by the agent on every turn, so the advertised JSON Schemas keep what
 * tells a model how to call (types, enums, descriptions, required fields, no unknown fields) and
 * lose what the server enforces and names in its error when hit: length and range caps, patterns,
 * the $schema URL and the empty shells of open objects. Output schemas keep their field names.
 */
const DROPPED = new Set([
  '$schema',
  'maxLength',
  'minLength',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'pattern',
  'propertyNames',
]);

export function slimJsonSchema(node: unknown, output = false, depth = 0): unknown {
  if (Array.isArray(node)) return node.map((n) => slimJsonSchema(n, output, depth));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key)) continue;
    // An output schema names its top-level fields; their shapes are the tool's documented answer
    // (docs/schema/ publishes them whole, shared shapes included).
    if (output && (depth >= 1 || key === '$defs')) continue;
    if (output && (key === 'required' || key === 'additionalProperties' || key === 'items')) continue;
    if (key === 'properties' && value && typeof value === 'object' && Object.keys(value).length === 0) continue;
    if (key === 'additionalProperties' && value && typeof value === 'object' && Object.keys(value).length === 0)
      continue;
    // Property maps hold field names, not schema keywords: slim their values, keep every name.
    out[key] =
      key === 'properties' && value && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, slimJsonSchema(v, output, depth + 1)]))
        : slimJsonSchema(value, output, depth);
  }
  return out;
}

type StandardProps = StandardSchemaWithJSON['~standard'];

function slimmed(std: StandardProps, validate: StandardProps['validate'], isOutput: boolean): StandardSchemaWithJSON {
  return {
    '~standard': {
      ...std,
      validate,
      jsonSchema: {
        input: (options) => slimJsonSchema(std.jsonSchema.input(options), isOutput) as Record<string, unknown>,
        output: (options) => slimJsonSchema(std.jsonSchema.output(options), isOutput) as Record<string, unknown>,
      },
    },
  };
}

/**
 * The SDK validates arguments before a handler runs and answers a mismatch with bare text. We
 * want our own `invalid_argument` answer (code, field names), so the SDK gets a schema that
 * advertises the real JSON Schema but lets every value through; the handler validates.
 */
function advertiseOnly(schema: z.ZodObject): StandardSchemaWithJSON {
  const std = schema['~standard'] as unknown as StandardProps;
  return slimmed(std, (value: unknown) => ({ value }), false);
}

/**
 * Output schemas are advertised (slimmed) and not checked again at every call: the SDK's check
 * walked every answer through a union of the view shapes (0.1-0.3 ms a call measured on a 2-core
 * VM, a third of an MCP ping), while the contract is held by the tests, which check every answer
 * they see against the full shapes of docs/schema (test/helpers/mcp.ts checkContract).
 */
function outputSchema(schema: z.ZodObject): StandardSchemaWithJSON {
  const std = schema['~standard'] as unknown as StandardProps;
  return slimmed(std, (value: unknown) => ({ value }), true);
}

/**
 * Annotations as the spec reads them: readOnlyHint and idempotentHint default to false and
 * destructiveHint to true (and means nothing for a read-only tool), so only what differs from the
 * defaults is sent; openWorldHint is always false (a debugger on this machine, no outside world).
 */
export function advertisedAnnotations(a: ToolDefinition['annotations']): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  if (a.readOnlyHint) out['readOnlyHint'] = true;
  else if (!a.destructiveHint) out['destructiveHint'] = false;
  if (a.idempotentHint) out['idempotentHint'] = true;
  out['openWorldHint'] = false;
  return out;
}

/**
 * A short hash of every tool's contract (name, description, annotations, input and output JSON
 * Schemas, every tool included): two builds that answer alike have the same hash, so `--version`
 * tells a client whether what it learned about the tools still holds.
 */
export function toolSchemaHash(config: ServerConfig = defaultConfig()): string {
  return hashTools(allTools({ ...config, raw: 'full' }));
}

export function hashTools(tools: readonly ToolDefinition[]): string {
  const contract = tools.map((t) => ({
    name: t.name,
    description: t.description,
    annotations: t.annotations,
    input: z.toJSONSchema(t.input, { unrepresentable: 'any' }),
    output: z.toJSONSchema(t.output, { unrepresentable: 'any' }),
  }));
  return createHash('sha256').update(JSON.stringify(contract)).digest('hex').slice(0, 16);
}

let callCounter = 0;

/**
 * Arguments as the log keeps them: cut to their caps, and environment values redacted (the
 * names stay): a token passed to a program through `env` must not land in the operator's log.
 */
function cutForLog(value: unknown, depth = 0, key = ''): unknown {
  if (key === 'env' && value && typeof value === 'object' && !Array.isArray(value)) {
    return Object.fromEntries(
      Object.keys(value)
        .slice(0, 64)
        .map((k) => [k, '<redacted>']),
    );
  }
  if (typeof value === 'string') return value.length > 4096 ? `${value.slice(0, 4096)}…(${value.length} chars)` : value;
  if (Array.isArray(value)) return depth > 4 ? '[…]' : value.slice(0, 64).map((v) => cutForLog(v, depth + 1));
  if (value && typeof value === 'object') {
    if (depth > 4) return '{…}';
    return Object.fromEntries(
      Object.entries(value)
        .slice(0, 64)
        .map(([k, v]) => [k, cutForLog(v, depth + 1, k)]),
    );
  }
  return value;
}

/** Notes the call in its session's history (dbg_sessions history=true): a session's own calls only. */
function noteInHistory(
  sessions: SessionManager,
  client: string,
  tool: string,
  sessionId: string | undefined,
  rawArgs: unknown,
  result: CallToolResult,
  at: number,
  durationMs: number,
): void {
  const structured = (result.structuredContent ?? {}) as Record<string, unknown>;
  // A call refused by its schema is still a call on the session it named.
  const named = (rawArgs as { session_id?: unknown } | undefined)?.session_id;
  const id =
    sessionId ??
    (typeof named === 'string' ? named : undefined) ??
    (typeof structured['session_id'] === 'string' ? structured['session_id'] : undefined);
  // Reading the history is not itself history.
  if (id === undefined || tool === 'dbg_sessions') return;
  const session = structured['session'] as { stop_id?: number; summary?: string } | undefined;
  const error = result.isError ? (structured['error'] as { code?: string } | undefined) : undefined;
  sessions.noteCall(id, client, {
    at,
    tool,
    arguments: cutForLog(rawArgs),
    outcome: error ? `error:${error.code ?? '?'}` : 'ok',
    durationMs,
    ...(session?.stop_id !== undefined && session.stop_id > 0 ? { stopId: session.stop_id } : {}),
    ...(typeof session?.summary === 'string' ? { stopSummary: session.summary } : {}),
    observations: observationIdsOf(structured),
  });
}

/** The observation ids an answer names (observation_id, observations{}, results[].observation_id). */
function observationIdsOf(structured: Record<string, unknown>): string[] {
  const ids: string[] = [];
  if (typeof structured['observation_id'] === 'string') ids.push(structured['observation_id']);
  const views = structured['observations'];
  if (views && typeof views === 'object') ids.push(...Object.values(views).filter((v) => typeof v === 'string'));
  const results = structured['results'];
  if (Array.isArray(results)) {
    for (const r of results) {
      const oid = (r as { observation_id?: unknown } | null)?.observation_id;
      if (typeof oid === 'string') ids.push(oid);
    }
  }
  return [...new Set(ids)];
}

/** The session manager's settings from the server's. */
export function sessionManagerOptions(config: ServerConfig, observer?: SessionObserver): SessionManagerOptions {
  return {
    maxSessions: config.maxSessions,
    warm: config.warm,
    clientSessions: config.clientSessions,
    idleTimeoutMs: config.idleTimeoutMs,
    backends: {
      paths: backendPaths(config),
      passthroughEnv: config.passthroughEnv,
      attachPids: config.attachPids,
      ...(config.winePrefix !== undefined ? { winePrefix: config.winePrefix } : {}),
      commandTimeoutMs: config.commandTimeoutMs,
      allowInferiorCalls: config.allowInferiorCalls,
      sourceRoots: config.roots.map((r) => {
        try {
          return realpathSync(r);
        } catch {
          return r;
        }
      }),
    },
    ...(config.transcriptDir ? { transcriptDir: config.transcriptDir } : {}),
    ...(observer ? { observer } : {}),
  };
}

/**
 * A server around `sessions` (one per connection when not given; HTTP shares one among every
 * request), reporting to `observer` when given (the sessions made here report to it too).
 */
export function createServer(
  config: ServerConfig = defaultConfig(),
  given?: SessionManager,
  observer?: CallObserver,
): CreatedServer {
  const sessions = given ?? new SessionManager(sessionManagerOptions(config, observer));
  const server = new McpServer(
    { name: 'dbg-mcp', version: packageVersion() },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions:
        'Debug native programs with real debuggers. Start with dbg_start (one call runs the program to its crash, hang or breakpoint and returns the evidence); read dbg://guide for the diagnosis workflows.',
    },
  );
  // The machine's hardware debugging is probed once per server, after the handshake so that
  // `initialize` never waits for it; the first watchpoint waits for it if it is still running.
  configureMachineProbe({ paths: backendPaths(config), passthroughEnv: config.passthroughEnv });
  server.server.oninitialized = () => startMachineProbe();
  for (const tool of allTools(config)) register(server, tool, sessions, config, observer);
  registerResources(server, sessions, config);
  registerPrompts(server);
  return { server, sessions, shutdown: () => sessions.closeAll() };
}

function register(
  server: McpServer,
  // biome-ignore lint/suspicious/noExplicitAny: tools differ in their input and output types; each validates its own.
  tool: ToolDefinition<any, any>,
  sessions: SessionManager,
  config: ServerConfig,
  observer: CallObserver | undefined,
): void {
  server.registerTool(
    tool.name,
    {
      description: tool.description,
      inputSchema: advertiseOnly(tool.input),
      outputSchema: outputSchema(tool.output),
      annotations: advertisedAnnotations(tool.annotations),
    },
    async (rawArgs: unknown, ctx): Promise<CallToolResult> => {
      const callId = ++callCounter;
      const started = Date.now();
      const client = clientName(ctx);
      const parsed = tool.input.safeParse(rawArgs ?? {});
      let result: CallToolResult;
      let sessionId: string | undefined;
      let refusal: string | undefined;
      if (!parsed.success) {
        const { message, fields } = describeIssues(parsed.error, tool.input);
        result = failure(new DebuggerError('invalid_argument', message, { fields }));
      } else {
        const args = parsed.data as Record<string, unknown>;
        sessionId = typeof args['session_id'] === 'string' ? args['session_id'] : undefined;
        const progressToken = ctx.mcpReq._meta?.progressToken;
        // The spec wants each notification's progress above the last one's: a tool reports
        // milliseconds run or a phase at 0, so a value that would not rise is lifted by one.
        let lastProgress = -1;
        const toolCtx: ToolContext = {
          client,
          sessions,
          config,
          signal: ctx.mcpReq.signal,
          progress: (progress, message) => {
            if (progressToken === undefined) return;
            const rising = progress > lastProgress ? progress : lastProgress + 1;
            lastProgress = rising;
            ctx.mcpReq
              .notify({ method: 'notifications/progress', params: { progressToken, progress: rising, message } })
              .catch(() => {});
          },
        };
        try {
          result = success(await tool.run(args, toolCtx), config.answerBudget);
        } catch (e) {
          const err = toDebuggerError(e);
          if (err.code === 'internal')
            log('error', 'tool failed unexpectedly', { tool: tool.name, error: String(e), stack: (e as Error)?.stack });
          // Where a policy, a root or a limit refused the input, the error names it (details.refusal);
          // a backend's raw-command policy says so by its reason. Counted here, once.
          const why = err.details?.['refusal'];
          if (typeof why === 'string') refusal = why;
          else if (err.reason === 'policy') refusal = 'raw_command_policy';
          let session: Session | undefined;
          try {
            // Only the caller's own session's state goes into its error answer.
            session = sessionId !== undefined ? sessions.get(sessionId, client) : undefined;
          } catch {
            session = undefined;
          }
          result = failure(err, session);
        }
      }
      const error = result.isError
        ? (result.structuredContent as { error?: { code?: string } } | undefined)?.error
        : undefined;
      const durationMs = Date.now() - started;
      noteInHistory(sessions, client, tool.name, sessionId, rawArgs, result, started, durationMs);
      const record = {
        callId,
        client,
        tool: tool.name,
        arguments: cutForLog(rawArgs),
        outcome: error ? `error:${error.code ?? '?'}` : 'ok',
        durationMs,
        ...(sessionId ? { session: sessionId } : {}),
        ...(refusal ? { refusal } : {}),
      };
      // After the answer is on its way: the log line is a write to a pipe (measured ~0.2 ms a
      // call on a 2-core VM), which the agent need not wait for; so are the metrics and the
      // pool's refill (a debugger started while the agent reads the answer).
      setImmediate(() => {
        log('info', 'tool call', record);
        sessions.callAnswered();
        if (!observer) return;
        if (!parsed.success) observer.refused('schema');
        if (refusal) observer.refused(refusal);
        observer.toolCall(tool.name, error?.code ?? 'ok', durationMs, JSON.stringify(result).length);
      });
      return result;
    },
  );
}
