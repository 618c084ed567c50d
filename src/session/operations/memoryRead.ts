// Memory at a stop: a bounded read that reports the readable part and how much after it is not
// mapped, and a write that is read back.

import type { DebuggerBackend } from '../../backends/debuggerBackend.js';
import type { MemoryBlock } from '../../model/model.js';
import { DebuggerError } from '../../util/errors.js';

export interface MemoryRead {
  address: bigint;
  bytes: Buffer;
  /** The bytes as lowercase hex pairs. */
  hex: string;
  /** Bytes asked for past the readable part. */
  unreadable: number;
}

export async function readMemoryAt(
  backend: DebuggerBackend,
  address: string,
  length: number,
  signal: AbortSignal | undefined,
): Promise<MemoryRead> {
  let blocks: MemoryBlock[];
  try {
    blocks = await backend.readMemory(address, length, signal);
  } catch (e) {
    if (e instanceof DebuggerError && e.code === 'debugger_error') {
      throw new DebuggerError(
        'debugger_error',
        `${e.message} (check the pointer with dbg_evaluate; view=libraries shows what is mapped)`,
        e.details,
        ...(e.reason ? [{ reason: e.reason }] : []),
      );
    }
    throw e;
  }
  const block = blocks[0];
  if (!block) throw new DebuggerError('debugger_error', `nothing could be read at ${address}`);
  const bytes = Buffer.from(block.hex, 'hex');
  return {
    address: BigInt(block.address),
    bytes,
    hex: block.hex,
    unreadable: block.unreadable ?? Math.max(length - bytes.length, 0),
  };
}
