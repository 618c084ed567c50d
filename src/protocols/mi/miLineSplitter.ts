// Cuts GDB's output bytes into lines. GDB writes MI in small fragments (often a few bytes), and a
// single record can be megabytes (`-data-read-memory-bytes`, a deep `-stack-list-frames`), so:
// - the split is on 0x0A over the Buffers, never on decoded text, and each line is decoded once,
//   whole, so a multi-byte UTF-8 character cut by a chunk boundary comes out intact;
// - only new bytes are scanned: an unfinished tail is kept as a list of blocks and joined once when
//   its newline arrives, so a 5 MB line fed one byte at a time costs O(5 MB), not O(5 MB²).

import { MI_TRUNCATED_LINE_MARK } from './miRecords.js';

const LF = 0x0a;
const CR = 0x0d;

export interface MiLineSplitterOptions {
  /**
   * The most bytes of one line kept in memory (default 64 MiB). Bytes past it are counted and
   * dropped until the next newline; the kept head is then returned behind
   * MI_TRUNCATED_LINE_MARK (`\0dbg-mcp:truncated:<dropped>\0<head>`), which parseMiLine turns into
   * a `raw` record with `droppedBytes`. The count excludes the line ending.
   */
  maxLineBytes?: number;
}

/** Size of the first block that holds an unfinished line; later blocks double, up to the max. */
const FIRST_BLOCK = 256;
const MAX_BLOCK = 1024 * 1024;

export class MiLineSplitter {
  readonly maxLineBytes: number;
  /** Lines cut at maxLineBytes so far, and the bytes dropped from them. */
  truncatedLines = 0;
  droppedBytesTotal = 0;

  /**
   * The start of an unfinished line, copied (callers may reuse the Buffers they push) into
   * blocks: all full but the last, which holds `lastUsed` bytes. Blocks, rather than one copy per
   * push, so a line arriving a byte at a time does not cost an allocation per byte.
   */
  private blocks: Buffer[] = [];
  private lastUsed = 0;
  private pendingBytes = 0;
  /** Bytes of the unfinished line dropped past the cap, and the last of them (a CR to discount). */
  private dropped = 0;
  private lastDroppedByte = -1;

  constructor(options: MiLineSplitterOptions = {}) {
    const max = options.maxLineBytes ?? 64 * 1024 * 1024;
    if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`maxLineBytes must be a positive integer: ${max}`);
    this.maxLineBytes = max;
  }

  /** The lines completed by this chunk, without their "\n" or one "\r" before it. */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    let newline = chunk.indexOf(LF, 0);
    while (newline !== -1) {
      if (this.pendingBytes === 0 && this.dropped === 0 && newline - start <= this.maxLineBytes) {
        // The whole line lies in this chunk: the common case, no copy.
        let end = newline;
        if (end > start && chunk[end - 1] === CR) end--;
        lines.push(chunk.toString('utf8', start, end));
      } else {
        lines.push(this.takeLine(chunk, start, newline));
      }
      start = newline + 1;
      newline = chunk.indexOf(LF, start);
    }
    if (start < chunk.length) this.keep(chunk, start, chunk.length);
    return lines;
  }

  /** The last line when the stream ended without a newline (an empty array when it did not). */
  end(): string[] {
    if (this.pendingBytes === 0 && this.dropped === 0) return [];
    return [this.takeLine(EMPTY, 0, 0)];
  }

  /** How much of chunk[from, to) still fits under the cap; counts the rest as dropped. */
  private fit(chunk: Buffer, from: number, to: number): number {
    const room = this.maxLineBytes - this.pendingBytes;
    if (to - from <= room) return to;
    this.dropped += to - from - room;
    this.lastDroppedByte = chunk[to - 1] ?? -1;
    return from + room;
  }

  /** Copies chunk[from, to) (as much as fits) to the end of the unfinished line. */
  private keep(chunk: Buffer, from: number, to: number): void {
    const end = this.fit(chunk, from, to);
    let at = from;
    while (at < end) {
      let block = this.blocks[this.blocks.length - 1];
      if (block === undefined || this.lastUsed === block.length) {
        const size = block === undefined ? FIRST_BLOCK : Math.min(block.length * 2, MAX_BLOCK);
        block = Buffer.allocUnsafe(Math.max(size, end - at));
        this.blocks.push(block);
        this.lastUsed = 0;
      }
      const copied = chunk.copy(block, this.lastUsed, at, end);
      this.lastUsed += copied;
      this.pendingBytes += copied;
      at += copied;
    }
  }

  /** The unfinished line completed by chunk[from, to), decoded; resets for the next line. */
  private takeLine(chunk: Buffer, from: number, to: number): string {
    const end = this.fit(chunk, from, to);
    const parts = this.blocks;
    const lastIndex = parts.length - 1;
    const last = parts[lastIndex];
    if (last !== undefined) parts[lastIndex] = last.subarray(0, this.lastUsed);
    if (end > from) parts.push(chunk.subarray(from, end));
    const total = this.pendingBytes + (end - from);
    const joined = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, total);
    let dropped = this.dropped;
    let length = total;
    if (dropped > 0 && this.lastDroppedByte === CR) dropped--;
    else if (dropped === 0 && length > 0 && joined[length - 1] === CR) length--;
    this.blocks = [];
    this.lastUsed = 0;
    this.pendingBytes = 0;
    this.dropped = 0;
    this.lastDroppedByte = -1;
    const text = joined.toString('utf8', 0, length);
    if (dropped === 0) return text;
    this.truncatedLines++;
    this.droppedBytesTotal += dropped;
    return `${MI_TRUNCATED_LINE_MARK}${dropped}\u0000${text}`;
  }
}

const EMPTY = Buffer.alloc(0);
