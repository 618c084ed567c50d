import * as z from 'zod/v4';
import type { DebuggerBackend } from '../../backends/debuggerBackend.js';
import { LIMITS } from '../../session/limits.js';
import { saveCore } from '../../session/sessionTargets.js';
import { DebuggerError } from '../../util/errors.js';
import type { Answer } from '../answer.js';
import { defineTool, type ToolContext } from '../defineTool.js';
import { resolveNewFile } from '../paths.js';
import { line, sessionId, stopId } from '../schemas.js';
import { compact, type Wire } from '../wire.js';

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

const output = z.object({
  address: z.string().optional(),
  length: z.number().optional(),
  hex: z.string().optional(),
  path: z.string().optional(),
  unreadable: z.number().optional(),
  written: z.number().optional(),
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

/** Reads `length` bytes at `address`: the core of dbg_memory read and of dbg_batch's memory op. */
export async function readMemoryAt(
  backend: DebuggerBackend,
  address: string,
  length: number,
  signal: AbortSignal | undefined,
): Promise<{ data: Wire; lines: string[] }> {
  let blocks: Awaited<ReturnType<DebuggerBackend['readMemory']>>;
  try {
    blocks = await backend.readMemory(address, length, signal);
  } catch (e) {
    if (e instanceof DebuggerError && e.code === 'debugger_error') {
      throw new DebuggerError(
        'debugger_error',
        `${e.message} (check the pointer with dbg_evaluate; view=libraries shows what is mapped)`,
        e.details,
      );
    }
    throw e;
  }
  const block = blocks[0];
  if (!block) throw new DebuggerError('debugger_error', `nothing could be read at ${address}`);
  const start = BigInt(block.address);
  const bytes = Buffer.from(block.hex, 'hex');
  const unreadable = block.unreadable ?? Math.max(length - bytes.length, 0);
  const where = `0x${start.toString(16)}`;
  const lines = [
    `${bytes.length} bytes at ${where}${unreadable ? `; the next ${unreadable} are unreadable (not mapped)` : ''}:`,
    ...hexDump(start, bytes.subarray(0, DUMP_BYTES)),
  ];
  if (bytes.length > DUMP_BYTES) {
    lines.push(`… ${bytes.length - DUMP_BYTES} more bytes in the structured hex`);
  }
  return {
    data: compact({ address: where, length: bytes.length, hex: block.hex, unreadable: unreadable || undefined }),
    lines,
  };
}

export const memoryTool = defineTool({
  name: 'dbg_memory',
  title: 'Memory',
  description: `Reads up to ${LIMITS.memoryReadMax} bytes as hex plus a dump, or writes bytes (read back after), or save_core. Unmapped memory: the readable part and the unreadable count.`,
  input,
  output,
  requires: ['stopped'],
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(args, ctx) {
    const action = args.action ?? 'read';
    if (action === 'save_core') return saveCoreAnswer(args, ctx);
    if (args.address === undefined) {
      throw new DebuggerError('invalid_argument', `address: required for action=${action}`, { fields: ['address'] });
    }
    if (args.path !== undefined) {
      throw new DebuggerError('invalid_argument', `path does not apply to action=${action}`, { fields: ['path'] });
    }
    const address = args.address;
    const field = action === 'read' ? 'bytes' : 'length';
    if (args[field] !== undefined) {
      throw new DebuggerError('invalid_argument', `${field} does not apply to action=${action}`, { fields: [field] });
    }
    let hex: string | undefined;
    if (action === 'write') {
      hex = (args.bytes ?? '').replace(/ /g, '');
      if (hex.length === 0 || hex.length % 2 !== 0 || hex.length > 2 * LIMITS.memoryReadMax) {
        throw new DebuggerError(
          'invalid_argument',
          `bytes: give 1 to ${LIMITS.memoryReadMax} bytes as pairs of hex digits`,
          { fields: ['bytes'] },
        );
      }
    }
    const session = ctx.sessions.get(args.session_id);
    // Addresses are often frame expressions (&local), so a write is bound to the stop like a read.
    const result = await session.query(
      ['stopped'],
      action === 'read' ? 'read memory' : 'write memory',
      async (backend, signal) => {
        if (hex === undefined) return readMemoryAt(backend, address, args.length ?? 64, signal);
        await backend.writeMemory(address, hex, signal);
        const back = await readMemoryAt(backend, address, hex.length / 2, signal);
        return {
          data: { ...back.data, written: hex.length / 2 },
          lines: [`wrote ${hex.length / 2} bytes; read back:`, ...back.lines.slice(1)],
        };
      },
      { ...(args.stop_id !== undefined ? { stopId: args.stop_id } : {}), signal: ctx.signal },
    );
    return { data: result.data, text: result.lines.join('\n'), session };
  },
});

/** save_core: the stopped program's memory and registers to a new core file under the roots. */
async function saveCoreAnswer(args: z.output<typeof input>, ctx: ToolContext): Promise<Answer> {
  const extra = (['address', 'length', 'bytes'] as const).filter((f) => args[f] !== undefined);
  if (extra.length > 0) {
    throw new DebuggerError('invalid_argument', `${extra.join(', ')} do not apply to action=save_core`, {
      fields: extra,
    });
  }
  if (args.path === undefined) {
    throw new DebuggerError('invalid_argument', 'path: required for action=save_core (a new file under the roots)', {
      fields: ['path'],
    });
  }
  const session = ctx.sessions.get(args.session_id);
  const path = await resolveNewFile(args.path, ctx.config.roots, 'path');
  const bytes = await saveCore(session, path, ctx.signal);
  const program = session.target.program;
  return {
    data: { path, length: bytes },
    text: `saved a core of ${program || 'the program'} to ${path} (${(bytes / 1048576).toFixed(1)} MiB); dbg_start with program and core=${path} opens it`,
    session,
  };
}
