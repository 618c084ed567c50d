// dbg_command: the escape hatch, one raw debugger command in the backend's own language, and its
// console output. The backend refuses what its policy does not allow (backends/<kind>/).

import * as z from 'zod/v4';
import type { RawPolicy } from '../../backends/debuggerBackend.js';
import { cut, LIMITS } from '../../session/limits.js';
import { outcomeShape, outputChunkShape } from '../answers/shapes.js';
import { defineSessionTool } from '../defineTool.js';
import { quotedLines, renderOutcome } from '../render.js';
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

/** What the tool says of itself under each policy (short: tools/list is paid for on every turn). */
const DESCRIPTIONS: Record<RawPolicy, string> = {
  read: `One read-only debugger command (--raw read): print, x, ptype, bt, frame, up, down, thread N, info, show (rr: when, checkpoint, restart N). Output ≤${LIMITS.commandOutputMax} chars. Others are refused with the reason.`,
  full: `One raw debugger command with the server's authority (--raw full): no policy binds it (not the roots, remote hosts, attach pids, inferior calls nor the environment filter). Output ≤${LIMITS.commandOutputMax} chars; a resume waits for the stop. Refused: quit, kill, detach, attach, shell, multi-line, server settings.`,
};

export const commandTool = defineSessionTool({
  name: 'dbg_command',
  title: 'Raw command',
  description: DESCRIPTIONS.read,
  input,
  output,
  requires: ['loaded', 'stopped', 'running', 'exited'],
  doing: 'run a debugger command',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(args, ctx) {
    const session = ctx.session;
    const cursor = session.outputEnd ?? 0;
    const result = await session.command(
      args.command,
      {
        policy: ctx.config.raw === 'full' ? 'full' : 'read',
        timeoutMs: args.timeout_ms ?? ctx.config.commandTimeoutMs,
        ...(args.thread !== undefined ? { threadId: args.thread } : {}),
        ...(args.frame !== undefined ? { frame: args.frame } : {}),
      },
      ctx.call({ doing: 'run a debugger command' }),
    );
    const kept = cut(result.output, LIMITS.commandOutputMax);
    const truncated = kept.truncated || result.truncated;
    // The debugger's text quotes the program's data (names, strings): every line of it marked.
    const lines = kept.text === '' ? ['(no output)'] : quotedLines(kept.text.trimEnd());
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

/** dbg_command as offered under `policy`: the same tool, described as it will behave. */
export function commandToolFor(policy: RawPolicy): typeof commandTool {
  return { ...commandTool, description: DESCRIPTIONS[policy] };
}
