// The DAP connection: owns the seq counter, the pending requests, per-request deadlines and
// cancellation, the adapter's capabilities, the adapter's own requests and the opt-in transcript.
// It neither frames (dapFraming does) nor knows what the requests mean or which adapter it talks to.
//
// Every request carries a fresh seq and a response is matched by its request_seq alone, so a
// response that arrives after its request gave up finds no pending entry and is dropped: it can
// never be read as another request's answer.

import type { DebugProtocol } from '@vscode/debugprotocol';
import { DebuggerError } from '../../util/errors.js';
import { log } from '../../util/log.js';
import { type DapFrameError, DapFramer, type DapFramerOptions, encodeDapMessage } from './dapFraming.js';
import { type DapCommand, type DapRequests, isDapCommand, missingCapability } from './dapRequests.js';

export interface DapWritable {
  write(chunk: Buffer): boolean;
}

export type DapTranscriptWriter = (direction: 'send' | 'recv', text: string) => void;

/**
 * Answers one of the adapter's own requests (`runInTerminal`, `startDebugging`, …): resolves with
 * the response body, or throws to answer `success: false` with the error's message. The signal
 * aborts when the answer is no longer wanted (the deadline passed, the connection failed).
 */
export type DapReverseRequestHandler = (request: DebugProtocol.Request, signal: AbortSignal) => unknown;

export interface DapConnectionOptions {
  /** Milliseconds a request waits for its response (default 30 s). */
  defaultTimeoutMs?: number;
  /** Milliseconds the reverse-request handler gets before the adapter is told it failed (10 s). */
  reverseTimeoutMs?: number;
  transcript?: DapTranscriptWriter;
  /** Every event, in the order the adapter sent them (called synchronously as each arrives). */
  onEvent?: (event: DebugProtocol.Event) => void;
  /** The adapter's own requests; without a handler each is answered `success: false`. */
  onReverseRequest?: DapReverseRequestHandler;
  /** Bytes the framer could not turn into a message (they are also logged). */
  onFrameError?: (error: DapFrameError) => void;
  /**
   * Commands outside the spec that the owner knows this adapter answers, for customRequest();
   * any other unknown command is refused, since an adapter may never answer it.
   */
  extraCommands?: readonly string[];
  framer?: DapFramerOptions;
}

export interface DapRequestOptions {
  /** Milliseconds to wait for the response; default from the connection. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface Pending {
  seq: number;
  command: string;
  resolve: (response: DebugProtocol.Response) => void;
  reject: (error: DebuggerError) => void;
  /** The caller's stack, captured when the request was sent: errors point at who asked. */
  origin: Error;
  timer: NodeJS.Timeout | undefined;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/** Frame errors logged before the rest are only counted (a broken adapter can send many). */
const LOGGED_FRAME_ERRORS = 20;

export class DapConnection {
  private readonly framer: DapFramer;
  private readonly pending = new Map<number, Pending>();
  /** Reverse requests being answered: aborted when the connection fails. */
  private readonly answering = new Set<AbortController>();
  private nextSeq = 1;
  private failure: DebuggerError | undefined;
  private caps: DebugProtocol.Capabilities | undefined;
  private readonly extraCommands: ReadonlySet<string>;
  private readonly defaultTimeoutMs: number;
  private readonly reverseTimeoutMs: number;
  private readonly options: DapConnectionOptions;

  constructor(
    private readonly output: DapWritable,
    options: DapConnectionOptions = {},
  ) {
    this.options = options;
    this.framer = new DapFramer(options.framer);
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? 30_000;
    this.reverseTimeoutMs = options.reverseTimeoutMs ?? 10_000;
    this.extraCommands = new Set(options.extraCommands ?? []);
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  get closed(): boolean {
    return this.failure !== undefined;
  }

  /**
   * What the adapter said it can do: the `initialize` response's body with every later
   * `capabilities` event merged in; undefined before the `initialize` response.
   */
  get capabilities(): Readonly<DebugProtocol.Capabilities> | undefined {
    return this.caps;
  }

  /** Feed bytes read from the adapter's stdout (or socket). */
  receive(chunk: Buffer): void {
    for (const frame of this.framer.push(chunk)) {
      if (frame.kind === 'message') this.handleMessage(frame.message);
      else this.handleFrameError(frame);
    }
  }

  /** The adapter's output ended: a frame cut short is reported. */
  receiveEnd(): void {
    for (const frame of this.framer.end()) if (frame.kind === 'error') this.handleFrameError(frame);
  }

  /**
   * Sends a request of the spec and resolves with its response when `success` is true. A response
   * with `success: false` rejects with `debugger_error` and the adapter's message; a request whose
   * capability the adapter has not advertised is refused with `backend_unavailable` before
   * anything is written.
   */
  request<C extends DapCommand>(
    command: C,
    args: DapRequests[C]['arguments'],
    options: DapRequestOptions = {},
  ): Promise<DapRequests[C]['response']> {
    const origin = new Error(command);
    const missing = missingCapability(command, this.caps);
    if (missing !== undefined) {
      const why = this.caps === undefined ? 'before its initialize response' : `without ${missing}`;
      return Promise.reject(
        this.withOrigin(
          new DebuggerError('backend_unavailable', `the debug adapter cannot take '${command}' ${why}`, {
            command,
            capability: missing,
          }),
          origin,
        ),
      );
    }
    return this.send(command, args, options, origin) as Promise<DapRequests[C]['response']>;
  }

  /** Sends a request outside the spec, one of `extraCommands`. */
  customRequest(command: string, args?: unknown, options: DapRequestOptions = {}): Promise<DebugProtocol.Response> {
    const origin = new Error(command);
    if (isDapCommand(command) || !this.extraCommands.has(command)) {
      const why = isDapCommand(command)
        ? 'is a spec request: use request()'
        : 'is not a request this adapter is known to answer';
      return Promise.reject(
        this.withOrigin(new DebuggerError('backend_unavailable', `'${command}' ${why}`, { command }), origin),
      );
    }
    return this.send(command, args, options, origin);
  }

  /**
   * The adapter is gone (exited, killed, its pipe broke): every pending request fails at once with
   * the reason, reverse requests in progress are abandoned, and every later request fails the same way.
   */
  fail(reason: string): void {
    if (this.failure) return;
    this.failure = new DebuggerError('debugger_error', reason);
    for (const controller of this.answering) controller.abort();
    this.answering.clear();
    for (const seq of [...this.pending.keys()]) this.settle(seq, this.failure);
  }

  private send(
    command: string,
    args: unknown,
    options: DapRequestOptions,
    origin: Error,
  ): Promise<DebugProtocol.Response> {
    if (this.failure) return Promise.reject(this.withOrigin(this.failure, origin));
    if (options.signal?.aborted) {
      return Promise.reject(
        this.withOrigin(new DebuggerError('timeout', `'${command}' was cancelled before it was sent`), origin),
      );
    }
    const seq = this.nextSeq++;
    const message: DebugProtocol.Request = { seq, type: 'request', command };
    if (args !== undefined) message.arguments = args;
    let frame: Buffer;
    try {
      frame = encodeDapMessage(message);
    } catch (e) {
      // JSON.stringify throws on a BigInt or a cycle: the caller's mistake, found before writing.
      return Promise.reject(
        this.withOrigin(
          new DebuggerError('invalid_argument', `'${command}' arguments: ${(e as Error).message}`),
          origin,
        ),
      );
    }
    return new Promise<DebugProtocol.Response>((resolve, reject) => {
      const entry: Pending = {
        seq,
        command,
        resolve,
        reject,
        origin,
        timer: undefined,
        signal: options.signal,
        onAbort: undefined,
      };
      const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
      if (Number.isFinite(timeoutMs)) {
        entry.timer = setTimeout(() => {
          this.settle(
            seq,
            new DebuggerError('timeout', `'${command}' got no answer from the debug adapter within ${timeoutMs} ms`, {
              command,
            }),
          );
        }, timeoutMs);
        entry.timer.unref();
      }
      if (options.signal) {
        const signal = options.signal;
        entry.onAbort = () => {
          const reason: unknown = signal.reason;
          this.settle(
            seq,
            reason instanceof DebuggerError ? reason : new DebuggerError('timeout', `'${command}' was cancelled`),
          );
        };
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      this.pending.set(seq, entry);
      this.write(frame, message, (e) =>
        this.settle(seq, new DebuggerError('debugger_error', `could not write to the debug adapter: ${e.message}`)),
      );
    });
  }

  private write(frame: Buffer, message: DebugProtocol.ProtocolMessage, onError: (e: Error) => void): void {
    this.options.transcript?.('send', JSON.stringify(message));
    try {
      this.output.write(frame);
    } catch (e) {
      onError(e as Error);
    }
  }

  private handleMessage(message: Record<string, unknown>): void {
    if (this.options.transcript) this.options.transcript('recv', JSON.stringify(message));
    const type = message['type'];
    if (type === 'response') this.handleResponse(message as unknown as DebugProtocol.Response);
    else if (type === 'event' && typeof message['event'] === 'string')
      this.handleEvent(message as unknown as DebugProtocol.Event);
    else if (type === 'request' && typeof message['command'] === 'string' && typeof message['seq'] === 'number')
      this.answerReverse(message as unknown as DebugProtocol.Request);
    else log('warn', 'dap: a message that is not a request, response or event', { type: String(type) });
  }

  private handleResponse(response: DebugProtocol.Response): void {
    const entry = typeof response.request_seq === 'number' ? this.pending.get(response.request_seq) : undefined;
    if (entry === undefined) {
      // Late (its request timed out or was cancelled) or never ours.
      log('debug', 'dap: dropped a response to no pending request', {
        command: String(response.command),
        request_seq: response.request_seq,
      });
      return;
    }
    if (response.success !== true) {
      const error = (response.body as DebugProtocol.ErrorResponse['body'] | undefined)?.error;
      const text = error?.format ?? (typeof response.message === 'string' ? response.message : undefined);
      this.settle(
        entry.seq,
        new DebuggerError('debugger_error', text ?? `the debug adapter refused '${entry.command}'`, {
          command: entry.command,
          ...(typeof response.message === 'string' ? { adapterMessage: response.message } : {}),
          ...(error !== undefined ? { adapterError: error } : {}),
        }),
      );
      return;
    }
    // Kept before anyone awaiting the response runs, so the next request is checked against them.
    if (entry.command === 'initialize') this.caps = mergeCapabilities({}, response.body);
    this.settle(entry.seq, response);
  }

  private handleEvent(event: DebugProtocol.Event): void {
    if (event.event === 'capabilities') {
      const body = event.body as DebugProtocol.CapabilitiesEvent['body'] | undefined;
      this.caps = mergeCapabilities(this.caps ?? {}, body?.capabilities);
    }
    try {
      this.options.onEvent?.(event);
    } catch (e) {
      log('error', 'dap: the event listener threw', { event: event.event, error: (e as Error).message });
    }
  }

  /**
   * Every request of the adapter's gets an answer, whatever happens: the adapter waits for it
   * (lldb-dap 22 holds its launch ~20 s on an unanswered or refused `runInTerminal`), so a
   * handler that hangs is answered `success: false` at reverseTimeoutMs.
   */
  private answerReverse(request: DebugProtocol.Request): void {
    const controller = new AbortController();
    this.answering.add(controller);
    const timer = setTimeout(
      () => controller.abort(new Error(`no answer within ${this.reverseTimeoutMs} ms`)),
      this.reverseTimeoutMs,
    );
    timer.unref();
    const handler = this.options.onReverseRequest;
    const abandoned = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
    });
    const work = (async () => {
      if (handler === undefined) throw new Error(`'${request.command}' is not supported by this client`);
      return await handler(request, controller.signal);
    })();
    Promise.race([work, abandoned])
      .then(
        (body) => ({ success: true as const, body }),
        (e: unknown) => ({ success: false as const, message: e instanceof Error ? e.message : String(e) }),
      )
      .then((outcome) => {
        clearTimeout(timer);
        this.answering.delete(controller);
        if (this.failure) return;
        const response: DebugProtocol.Response = {
          seq: this.nextSeq++,
          type: 'response',
          request_seq: request.seq,
          command: request.command,
          success: outcome.success,
        };
        if (outcome.success && outcome.body !== undefined) response.body = outcome.body;
        if (!outcome.success) response.message = outcome.message;
        let frame: Buffer;
        try {
          frame = encodeDapMessage(response);
        } catch (e) {
          frame = encodeDapMessage({ ...response, success: false, body: undefined, message: (e as Error).message });
        }
        this.write(frame, response, (e) =>
          log('warn', 'dap: could not answer the adapter', { command: request.command, error: e.message }),
        );
      })
      // The handler's own failure became the answer above; only a bug of ours can land here.
      .catch((e: unknown) => log('error', 'dap: answering the adapter failed', { error: String(e) }));
    work.catch(() => {});
  }

  private handleFrameError(error: DapFrameError): void {
    this.options.transcript?.('recv', `[${error.error}: ${error.message}]`);
    if (this.framer.errors <= LOGGED_FRAME_ERRORS) {
      log('warn', 'dap: bytes from the debug adapter that are not a message', {
        error: error.error,
        message: error.message,
        skippedBytes: error.skippedBytes,
      });
    }
    // A response too large (or too broken) to parse still names its request near its end when the
    // adapter sorts keys, or near its start when it does not: fail that request now rather than
    // at its deadline.
    if (error.error === 'body_too_large' || error.error === 'bad_json') {
      const seq = requestSeqIn(`${error.head}\n${error.tail ?? ''}`);
      const entry = seq === undefined ? undefined : this.pending.get(seq);
      if (entry !== undefined) {
        this.settle(
          entry.seq,
          new DebuggerError(
            error.error === 'body_too_large' ? 'limit_exceeded' : 'debugger_error',
            `the debug adapter's answer to '${entry.command}' was unreadable: ${error.message}`,
            { command: entry.command },
          ),
        );
      }
    }
    try {
      this.options.onFrameError?.(error);
    } catch (e) {
      log('error', 'dap: the frame error listener threw', { error: (e as Error).message });
    }
  }

  private settle(seq: number, outcome: DebugProtocol.Response | DebuggerError): void {
    const entry = this.pending.get(seq);
    if (!entry) return;
    this.pending.delete(seq);
    if (entry.timer) clearTimeout(entry.timer);
    if (entry.signal && entry.onAbort) entry.signal.removeEventListener('abort', entry.onAbort);
    if (outcome instanceof DebuggerError) entry.reject(this.withOrigin(outcome, entry.origin));
    else entry.resolve(outcome);
  }

  private withOrigin(error: DebuggerError, origin: Error): DebuggerError {
    const copy = new DebuggerError(error.code, error.message, error.details, { cause: error.cause });
    copy.stack = `${copy.name}: ${copy.message}\n${(origin.stack ?? '').split('\n').slice(1).join('\n')}`;
    return copy;
  }
}

/**
 * Copies capability fields onto `into`. Bodies come from JSON.parse, where `__proto__` is an
 * ordinary key; assigning it would replace the object's prototype, so it is skipped.
 */
function mergeCapabilities(into: DebugProtocol.Capabilities, from: unknown): DebugProtocol.Capabilities {
  if (typeof from !== 'object' || from === null || Array.isArray(from)) return into;
  const target = into as Record<string, unknown>;
  for (const [key, value] of Object.entries(from)) if (key !== '__proto__') target[key] = value;
  return into;
}

/**
 * The request_seq of a response in a piece of its text. Only a key can be followed by `":`
 * (inside a JSON string a quote is escaped), so text the debuggee put in the body cannot pose as it.
 */
function requestSeqIn(text: string): number | undefined {
  let found: number | undefined;
  for (const match of text.matchAll(/"request_seq"\s*:\s*(\d{1,15})/g)) found = Number(match[1]);
  return found;
}
