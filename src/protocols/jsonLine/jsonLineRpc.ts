// JSON-RPC 2.0 over newline-delimited JSON, as LLDB's MCP protocol server speaks it on its socket
// (measured with LLDB 22.1.8: one message a line, no Content-Length header, ids echoed back).
// Owns ids, pending requests, deadlines and cancellation; knows nothing of what the methods mean.

import { DebuggerError } from '../../util/errors.js';

export interface JsonLineWritable {
  write(chunk: string): boolean;
}

export interface RpcSendOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface Pending {
  method: string;
  resolve: (result: unknown) => void;
  reject: (error: DebuggerError) => void;
  timer: NodeJS.Timeout | undefined;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/** A line longer than this is not an answer we can use: the connection is failed rather than grown without end. */
const MAX_LINE = 16 * 1024 * 1024;

export class JsonLineRpc {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private buffer = '';
  private failure: DebuggerError | undefined;

  constructor(
    private readonly output: JsonLineWritable,
    private readonly options: {
      defaultTimeoutMs?: number;
      onNotification?: (method: string, params: unknown) => void;
    } = {},
  ) {}

  get closed(): boolean {
    return this.failure !== undefined;
  }

  /** Bytes read from the peer. */
  receive(chunk: Buffer | string): void {
    this.buffer += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    let start = 0;
    for (let nl = this.buffer.indexOf('\n', start); nl >= 0; nl = this.buffer.indexOf('\n', start)) {
      const line = this.buffer.slice(start, nl).trim();
      start = nl + 1;
      if (line !== '') this.handleLine(line);
    }
    this.buffer = this.buffer.slice(start);
    if (this.buffer.length > MAX_LINE) this.fail(`the peer sent a line longer than ${MAX_LINE} bytes`);
  }

  /** Sends a request; resolves with its `result`, rejects with its `error` (debugger_error). */
  request(method: string, params: unknown, options: RpcSendOptions = {}): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    if (options.signal?.aborted) return Promise.reject(new DebuggerError('timeout', `${method} was cancelled`));
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const entry: Pending = { method, resolve, reject, timer: undefined, signal: options.signal, onAbort: undefined };
      const timeoutMs = options.timeoutMs ?? this.options.defaultTimeoutMs ?? 30_000;
      entry.timer = setTimeout(
        () => this.settle(id, new DebuggerError('timeout', `${method} got no answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
      entry.timer.unref();
      if (options.signal) {
        const signal = options.signal;
        entry.onAbort = () => this.settle(id, new DebuggerError('timeout', `${method} was cancelled`));
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      this.pending.set(id, entry);
      this.write({ jsonrpc: '2.0', id, method, params }, id);
    });
  }

  notify(method: string, params?: unknown): void {
    if (!this.failure) this.write({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
  }

  /** The connection is gone: every pending request fails with the reason, and so does every later one. */
  fail(reason: string): void {
    if (this.failure) return;
    this.failure = new DebuggerError('debugger_error', reason);
    for (const id of [...this.pending.keys()]) this.settle(id, this.failure);
  }

  private write(message: unknown, id?: number): void {
    try {
      // JSON.stringify escapes every line break inside strings: one message stays one line.
      this.output.write(`${JSON.stringify(message)}\n`);
    } catch (e) {
      if (id !== undefined)
        this.settle(id, new DebuggerError('debugger_error', `could not write: ${(e as Error).message}`));
    }
  }

  private handleLine(line: string): void {
    let message: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(line);
      if (typeof parsed !== 'object' || parsed === null) return;
      message = parsed as Record<string, unknown>;
    } catch {
      return; // not JSON: not an answer to anything of ours
    }
    const id = message['id'];
    if (typeof id === 'number' && ('result' in message || 'error' in message)) {
      const error = message['error'] as { message?: unknown; code?: unknown } | undefined;
      if (error) {
        const text = typeof error.message === 'string' ? error.message : 'the peer reported an error';
        this.settle(id, new DebuggerError('debugger_error', text, { rpcCode: error.code }));
      } else {
        this.settle(id, message['result']);
      }
      return;
    }
    if (typeof message['method'] === 'string' && id === undefined) {
      this.options.onNotification?.(message['method'], message['params']);
    }
  }

  private settle(id: number, outcome: unknown): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    if (entry.timer) clearTimeout(entry.timer);
    if (entry.signal && entry.onAbort) entry.signal.removeEventListener('abort', entry.onAbort);
    if (outcome instanceof DebuggerError) entry.reject(outcome);
    else entry.resolve(outcome);
  }
}
