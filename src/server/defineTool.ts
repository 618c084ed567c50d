// A tool is a plain definition: name, onboarding-note description, zod input and output,
// honest annotations, the session states it works in, and a handler that returns an Answer.
// defineSessionTool wraps a tool that works on one session: it finds the session, checks its state
// once, and hands the handler the session and the call it makes on it.

import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type * as z from 'zod/v4';
import type { Session, SessionCall } from '../session/session.js';
import type { SessionManager } from '../session/sessionManager.js';
import type { Phase } from '../session/sessionState.js';
import type { ServerConfig } from './config.js';
import type { Answer } from './response.js';

export interface ToolContext {
  /** Who calls: a token's name, `local` (unix socket), `loopback` (HTTP without tokens) or `stdio`. */
  client: string;
  sessions: SessionManager;
  config: ServerConfig;
  /** Aborts when the client cancels the request. */
  signal: AbortSignal;
  /** Sends a progress notification when the client asked for them; a no-op otherwise. */
  progress: (progress: number, message: string) => void;
}

/** The data a tool answers with: its output schema's fields, less what the answer builder adds. */
export type ToolData<O extends z.ZodObject> = Omit<z.infer<O>, 'session' | 'warnings' | 'evidence_version'>;

export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: Required<Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint'>>;
  run(args: z.output<I>, ctx: ToolContext): Promise<Answer<ToolData<O>>>;
}

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  def: ToolDefinition<I, O>,
): ToolDefinition<I, O> {
  return def;
}

export interface SessionToolContext extends ToolContext {
  session: Session;
  /** The call to make on the session: this tool's states, its words, the stop it is bound to. */
  call(options?: { doing?: string; stopId?: number | undefined }): SessionCall;
}

export interface SessionToolDefinition<I extends z.ZodObject, O extends z.ZodObject>
  extends Omit<ToolDefinition<I, O>, 'run'> {
  /** The states the tool works in, checked once here and again when its call reaches the mailbox. */
  requires: readonly Phase[];
  /** What the tool does, as a refusal names it: "cannot <doing>: the program is running…". */
  doing: string;
  run(args: z.output<I>, ctx: SessionToolContext): Promise<Answer<ToolData<O>>>;
}

export function defineSessionTool<I extends z.ZodObject, O extends z.ZodObject>(
  def: SessionToolDefinition<I, O>,
): ToolDefinition<I, O> {
  const { doing } = def;
  return {
    ...def,
    async run(args, ctx) {
      // Only the caller's own sessions: another client's is `no_session`, as an unknown id is.
      const session = ctx.sessions.get((args as { session_id: string }).session_id, ctx.client);
      if (def.requires.length > 0) session.requirePhase(def.requires, doing);
      return def.run(args, {
        ...ctx,
        session,
        call: (o = {}) => ({ phases: def.requires, doing: o.doing ?? doing, stopId: o.stopId, signal: ctx.signal }),
      });
    },
  };
}
