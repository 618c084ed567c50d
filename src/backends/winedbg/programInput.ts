// A Windows program's standard input: the launcher's stdin pipe, written through the server's
// bounded stdin queue (src/process/stdinQueue.ts) as a Linux program's terminal is.
//
// Why not the pipe's own stream: Node's Writable keeps every byte it is handed, without bound,
// and answers "full" (write() false) for bytes it in fact holds. Measured here (Linux 6.18):
// Node's child stdin is a Unix socket pair and the kernel takes 233,152 bytes while the program
// does not read; past that, writeSync on the socket's non-blocking fd answers EAGAIN. So the
// queue writes to that fd itself, never blocks, holds at most STDIN_QUEUE_MAX bytes more (then
// refuses with the reason), and answers each write with what the kernel took and what waits.
//
// End of input is the pipe closed, after every byte queued before it went in.

import { writeSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { StdinQueue, waitUntil } from '../../process/stdinQueue.js';
import { DebuggerError } from '../../util/errors.js';
import type { StdinReport } from '../debuggerBackend.js';

const NOTHING = Buffer.alloc(0);
/** How long the background wait for the program to read the last bytes before EOF is re-armed. */
const DRAIN_WAIT_MS = 60_000;

/** The stream's libuv handle, which on Linux exposes the fd it owns. */
interface WithHandle {
  _handle?: { fd?: number } | null;
  destroyed: boolean;
}

export class ProgramInput {
  private readonly queue: StdinQueue;
  private ended = false;
  private closed = false;

  constructor(private readonly pipe: Writable) {
    this.queue = new StdinQueue((bytes) => this.writeSome(bytes));
    // Nothing is written through the stream, but its close can still report an error: never an
    // uncaught one. (The launcher's exit destroys the stream and closes the fd in Node's exit
    // handler: writeSome checks `destroyed` first, so a retry never writes to a recycled fd.)
    pipe.on('error', () => {});
  }

  /** Bytes written earlier that the program has not read yet (they wait in this process). */
  get waiting(): number {
    return this.queue.waiting;
  }

  /** Never blocks: answers by `deadline` with what the kernel took and what still waits here. */
  async write(data: string | Buffer, deadline: number, signal?: AbortSignal): Promise<StdinReport> {
    this.checkOpen();
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    const r = await this.queue.push(bytes, waitUntil(deadline, signal));
    return { taken: r.taken, waiting: r.waiting };
  }

  /**
   * End of input after what was written before: the pipe closes once the program has read the
   * queued bytes. Answered by `deadline` as the terminal's ^D is: waiting 1 while the end still
   * waits behind earlier input (it follows as the program reads), 0 once the pipe is closed.
   */
  async end(deadline: number, signal?: AbortSignal): Promise<StdinReport> {
    this.checkOpen();
    this.ended = true;
    if (this.queue.waiting > 0) {
      void this.closeWhenRead();
      await this.queue.push(NOTHING, waitUntil(deadline, signal)).catch(() => {});
    }
    if (this.queue.waiting > 0 && !this.closed) return { taken: 0, waiting: 1 };
    this.close();
    return { taken: 0, waiting: 0 };
  }

  /** Drops what is still queued and closes the pipe (the program's next read sees end of input). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    // The queue first: it must not write once the fd is closed and its number free for reuse.
    this.queue.close();
    this.pipe.destroy();
  }

  private checkOpen(): void {
    if (this.ended || this.closed) {
      throw new DebuggerError('wrong_state', "the program's input was closed (EOF was sent)");
    }
  }

  private async closeWhenRead(): Promise<void> {
    while (this.queue.waiting > 0 && !this.closed) {
      await this.queue.push(NOTHING, { timeoutMs: DRAIN_WAIT_MS }).catch(() => {});
    }
    this.close();
  }

  /** One non-blocking write to the pipe's fd (libuv made it O_NONBLOCK): 0 when it is full. */
  private writeSome(bytes: Buffer): number {
    const stream = this.pipe as unknown as WithHandle;
    const fd = stream._handle?.fd;
    if (this.closed || stream.destroyed || fd === undefined || fd < 0) {
      // The queue drops what it holds: nobody can read it any more.
      throw new DebuggerError('wrong_state', "the program's input is closed");
    }
    try {
      return writeSync(fd, bytes);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') return 0;
      throw e;
    }
  }
}
