// The one answer builder: structuredContent (the tool's typed data, the session's state and stop
// id, warnings, the evidence contract's version), a short text rendering, and isError with a
// stable code for failures the agent can act on.

import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Session } from '../session/session.js';
import type { DebuggerError } from '../util/errors.js';
import { EVIDENCE_VERSION } from './answers/shapes.js';
import { printable } from './render.js';
import { sessionWire } from './wire.js';

export interface Answer<T extends object = Record<string, unknown>> {
  /** Tool-specific structured data (snake_case, compact), typed by the tool's output shape. */
  data: T;
  /** Tool-specific text, one thought per line. */
  text: string;
  /** The session the answer is about, for the state line. */
  session?: Session;
  warnings?: string[];
}

function stateLine(session: Session | undefined): string {
  if (!session) return '';
  const s = session.snapshot;
  const phase = s.state.phase;
  return `[session ${session.id} · ${phase}${s.stopId > 0 ? ` · stop ${s.stopId}` : ''}${s.recording ? ' · recording' : ''}]`;
}

/** Cuts text to the budget on a line boundary, saying so. */
export function fitText(text: string, budget: number): string {
  if (text.length <= budget) return text;
  const cutAt = text.lastIndexOf('\n', budget - 80);
  const kept = text.slice(0, cutAt > 0 ? cutAt : budget - 80);
  return `${kept}\n[… ${text.length - kept.length} more characters cut at the ${budget}-character answer budget: ask for a narrower view]`;
}

export function success(answer: Answer<object>, budget: number): CallToolResult {
  const structured: Record<string, unknown> = { ...answer.data };
  if (answer.session) structured['session'] = sessionWire(answer.session);
  if (answer.warnings && answer.warnings.length > 0) structured['warnings'] = answer.warnings;
  structured['evidence_version'] = EVIDENCE_VERSION;
  const warnings = (answer.warnings ?? []).map((w) => `warning: ${printable(w)}`);
  const lines = [stateLine(answer.session), answer.text, ...warnings].filter((l) => l !== '');
  return {
    content: [{ type: 'text', text: fitText(lines.join('\n'), budget) }],
    structuredContent: structured,
  };
}

export function failure(error: DebuggerError, session?: Session): CallToolResult {
  const structured: Record<string, unknown> = {
    error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) },
  };
  if (session) structured['session'] = sessionWire(session);
  structured['evidence_version'] = EVIDENCE_VERSION;
  const head = stateLine(session);
  return {
    content: [{ type: 'text', text: `${head ? `${head}\n` : ''}error (${error.code}): ${printable(error.message)}` }],
    structuredContent: structured,
    isError: true,
  };
}
