// Cuts a debug adapter's output bytes into Debug Adapter Protocol messages. The wire format is a
// header section (lines ending in CRLF, then an empty line) and a body of exactly Content-Length
// bytes of UTF-8 JSON:
//
//   frame   = header* CRLF body
//   header  = name ":" value CRLF        ; only Content-Length is read, the rest are ignored
//   body    = <Content-Length bytes>     ; one JSON object
//
// The adapter is a program we do not control, and the program it debugs writes text that ends up
// inside bodies, so the framer is lenient and bounded:
// - the header section is read by a byte-at-a-time state machine and never buffered, so junk
//   before a header costs no memory; "Content-Length:" is matched anywhere (any case), which is
//   also how the stream finds its feet again after junk or a malformed header;
// - a header section longer than maxHeaderBytes, a header without a usable Content-Length, a body
//   that is not a JSON object, a body over maxBodyBytes (skipped, never buffered) and a stream that
//   ends mid-frame each become an error record; push() never throws;
// - each byte is looked at a bounded number of times however the bytes are chunked: the header
//   scanner only moves forward, and a body is gathered into one buffer that doubles. `work` counts
//   the bytes touched so a test can check that by counting instead of timing.

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const ZERO = 0x30;
const NINE = 0x39;
const CONTENT_LENGTH = Buffer.from('content-length:', 'latin1');
/** Bytes of a skipped header or body kept for the error record (head and tail). */
const EXCERPT_BYTES = 256;
const FIRST_BODY_BLOCK = 4096;

export type DapFrameErrorKind = 'bad_header' | 'header_too_large' | 'body_too_large' | 'bad_json' | 'truncated';

export interface DapMessageFrame {
  kind: 'message';
  /** The parsed body: always a plain JSON object, not yet checked to be a DAP message. */
  message: Record<string, unknown>;
  /** Size of the body in bytes. */
  bytes: number;
}

export interface DapFrameError {
  kind: 'error';
  error: DapFrameErrorKind;
  message: string;
  /** Bytes of the stream this record stands for, which no message was made of. */
  skippedBytes: number;
  /** The first bytes of what was skipped, decoded (for logs: untrusted text). */
  head: string;
  /** For an oversized body, its last bytes: a response's `request_seq` may be found there. */
  tail?: string;
}

export type DapFrame = DapMessageFrame | DapFrameError;

export interface DapFramerOptions {
  /** Largest header section accepted, in bytes (default 4 KiB; real ones are about 20 bytes). */
  maxHeaderBytes?: number;
  /** Largest body accepted, in bytes (default 64 MiB); a larger frame is skipped and reported. */
  maxBodyBytes?: number;
}

enum Mode {
  Header = 0,
  Body = 1,
  Skip = 2,
}

/** Where the scanner is in the value of a Content-Length line. */
enum Value {
  None = 0,
  Lead = 1,
  Digits = 2,
  Trail = 3,
  Bad = 4,
}

export class DapFramer {
  readonly maxHeaderBytes: number;
  readonly maxBodyBytes: number;
  /** Bytes examined or copied so far: stays a small multiple of the bytes pushed. */
  work = 0;
  messages = 0;
  errors = 0;

  private mode = Mode.Header;
  // Header scanner state, reset at each frame boundary.
  private headerBytes = 0;
  /** Bytes since the start of the latest "Content-Length:" (kept when the section overflows). */
  private sinceLength = 0;
  private matched = 0;
  private value = Value.None;
  private pendingLength = 0;
  /** The section has a Content-Length line with a number (the last such line wins). */
  private haveLength = false;
  private length = 0;
  private lineEmpty = true;
  private contentSeen = false;
  private readonly head = Buffer.allocUnsafe(EXCERPT_BYTES);
  private headUsed = 0;
  // Body state.
  private need = 0;
  private body: Buffer | undefined;
  private bodyUsed = 0;
  private readonly tail = Buffer.allocUnsafe(EXCERPT_BYTES);
  private tailUsed = 0;
  private tailAt = 0;

  constructor(options: DapFramerOptions = {}) {
    this.maxHeaderBytes = positive(options.maxHeaderBytes ?? 4096, 'maxHeaderBytes');
    this.maxBodyBytes = positive(options.maxBodyBytes ?? 64 * 1024 * 1024, 'maxBodyBytes');
  }

  /** The messages and error records completed by this chunk, in stream order. */
  push(chunk: Buffer): DapFrame[] {
    const out: DapFrame[] = [];
    let at = 0;
    while (at < chunk.length) {
      if (this.mode === Mode.Header) at = this.scanHeader(chunk, at, out);
      else if (this.mode === Mode.Body) at = this.takeBody(chunk, at, out);
      else at = this.skipBody(chunk, at, out);
    }
    return out;
  }

  /** The stream ended: a frame cut short is reported (stray blank lines are not). */
  end(): DapFrame[] {
    const out: DapFrame[] = [];
    if (this.mode === Mode.Header && this.contentSeen) {
      this.report(out, 'truncated', 'the stream ended inside a header section', this.headerBytes);
    } else if (this.mode === Mode.Body) {
      this.report(
        out,
        'truncated',
        `the stream ended ${this.need} bytes short of a ${this.length}-byte body`,
        this.bodyUsed,
        this.body?.subarray(0, this.bodyUsed),
      );
    } else if (this.mode === Mode.Skip) {
      this.report(
        out,
        'truncated',
        `the stream ended inside an oversized ${this.length}-byte body`,
        this.length - this.need,
        this.head.subarray(0, this.headUsed),
      );
    }
    this.resetHeader();
    this.mode = Mode.Header;
    return out;
  }

  private scanHeader(chunk: Buffer, from: number, out: DapFrame[]): number {
    let at = from;
    while (at < chunk.length) {
      const b = chunk[at++] as number;
      this.work++;
      this.headerBytes++;
      this.sinceLength++;
      if (this.headUsed < EXCERPT_BYTES) this.head[this.headUsed++] = b;
      if (this.value !== Value.None) this.scanValue(b);
      // "Content-Length:" in any case, anywhere: its letters repeat no prefix of it, so a
      // mismatch restarts the match at this byte or at nothing.
      const lower = b >= 0x41 && b <= 0x5a ? b + 32 : b;
      if (lower === CONTENT_LENGTH[this.matched]) {
        if (++this.matched === CONTENT_LENGTH.length) {
          this.matched = 0;
          this.value = Value.Lead;
          this.pendingLength = 0;
          this.sinceLength = CONTENT_LENGTH.length;
        }
      } else {
        this.matched = lower === CONTENT_LENGTH[0] ? 1 : 0;
      }
      if (b === LF) {
        if (this.lineEmpty) {
          // An empty line: the end of the header section.
          if (this.endHeader(out)) return at;
          continue;
        }
        this.lineEmpty = true;
      } else if (b !== CR) {
        this.lineEmpty = false;
        this.contentSeen = true;
      }
      if (this.headerBytes > this.maxHeaderBytes) this.overflow(out);
    }
    return at;
  }

  /** One byte of the value after "Content-Length:": spaces, digits, spaces, end of line. */
  private scanValue(b: number): void {
    if (b === CR || b === LF) {
      if (this.value === Value.Digits || this.value === Value.Trail) {
        this.haveLength = true;
        this.length = this.pendingLength;
      } else {
        this.haveLength = false;
      }
      this.value = Value.None;
    } else if (b === SPACE || b === TAB) {
      if (this.value === Value.Digits) this.value = Value.Trail;
    } else if (b >= ZERO && b <= NINE && (this.value === Value.Lead || this.value === Value.Digits)) {
      this.pendingLength = this.pendingLength * 10 + (b - ZERO);
      this.value = Number.isSafeInteger(this.pendingLength) ? Value.Digits : Value.Bad;
    } else {
      this.value = Value.Bad;
    }
  }

  /** At the empty line: true when a body follows (the mode has changed). */
  private endHeader(out: DapFrame[]): boolean {
    if (!this.contentSeen) {
      // Blank lines between frames carry nothing: not worth a record.
      this.resetHeader();
      return false;
    }
    if (!this.haveLength) {
      this.report(
        out,
        'bad_header',
        'a header section without a usable Content-Length',
        this.headerBytes,
        this.head.subarray(0, this.headUsed),
      );
      this.resetHeader();
      return false;
    }
    const length = this.length;
    if (length === 0) {
      // Nothing follows to wait for: reported now, not when the next chunk happens to come.
      this.report(out, 'bad_json', 'an empty body', 0, this.head.subarray(0, this.headUsed));
      this.resetHeader();
      return false;
    }
    this.resetHeader();
    this.length = length;
    this.need = length;
    this.mode = length > this.maxBodyBytes ? Mode.Skip : Mode.Body;
    return true;
  }

  /**
   * The header section passed its cap with no end in sight. What came before the latest
   * "Content-Length:" is reported and forgotten; a Content-Length line in progress is kept, so a
   * real header that follows junk is still read.
   */
  private overflow(out: DapFrame[]): void {
    const keep = (this.value !== Value.None || this.haveLength) && this.sinceLength <= this.maxHeaderBytes;
    const kept = keep ? this.sinceLength : 0;
    this.report(
      out,
      'header_too_large',
      `a header section over ${this.maxHeaderBytes} bytes`,
      this.headerBytes - kept,
      this.head.subarray(0, this.headUsed),
    );
    if (keep) {
      this.headerBytes = kept;
      this.headUsed = 0;
    } else {
      const matched = this.matched;
      this.resetHeader();
      this.matched = matched;
    }
  }

  private takeBody(chunk: Buffer, from: number, out: DapFrame[]): number {
    const take = Math.min(this.need, chunk.length - from);
    this.work += take;
    if (this.bodyUsed === 0 && take === this.need) {
      // The whole body lies in this chunk: parsed in place, no copy.
      this.finishBody(chunk, from, from + take, out);
      return from + take;
    }
    let body = this.body;
    if (body === undefined || body.length - this.bodyUsed < take) {
      // Doubling, up to the declared length: a body fed a byte at a time is copied O(n) times in
      // all, and a header that lies about a large length costs nothing until bytes arrive.
      const size = Math.min(this.length, Math.max(FIRST_BODY_BLOCK, (body?.length ?? 0) * 2, this.bodyUsed + take));
      const grown = Buffer.allocUnsafe(size);
      if (body !== undefined) {
        body.copy(grown, 0, 0, this.bodyUsed);
        this.work += this.bodyUsed;
      }
      body = grown;
      this.body = body;
    }
    chunk.copy(body, this.bodyUsed, from, from + take);
    this.bodyUsed += take;
    this.need -= take;
    if (this.need === 0) this.finishBody(body, 0, this.bodyUsed, out);
    return from + take;
  }

  private finishBody(source: Buffer, start: number, end: number, out: DapFrame[]): void {
    const text = source.toString('utf8', start, end);
    let parsed: unknown;
    let problem: string | undefined;
    try {
      parsed = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        problem = 'a body that is not an object';
    } catch (e) {
      problem = `a body that is not JSON (${(e as Error).message})`;
    }
    if (problem === undefined) {
      this.messages++;
      out.push({ kind: 'message', message: parsed as Record<string, unknown>, bytes: end - start });
    } else {
      const error = this.report(out, 'bad_json', problem, end - start, source.subarray(start, end));
      if (end - start > EXCERPT_BYTES) error.tail = source.toString('utf8', end - EXCERPT_BYTES, end);
    }
    this.body = undefined;
    this.bodyUsed = 0;
    this.need = 0;
    this.mode = Mode.Header;
  }

  /** An oversized body: only its first and last EXCERPT_BYTES are looked at. */
  private skipBody(chunk: Buffer, from: number, out: DapFrame[]): number {
    const take = Math.min(this.need, chunk.length - from);
    const end = from + take;
    if (this.headUsed < EXCERPT_BYTES) {
      const copied = chunk.copy(this.head, this.headUsed, from, Math.min(end, from + EXCERPT_BYTES - this.headUsed));
      this.headUsed += copied;
      this.work += copied;
    }
    // The tail is a ring of the last EXCERPT_BYTES bytes.
    const tailFrom = Math.max(from, end - EXCERPT_BYTES);
    for (let i = tailFrom; i < end; i++) {
      this.tail[this.tailAt] = chunk[i] as number;
      this.tailAt = (this.tailAt + 1) % EXCERPT_BYTES;
    }
    this.tailUsed = Math.min(EXCERPT_BYTES, this.tailUsed + (end - tailFrom));
    this.work += end - tailFrom;
    this.need -= take;
    if (this.need === 0) {
      const tail =
        this.tailUsed < EXCERPT_BYTES
          ? this.tail.subarray(0, this.tailUsed)
          : Buffer.concat([this.tail.subarray(this.tailAt), this.tail.subarray(0, this.tailAt)]);
      const error = this.report(
        out,
        'body_too_large',
        `a ${this.length}-byte body, over the ${this.maxBodyBytes}-byte cap: skipped`,
        this.length,
        this.head.subarray(0, this.headUsed),
      );
      error.tail = tail.toString('utf8');
      this.resetHeader();
      this.mode = Mode.Header;
    }
    return end;
  }

  private report(
    out: DapFrame[],
    error: DapFrameErrorKind,
    message: string,
    skippedBytes: number,
    head?: Buffer,
  ): DapFrameError {
    this.errors++;
    const record: DapFrameError = {
      kind: 'error',
      error,
      message,
      skippedBytes,
      head: head === undefined ? '' : head.toString('utf8', 0, Math.min(head.length, EXCERPT_BYTES)),
    };
    out.push(record);
    return record;
  }

  private resetHeader(): void {
    this.headerBytes = 0;
    this.sinceLength = 0;
    this.matched = 0;
    this.value = Value.None;
    this.pendingLength = 0;
    this.haveLength = false;
    this.length = 0;
    this.lineEmpty = true;
    this.contentSeen = false;
    this.headUsed = 0;
    this.tailUsed = 0;
    this.tailAt = 0;
  }
}

/** One outgoing message, framed: the Content-Length is the body's size in bytes, not characters. */
export function encodeDapMessage(message: object): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  const header = Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'latin1');
  return Buffer.concat([header, body], header.length + body.length);
}

function positive(n: number, name: string): number {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`${name} must be a positive integer: ${n}`);
  return n;
}
