// The program's terminal output: a bounded byte ring read by cursor. A cursor is the count of
// bytes the program had written before it, so a reader can tell exactly what it missed when the
// ring has moved past its cursor.

export interface OutputChunk {
  /** The bytes from the cursor (or from the oldest byte kept, if the cursor is older). */
  data: Buffer;
  /** Where this chunk starts: the cursor, or later if bytes were dropped. */
  start: number;
  /** Cursor to pass next time. */
  next: number;
  /** Bytes between the requested cursor and `start` that the ring no longer holds. */
  dropped: number;
  /** True when more bytes are available after `next` (the read was capped). */
  more: boolean;
}

/** The first allocation; the buffer doubles from here as bytes arrive, up to the capacity. */
const INITIAL_BYTES = 4096;

export class OutputRing {
  /**
   * Grows with the output: a session whose program prints little holds little (measured: 16
   * sessions with 1 MiB rings allocated up front cost the server 1 MiB of RSS each once the
   * allocator reused freed memory). Until the capacity is reached nothing has wrapped, so the
   * bytes lie at the same offsets in a small buffer as in the full one.
   */
  private buffer: Buffer = Buffer.alloc(0);
  /** Total bytes ever written: the cursor of the next byte. */
  private written = 0;

  constructor(readonly capacity: number = 1024 * 1024) {
    if (!Number.isInteger(capacity) || capacity <= 0) throw new RangeError('capacity must be a positive integer');
  }

  /** Makes room for `more` bytes after what is written so far (the whole ring once it wraps). */
  private reserve(more: number): void {
    if (this.buffer.length === this.capacity) return;
    const needed = Math.min(this.capacity, this.written + more);
    if (needed <= this.buffer.length) return;
    let size = Math.max(this.buffer.length, INITIAL_BYTES);
    while (size < needed) size *= 2;
    const grown = Buffer.alloc(Math.min(size, this.capacity));
    this.buffer.copy(grown, 0, 0, this.written);
    this.buffer = grown;
  }

  get end(): number {
    return this.written;
  }

  /** The cursor of the oldest byte still held. */
  get begin(): number {
    return Math.max(0, this.written - this.capacity);
  }

  write(data: Buffer): void {
    if (data.length === 0) return;
    let src = data;
    if (src.length > this.capacity) {
      // Only the last `capacity` bytes can survive; skip copying the rest.
      this.written += src.length - this.capacity;
      src = src.subarray(src.length - this.capacity);
    }
    this.reserve(src.length);
    const at = this.written % this.capacity;
    const first = Math.min(src.length, this.capacity - at);
    src.copy(this.buffer, at, 0, first);
    if (first < src.length) src.copy(this.buffer, 0, first);
    this.written += src.length;
  }

  read(cursor: number, maxBytes: number): OutputChunk {
    const from = Math.min(Math.max(cursor, this.begin), this.written);
    const dropped = Math.max(0, Math.min(this.begin, this.written) - Math.max(cursor, 0));
    const length = Math.max(0, Math.min(maxBytes, this.written - from));
    const data = Buffer.alloc(length);
    const at = from % this.capacity;
    const first = Math.min(length, this.capacity - at);
    this.buffer.copy(data, 0, at, at + first);
    if (first < length) this.buffer.copy(data, first, 0, length - first);
    return {
      data,
      start: from,
      next: from + length,
      dropped: cursor < this.begin ? dropped : 0,
      more: from + length < this.written,
    };
  }
}
