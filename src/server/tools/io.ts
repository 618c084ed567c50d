// dbg_io: the program's own terminal. Output is read from a byte ring by cursor (a cursor counts
// every byte ever written, so a reader learns exactly how much the ring dropped); input is typed
// into the terminal, which hands the program a line at each newline.

import * as z from 'zod/v4';
import type { StdinReport } from '../../backends/debuggerBackend.js';
import { LIMITS } from '../../session/limits.js';
import type { Session } from '../../session/session.js';
import { sleep } from '../../util/deadline.js';
import { DebuggerError } from '../../util/errors.js';
import { defineSessionTool } from '../defineTool.js';
import { quotedLines } from '../render.js';
import { sessionId } from '../schemas.js';

const WRITE_MAX = 64 * 1024;
/** How long a write waits for the terminal to take the bytes before answering anyway. */
const WRITE_WAIT_MS = 2000;
const POLL_MS = 25;

const input = z.strictObject({
  session_id: sessionId,
  action: z.enum(['read', 'write', 'eof']).describe('write: to stdin.'),
  stream: z.enum(['program', 'debugger']).optional().describe('read: program (default) or debugger.'),
  cursor: z.number().int().min(0).optional().describe('read: default after last read.'),
  max_bytes: z
    .number()
    .int()
    .min(1)
    .max(LIMITS.ioReadMax)
    .optional()
    .describe(`read: default ${LIMITS.ioReadDefault}.`),
  wait_ms: z.number().int().min(0).max(10_000).optional().describe('read: ms to wait for output.'),
  data: z
    .string()
    .refine((s) => Buffer.byteLength(s) <= WRITE_MAX, `at most ${WRITE_MAX} bytes`)
    .optional()
    .describe('write: text.'),
});

const output = z.object({
  text: z.string().optional().describe('read: the bytes read, as text.'),
  cursor: z.number().optional().describe('read: the byte cursor the text starts at.'),
  next: z.number().optional().describe('read: the cursor to read on from.'),
  dropped: z.number().optional().describe('read: bytes the buffer no longer held before cursor.'),
  more: z.boolean().optional().describe('read: more bytes wait after next.'),
  bytes: z.number().optional().describe('write: the bytes written.'),
  taken: z.number().optional().describe('write, eof: bytes the terminal took (the program can read them).'),
  waiting: z
    .number()
    .optional()
    .describe('write, eof: bytes queued here, going in as the program reads (dropped at close).'),
  session: z.looseObject({}),
});

type IoData = Omit<z.infer<typeof output>, 'session'>;

type Stream = 'program' | 'debugger';

/** Where each session's last read ended, per stream: the default cursor of the next read. */
const readCursors = new WeakMap<Session, Record<Stream, number>>();

function cursorsOf(session: Session): Record<Stream, number> {
  let c = readCursors.get(session);
  if (!c) {
    c = { program: 0, debugger: 0 };
    readCursors.set(session, c);
  }
  return c;
}

/**
 * Length of `buf` without a multi-byte UTF-8 character cut at its end, so a capped read does not
 * turn a character split across two reads into two U+FFFD.
 */
export function wholeCharacters(buf: Buffer): number {
  for (let back = 1; back <= Math.min(3, buf.length); back++) {
    const byte = buf[buf.length - back] as number;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: keep looking for the lead
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back ? buf.length - back : buf.length;
  }
  return buf.length;
}

async function waitForBytes(end: () => number, cursor: number, waitMs: number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + waitMs;
  while (end() <= cursor && Date.now() < deadline && !signal.aborted) await sleep(POLL_MS);
}

async function read(
  session: Session,
  stream: Stream,
  args: { cursor?: number | undefined; max_bytes?: number | undefined; wait_ms?: number | undefined },
  signal: AbortSignal,
): Promise<{ data: IoData; text: string }> {
  if (session.streamEnd(stream) === undefined) {
    throw new DebuggerError('wrong_state', `this session has no ${stream} output to read`);
  }
  const end = (): number => session.streamEnd(stream) ?? 0;
  const cursors = cursorsOf(session);
  const cursor = args.cursor ?? cursors[stream];
  if (args.wait_ms) await waitForBytes(end, cursor, args.wait_ms, signal);
  const chunk = session.readStream(stream, cursor, args.max_bytes ?? LIMITS.ioReadDefault);
  if (!chunk) throw new DebuggerError('wrong_state', `this session has no ${stream} output to read`);
  const keep = chunk.more ? wholeCharacters(chunk.data) : chunk.data.length;
  const bytes = keep > 0 ? chunk.data.subarray(0, keep) : chunk.data;
  const next = chunk.start + bytes.length;
  cursors[stream] = next;
  const decoded = bytes.toString('utf8');
  const more = next < end();
  const head = [
    `${stream} output: bytes ${chunk.start}-${next}`,
    chunk.dropped > 0 ? `${chunk.dropped} bytes before were dropped (the buffer keeps the latest)` : '',
    more ? `more: read again (cursor=${next})` : `next cursor ${next}`,
  ]
    .filter(Boolean)
    .join('; ');
  // Every line of it quoted, so none passes for the server's (issue 11: a program printed
  // `[session … · stopped · stop 9]`); the structured text keeps the bytes as they came.
  const body =
    decoded === '' ? ['(nothing new)'] : quotedLines(decoded.endsWith('\n') ? decoded.slice(0, -1) : decoded);
  return {
    data: { text: decoded, cursor: chunk.start, next, dropped: chunk.dropped, more },
    text: [head, ...body].join('\n'),
  };
}

function afterWrite(session: Session): string {
  switch (session.phase) {
    case 'running':
      return 'the program is running and reads it now';
    case 'stopped':
      return 'the program is stopped: it reads this once resumed (dbg_run)';
    default:
      return 'no program is running: the terminal holds it for the next run';
  }
}

/** What became of the bytes, when the terminal did not take them all. */
function waitingNote(report: StdinReport): string {
  if (report.waiting === 0) return '';
  return `; the terminal took ${report.taken} bytes, ${report.waiting} wait here and go in as the program reads (dropped if the session closes first)`;
}

export const ioTool = defineSessionTool({
  name: 'dbg_io',
  title: 'Program I/O',
  description:
    "The program's terminal: read output by byte cursor (next, dropped, more), write stdin (a line per newline), or send eof.",
  input,
  output,
  // Reading works in every state (what a dead program printed stays readable); writes check below.
  requires: [],
  doing: "use the program's input and output",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  async run(args, ctx) {
    const session = ctx.session;
    if (args.action === 'read') {
      const answer = await read(session, args.stream ?? 'program', args, ctx.signal);
      return { ...answer, session };
    }
    if (args.stream === 'debugger') {
      throw new DebuggerError(
        'invalid_argument',
        "only the program's terminal takes input: leave out stream (dbg_command speaks to the debugger)",
        { fields: ['stream'] },
      );
    }
    session.requirePhase(
      ['loaded', 'stopped', 'running', 'exited'],
      `${args.action === 'eof' ? 'end' : 'write'} input`,
    );
    if (args.action === 'write') {
      if (args.data === undefined || args.data === '') {
        throw new DebuggerError('invalid_argument', 'write needs data: the text to type (end a line with \\n)', {
          fields: ['data'],
        });
      }
      const data = args.data;
      const bytes = Buffer.byteLength(data);
      const report = await session.writeStdin(data, Date.now() + WRITE_WAIT_MS, ctx.signal);
      const lines = data.split('\n').length - 1;
      const partial = data.endsWith('\n') ? '' : '; the last line has no newline yet, so it is not handed over';
      return {
        data: { bytes, taken: report.taken, waiting: report.waiting },
        text: `wrote ${bytes} bytes (${lines} line${lines === 1 ? '' : 's'})${partial}; ${afterWrite(session)}${waitingNote(report)}`,
        session,
      };
    }
    if (args.data !== undefined) {
      throw new DebuggerError('invalid_argument', 'eof takes no data: write it first', { fields: ['data'] });
    }
    const report = await session.sendEof(Date.now() + WRITE_WAIT_MS, ctx.signal);
    return {
      data: { taken: report.taken, waiting: report.waiting },
      text: `sent end-of-file; ${afterWrite(session)}${waitingNote(report)}`,
      session,
    };
  },
});
