import * as z from 'zod/v4';
import { LIMITS } from '../../session/limits.js';
import type { MemoryRead } from '../../session/operations/memoryRead.js';
import { DebuggerError } from '../../util/errors.js';
import { observationIdOut, withObservation } from '../answers/observations.js';
import { defineSessionTool } from '../defineTool.js';
import { resolveNewFile } from '../paths.js';
import { line, sessionId, stopId } from '../schemas.js';
import { compact } from '../wire.js';

/** Bytes shown as a hex dump in the text; the structured hex always has them all. */
const DUMP_BYTES = 2048;

export const memoryAddress = line(1024).describe('&buf, ptr, 0x7ffe…, $sp+16.');
export const memoryLength = z.number().int().min(1).max(LIMITS.memoryReadMax).describe('read: bytes (default 64).');

const input = z.strictObject({
  session_id: sessionId,
  action: z.enum(['read', 'write', 'save_core']).optional().describe('Default read.'),
  address: memoryAddress.optional(),
  length: memoryLength.optional(),
  bytes: line(3 * LIMITS.memoryReadMax)
    .regex(/^[0-9a-fA-F ]+$/, 'hex pairs, like "4a6b" or "4a 6b"')
    .optional()
    .describe('write: hex pairs, e.g. "48690a".'),
  path: line(4096).optional().describe('save_core: a new file.'),
  stop_id: stopId.optional(),
});

export const memoryShape = z.object({
  address: z.string().optional().describe('Where the bytes start (hex); absent for save_core.'),
  length: z.number().optional().describe('Bytes read (or the core file size for save_core).'),
  hex: z.string().optional().describe('The bytes as hex pairs.'),
  path: z.string().optional().describe('save_core: the file written.'),
  unreadable: z.number().optional().describe('Bytes asked for past the readable part; absent when none.'),
  written: z.number().optional().describe('write: the bytes written.'),
});

const output = z.object({
  ...memoryShape.shape,
  observation_id: observationIdOut.optional(),
  session: z.looseObject({}),
});

/** Untrusted bytes as ASCII: printable characters, '.' for everything else. */
function ascii(bytes: Buffer): string {
  let out = '';
  for (const b of bytes) out += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.';
  return out;
}

/** A classic dump: address, 16 hex bytes (a gap after 8), the bytes as ASCII. */
export function hexDump(address: bigint, bytes: Buffer): string[] {
  const lines: string[] = [];
  const width = Math.max(8, (address + BigInt(bytes.length)).toString(16).length);
  for (let at = 0; at < bytes.length; at += 16) {
    const row = bytes.subarray(at, at + 16);
    const hex = [...row].map((b) => b.toString(16).padStart(2, '0'));
    const left = hex.slice(0, 8).join(' ');
    const right = hex.slice(8).join(' ');
    const cells = `${left}${right ? `  ${right}` : ''}`.padEnd(48);
    lines.push(`${(address + BigInt(at)).toString(16).padStart(width, '0')}  ${cells}  |${ascii(row)}|`);
  }
  return lines;
}

/** A read as structured data and a dump: the core of dbg_memory read and of dbg_batch's memory op. */
export function memoryAnswer(m: MemoryRead): { data: z.infer<typeof memoryShape>; lines: string[] } {
  const where = `0x${m.address.toString(16)}`;
  const lines = [
    `${m.bytes.length} bytes at ${where}${m.unreadable ? `; the next ${m.unreadable} are unreadable (not mapped)` : ''}:`,
    ...hexDump(m.address, m.bytes.subarray(0, DUMP_BYTES)),
  ];
  if (m.bytes.length > DUMP_BYTES) lines.push(`… ${m.bytes.length - DUMP_BYTES} more bytes in the structured hex`);
  return {
    data: compact({ address: where, length: m.bytes.length, hex: m.hex, unreadable: m.unreadable || undefined }),
    lines,
  };
}

export const memoryTool = defineSessionTool({
  name: 'dbg_memory',
  title: 'Memory',
  description: `Reads up to ${LIMITS.memoryReadMax} bytes as hex plus a dump, or writes bytes (read back after), or save_core. Unmapped memory: the readable part and the unreadable count.`,
  input,
  output,
  requires: ['stopped'],
  doing: 'read or write memory',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(args, ctx) {
    const action = args.action ?? 'read';
    const session = ctx.session;
    if (action === 'save_core') {
      const extra = (['address', 'length', 'bytes'] as const).filter((f) => args[f] !== undefined);
      if (extra.length > 0) {
        throw new DebuggerError('invalid_argument', `${extra.join(', ')} do not apply to action=save_core`, {
          fields: extra,
        });
      }
      if (args.path === undefined) {
        throw new DebuggerError(
          'invalid_argument',
          'path: required for action=save_core (a new file under the roots)',
          {
            fields: ['path'],
          },
        );
      }
      const path = await resolveNewFile(args.path, ctx.config.roots, 'path');
      const bytes = await session.saveCore(path, ctx.call({ doing: 'save a core' }));
      const program = session.target.program;
      return {
        data: { path, length: bytes },
        text: `saved a core of ${program || 'the program'} to ${path} (${(bytes / 1048576).toFixed(1)} MiB); dbg_start with program and core=${path} opens it`,
        session,
      };
    }
    if (args.address === undefined) {
      throw new DebuggerError('invalid_argument', `address: required for action=${action}`, { fields: ['address'] });
    }
    if (args.path !== undefined) {
      throw new DebuggerError('invalid_argument', `path does not apply to action=${action}`, { fields: ['path'] });
    }
    const field = action === 'read' ? 'bytes' : 'length';
    if (args[field] !== undefined) {
      throw new DebuggerError('invalid_argument', `${field} does not apply to action=${action}`, { fields: [field] });
    }
    if (action === 'read') {
      const m = await session.readMemory(
        args.address,
        args.length ?? 64,
        ctx.call({ doing: 'read memory', stopId: args.stop_id }),
      );
      const { data, lines } = memoryAnswer(m);
      return { ...withObservation(session.observations, m, { data, text: lines.join('\n') }), session };
    }
    const hex = (args.bytes ?? '').replace(/ /g, '');
    if (hex.length === 0 || hex.length % 2 !== 0 || hex.length > 2 * LIMITS.memoryReadMax) {
      throw new DebuggerError(
        'invalid_argument',
        `bytes: give 1 to ${LIMITS.memoryReadMax} bytes as pairs of hex digits`,
        {
          fields: ['bytes'],
        },
      );
    }
    const back = memoryAnswer(
      await session.writeMemory(args.address, hex, ctx.call({ doing: 'write memory', stopId: args.stop_id })),
    );
    return {
      data: { ...back.data, written: hex.length / 2 },
      text: [`wrote ${hex.length / 2} bytes; read back:`, ...back.lines.slice(1)].join('\n'),
      session,
    };
  },
});
