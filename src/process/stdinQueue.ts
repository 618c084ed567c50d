// Bytes on their way into the program's terminal, written without ever blocking the event loop.
//
// Why not a stream: node's tty stream over the pty master spins inside libuv when the terminal is
// full. Measured on Linux 6.18: with nobody reading, the master takes 15,360 bytes of lines (11,776
// then 3,584), then write() answers EAGAIN, and libuv retries at once, forever, on the main thread
// (strace: 30,000 EAGAIN writes in 3 s, no poll in between). So this queue writes with
// non-blocking writeSync calls only and, when the terminal is full, tries again on a timer whose
// delay backs off: the kernel gives a pty master no writability event we could wait for from here.

import { abortError } from '../util/deadline.js';
import { DebuggerError } from '../util/errors.js';

/** What became of the bytes of one write. */
export interface StdinReport {
  /** Bytes the terminal has taken: the program can read them. */
  taken: number;
  /** Bytes still queued here: written as the program reads, dropped if the terminal closes first. */
  waiting: number;
  /** Bytes dropped because the terminal closed or failed before taking them. */
  dropped: number;
}

export interface StdinWaitOptions {
  /** How long to wait for the terminal to take the bytes before answering with what it took. */
  timeoutMs?: number;
  /** Ends the wait early (the answer is then what was taken so far; the rest stays queued). */
  signal?: AbortSignal;
}

/** The wait options for a write answered by `deadline` (a Date.now() time), or at `signal`. */
export function waitUntil(deadline: number, signal?: AbortSignal): StdinWaitOptions {
  return { timeoutMs: Math.max(0, deadline - Date.now()), ...(signal ? { signal } : {}) };
}

/** Writes what it can of `bytes` without blocking: the count taken, 0 when the terminal is full. */
export type WriteSome = (bytes: Buffer) => number;

/** The unsent bytes one terminal may hold; more is refused rather than kept without bound. */
export const STDIN_QUEUE_MAX = 1024 * 1024;

const FIRST_RETRY_MS = 1;
/** A stopped program can hold its input for hours: 20 write attempts a second cost nothing. */
const LAST_RETRY_MS = 50;

interface Waiter {
  /** The queue positions of this write's first byte and just past its last. */
  start: number;
  end: number;
  /** Bytes of this write dropped so far. */
  dropped: number;
  wake: () => void;
}

export class StdinQueue {
  private readonly chunks: Buffer[] = [];
  /** Bytes ever queued, and bytes ever gone (taken by the terminal or dropped): positions in one stream. */
  private queued = 0;
  private consumed = 0;
  private retry: NodeJS.Timeout | undefined;
  private retryMs = FIRST_RETRY_MS;
  private readonly waiters = new Set<Waiter>();
  private closed = false;

  constructor(private readonly writeSome: WriteSome) {}

  /** Bytes queued and not yet taken by the terminal. */
  get waiting(): number {
    return this.queued - this.consumed;
  }

  /**
   * Queues `bytes` after everything queued before, writes what the terminal takes now, and
   * resolves once it took them all or when the wait ends (deadline, abort, close), with the
   * counts at that moment. Never rejects once the bytes are queued.
   */
  async push(bytes: Buffer, options: StdinWaitOptions = {}): Promise<StdinReport> {
    if (this.closed) throw new DebuggerError('wrong_state', 'the program terminal is closed');
    if (options.signal?.aborted) throw abortError(options.signal);
    if (this.waiting + bytes.length > STDIN_QUEUE_MAX) {
      throw new DebuggerError(
        'limit_exceeded',
        `${this.waiting} bytes of earlier input are still waiting for the program to read them; ` +
          `${bytes.length} more would pass the ${STDIN_QUEUE_MAX}-byte queue: resume the program so it reads, then write again`,
      );
    }
    const waiter: Waiter = { start: this.queued, end: this.queued + bytes.length, dropped: 0, wake: () => {} };
    const wait = this.waitFor(waiter, options);
    if (bytes.length > 0) {
      this.chunks.push(bytes);
      this.queued = waiter.end;
      this.pump();
    }
    if (this.consumed >= waiter.end) waiter.wake();
    await wait;
    const gone = Math.max(0, Math.min(waiter.end, this.consumed) - waiter.start);
    return { taken: gone - waiter.dropped, waiting: bytes.length - gone, dropped: waiter.dropped };
  }

  /** Drops what is still queued and answers every waiter. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.drop();
  }

  private waitFor(waiter: Waiter, options: StdinWaitOptions): Promise<void> {
    return new Promise((resolve) => {
      waiter.wake = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', waiter.wake);
        this.waiters.delete(waiter);
        resolve();
      };
      const timer = setTimeout(waiter.wake, Math.max(0, options.timeoutMs ?? 1000));
      timer.unref();
      options.signal?.addEventListener('abort', waiter.wake, { once: true });
      this.waiters.add(waiter);
    });
  }

  /** Writes queued chunks until the terminal is full, then arms the retry timer. */
  private pump(): void {
    if (this.retry !== undefined) {
      clearTimeout(this.retry);
      this.retry = undefined;
    }
    let progressed = false;
    while (this.chunks.length > 0 && !this.closed) {
      const head = this.chunks[0] as Buffer;
      let n: number;
      try {
        n = this.writeSome(head);
      } catch {
        // EIO and the like: the terminal is gone for good, and so is what it never took.
        this.drop();
        return;
      }
      if (n <= 0) break;
      progressed = true;
      this.consumed += n;
      if (n >= head.length) this.chunks.shift();
      else this.chunks[0] = head.subarray(n);
    }
    for (const w of this.waiters) if (w.end <= this.consumed) w.wake();
    if (this.chunks.length === 0 || this.closed) {
      this.retryMs = FIRST_RETRY_MS;
      return;
    }
    this.retryMs = progressed ? FIRST_RETRY_MS : Math.min(this.retryMs * 2, LAST_RETRY_MS);
    this.retry = setTimeout(() => this.pump(), this.retryMs);
    this.retry.unref();
  }

  private drop(): void {
    this.chunks.length = 0;
    for (const w of this.waiters) w.dropped += Math.max(0, w.end - Math.max(w.start, this.consumed));
    this.consumed = this.queued;
    if (this.retry !== undefined) clearTimeout(this.retry);
    this.retry = undefined;
    for (const w of [...this.waiters]) w.wake();
  }
}
