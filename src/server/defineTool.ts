// A tool is a plain definition: name, onboarding-note description, zod input and output,
// honest annotations, the session states it works in, and a handler that returns an Answer.

import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type * as z from 'zod/v4';
import type { SessionManager } from '../session/sessionManager.js';
import type { Phase } from '../session/sessionState.js';
import type { Answer } from './answer.js';
import type { ServerConfig } from './config.js';

export interface ToolContext {
  sessions: SessionManager;
  config: ServerConfig;
  /** Aborts when the client cancels the request. */
  signal: AbortSignal;
  /** Sends a progress notification when the client asked for them; a no-op otherwise. */
  progress: (progress: number, message: string) => void;
}

export interface ToolDefinition<I extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: z.ZodObject;
  annotations: Required<Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint'>>;
  /** States of the session this tool works in (undefined: needs no session). */
  requires?: readonly Phase[];
  run(args: z.output<I>, ctx: ToolContext): Promise<Answer>;
}

export function defineTool<I extends z.ZodObject>(def: ToolDefinition<I>): ToolDefinition<I> {
  return def;
}
