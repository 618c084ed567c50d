// dbg_command: the escape hatch, one raw debugger command in the backend's own language, and its
// console output. The backend refuses what its policy does not allow (backends/<kind>/).

import * as z from 'zod/v4';
import { cut, LIMITS } from '../../session/limits.js';
import { outcomeShape, outputChunkShape } from '../answers/shapes.js';
import { defineSessionTool } from '../defineTool.js';
import { printable, renderOutcome } from '../render.js';
import { frameLevel, line, sessionId, threadId } from '../schemas.js';
import { outcomeWire, outputWire } from '../wire.js';
import { programOutputLines } from './runAnswer.js';

const input = z.strictObject({
  session_id: sessionId,
  command: line(4096)
    .refine((s) => s.trim() !== '', 'is empty')
    .describe('One line, e.g. "info frame".'),
  thread: threadId.optional(),
  frame: frameLevel.optional(),
  timeout_ms: z.number().int().min(1).max(3_600_000).optional().describe('ms (default 30000).'),
});

const output = z.object({
  output: z.string(),
  truncated: z.boolean().optional().describe('Present (true) when the output was cut.'),
  outcome: outcomeShape.optional().describe('Present when the command moved the program.'),
  program_output: outputChunkShape.optional().describe('What the program printed while it moved.'),
  session: z.looseObject({}),
});

export const commandTool = defineSessionTool({
  name: 'dbg_command',
  title: 'Raw command',
  description: `Escape hatch: one GDB CLI command, with the server's authority; its output (${LIMITS.commandOutputMax} chars max). Resuming commands wait for the stop. Refused, to protect the session: quit, kill, detach, attach, shell, multi-line, server settings.`,
  input,
  output,
  requires: ['loaded', 'stopped', 'running', 'exited'],
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(args, ctx) {
    const session = ctx.session;
    const cursor = session.outputEnd ?? 0;
    const result = await session.command(
      args.command,
      {
        policy: ctx.config.rawPolicy,
        timeoutMs: args.timeout_ms ?? ctx.config.commandTimeoutMs,
        ...(args.thread !== undefined ? { threadId: args.thread } : {}),
        ...(args.frame !== undefined ? { frame: args.frame } : {}),
      },
      ctx.call({ doing: 'run a debugger command' }),
    );
    const kept = cut(result.output, LIMITS.commandOutputMax);
    const truncated = kept.truncated || result.truncated;
    const lines = [kept.text === '' ? '(no output)' : printable(kept.text.trimEnd())];
    if (truncated) lines.push(`[output cut at ${LIMITS.commandOutputMax} characters: narrow the command]`);
    const data: Omit<z.infer<typeof output>, 'session'> = { output: kept.text };
    if (truncated) data.truncated = true;
    if (result.outcome) {
      data.outcome = outcomeWire(result.outcome);
      lines.push(renderOutcome(result.outcome));
      const printed = session.outputSince(cursor);
      if (printed) {
        data.program_output = outputWire(printed, cursor);
        lines.push(...programOutputLines(data.program_output.text, 'program output:'));
      }
    }
    return { data, text: lines.join('\n'), session };
  },
});
