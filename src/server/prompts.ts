// Prompts: the three diagnoses (crash, hang, wrong value) as a user message that names the exact
// tool calls, with the program and its arguments already filled in.

import type { GetPromptResult, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

/**
 * Prompt arguments are strings, so program arguments come as a JSON array of strings: splitting a
 * string on spaces would break every argument that contains one.
 */
function parseArgs(text: string | undefined): string[] | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  return JSON.parse(text) as string[];
}

function isArgList(text: string | undefined): boolean {
  try {
    const v: unknown = parseArgs(text);
    return v === undefined || (Array.isArray(v) && v.length <= 64 && v.every((a) => typeof a === 'string'));
  } catch {
    return false;
  }
}

const program = z.string().min(1).max(4096).describe('The executable (absolute, or relative to the workspace root).');
const args = z
  .string()
  .max(65_536)
  .optional()
  .refine(isArgList, 'must be a JSON array of strings, e.g. ["-v", "in.txt"]')
  .describe('Program arguments as a JSON array of strings, e.g. ["-v", "in.txt"] (passed literally).');

function call(tool: string, input: Record<string, unknown>): string {
  return `${tool} ${JSON.stringify(input)}`;
}

function message(text: string): GetPromptResult {
  return { messages: [{ role: 'user', content: { type: 'text', text } }] };
}

function startInput(a: { program: string; args?: string | undefined }, extra: Record<string, unknown> = {}) {
  const argv = parseArgs(a.args);
  return { program: a.program, ...(argv ? { args: argv } : {}), ...extra };
}

export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'diagnose_crash',
    {
      title: 'Diagnose a crash',
      description: 'Run a program to its crash and explain the cause, in as few tool calls as possible.',
      argsSchema: z.object({
        program,
        args,
        stdin: z.string().max(65_536).optional().describe('Text the program reads on stdin, if the crash needs it.'),
      }),
    },
    (a) => {
      const start = startInput(a, a.stdin ? { stdin: a.stdin } : {});
      return message(
        [
          `Find out why ${a.program} crashes, using the dbg-mcp tools.`,
          '',
          `1. ${call('dbg_start', start)}`,
          '   It runs to the crash. views.crash has the signal and its meaning, the fault address and a hint, the stack with arguments, locals, source and the faulting instruction. Note session_id (S) and session.stop_id (N).',
          '   If the answer says the program exited, it did not crash with these inputs: say so and stop.',
          `2. Only if the cause is not plain yet: ${call('dbg_inspect', { session_id: 'S', view: 'frame', frame: 1, stop_id: 'N' })} for a caller, or ${call('dbg_evaluate', { session_id: 'S', expressions: ['EXPR'], stop_id: 'N' })} for a value.`,
          '   If the bad value was made earlier, run again with "stop": "main" and a watchpoint on it (dbg_breakpoints, kind watchpoint), or step backwards as dbg://guide explains.',
          `3. ${call('dbg_close', { session_id: 'S' })}`,
          '',
          'Report: the signal and the line that faulted, the bad value and where it came from, and the fix.',
        ].join('\n'),
      );
    },
  );

  server.registerPrompt(
    'diagnose_hang',
    {
      title: 'Diagnose a hang',
      description: 'Stop a program that hangs and explain what it is waiting for or looping on.',
      argsSchema: z.object({
        program,
        args,
        seconds: z
          .string()
          .regex(/^\d{1,4}$/, 'a whole number of seconds')
          .optional()
          .describe('How long it may run before it counts as hung (default 5).'),
      }),
    },
    (a) => {
      const ms = (a.seconds ? Number(a.seconds) : 5) * 1000;
      return message(
        [
          `Find out why ${a.program} hangs, using the dbg-mcp tools.`,
          '',
          `1. ${call('dbg_start', startInput(a, { timeout_ms: ms, on_timeout: 'interrupt' }))}`,
          '   At the deadline the program is interrupted; the answer has the stop view and the threads view (each thread with a short stack and what it waits for). If it exited or crashed instead, it did not hang: report that.',
          '2. Read the threads view:',
          '   - threads waiting on mutexes: a deadlock. Find which thread holds each lock (dbg_evaluate on the mutex, e.g. "m.__data.__owner", gives the owner LWP) and the order they were taken in.',
          `   - a thread in the program's own code: a busy loop. Read its locals (dbg_inspect view "locals"), then ${call('dbg_run', { session_id: 'S', action: 'next', count: 3 })} to see which condition never changes.`,
          '   - a thread in read(): it waits for input (dbg_io writes to its stdin).',
          `3. ${call('dbg_close', { session_id: 'S' })}`,
          '',
          'Report: what each relevant thread is doing, why it cannot make progress, and the fix.',
        ].join('\n'),
      );
    },
  );

  server.registerPrompt(
    'find_wrong_value',
    {
      title: 'Find where a value goes wrong',
      description: 'Stop where a variable or expression is computed and trace where its wrong value comes from.',
      argsSchema: z.object({
        program,
        expression: z.string().min(1).max(1024).describe('The variable or expression that has the wrong value.'),
        location: z
          .string()
          .max(1024)
          .optional()
          .describe('Where to look first: function, file.c:LINE (default: main).'),
        args,
      }),
    },
    (a) => {
      const start = a.location
        ? startInput(a, { breakpoints: [{ location: a.location }] })
        : startInput(a, { stop: 'main' });
      return message(
        [
          `Find where ${a.expression} in ${a.program} gets a wrong value, using the dbg-mcp tools.`,
          '',
          `1. ${call('dbg_start', start)}`,
          `   It stops ${a.location ? `at ${a.location}` : 'at main'}. Note session_id (S).`,
          `2. ${call('dbg_evaluate', { session_id: 'S', expressions: [a.expression] })}`,
          `3. ${call('dbg_breakpoints', { session_id: 'S', action: 'set', kind: 'watchpoint', expression: a.expression })}, then ${call('dbg_run', { session_id: 'S', action: 'continue' })}: each stop shows the old and new value and the line that wrote it. Repeat until the value goes wrong; dbg_evaluate the inputs of that line.`,
          '   If the expression is not in scope here, step into the function that computes it (dbg_run action "step" or a breakpoint there) first.',
          `4. ${call('dbg_close', { session_id: 'S' })}`,
          '',
          'Report: the line where the value first goes wrong, the inputs that made it so, and the fix.',
        ].join('\n'),
      );
    },
  );
}
