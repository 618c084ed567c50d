// The DAP connection without an adapter: the test plays the adapter's side through the framer,
// so each ordering (late responses, reverse requests, capability events, an adapter that dies)
// is exact.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DapConnection, type DapConnectionOptions } from '../../../src/protocols/dap/dapConnection.js';
import { DapFramer, encodeDapMessage } from '../../../src/protocols/dap/dapFraming.js';
import { REQUEST_CAPABILITY } from '../../../src/protocols/dap/dapRequests.js';
import { setLogLevel } from '../../../src/util/log.js';

type Sent = DebugProtocol.Request & DebugProtocol.Response;

function setup(options: DapConnectionOptions = {}) {
  const framer = new DapFramer();
  const sent: Sent[] = [];
  const events: DebugProtocol.Event[] = [];
  const conn = new DapConnection(
    {
      write: (chunk) => {
        for (const f of framer.push(chunk)) if (f.kind === 'message') sent.push(f.message as unknown as Sent);
        return true;
      },
    },
    { onEvent: (e) => events.push(e), ...options },
  );
  let seq = 1000;
  const adapter = {
    send(message: Record<string, unknown>): void {
      conn.receive(encodeDapMessage({ seq: seq++, ...message }));
    },
    respond(request: Sent, extra: Record<string, unknown> = {}): void {
      adapter.send({ type: 'response', request_seq: request.seq, command: request.command, success: true, ...extra });
    },
    event(event: string, body?: unknown): void {
      adapter.send({ type: 'event', event, ...(body === undefined ? {} : { body }) });
    },
    last(): Sent {
      const request = sent[sent.length - 1];
      if (request === undefined) throw new Error('nothing sent');
      return request;
    },
    async initialize(capabilities: DebugProtocol.Capabilities): Promise<void> {
      const answered = conn.request('initialize', { adapterID: 'fake' });
      adapter.respond(adapter.last(), { body: capabilities });
      await answered;
    },
  };
  return { conn, sent, events, adapter };
}

/** Lets promise callbacks (reverse-request answers) run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.restoreAllMocks();
  setLogLevel('info');
});

describe('DapConnection', () => {
  it('numbers requests from 1 and matches responses by request_seq, in any order', async () => {
    const { conn, sent, adapter } = setup();
    await adapter.initialize({});
    const a = conn.request('threads', undefined);
    const b = conn.request('evaluate', { expression: 'x' });
    expect(sent.map((m) => [m.seq, m.type, m.command])).toEqual([
      [1, 'request', 'initialize'],
      [2, 'request', 'threads'],
      [3, 'request', 'evaluate'],
    ]);
    expect(sent[2]?.arguments).toEqual({ expression: 'x' });
    adapter.respond(sent[2] as Sent, { body: { result: 'B', variablesReference: 0 } });
    adapter.respond(sent[1] as Sent, { body: { threads: [{ id: 1, name: 'main' }] } });
    expect((await a).body).toEqual({ threads: [{ id: 1, name: 'main' }] });
    expect((await b).body.result).toBe('B');
    expect(conn.pendingCount).toBe(0);
  });

  it("rejects success:false with the adapter's message and the caller's stack", async () => {
    const { conn, adapter } = setup();
    await adapter.initialize({});
    const p = conn.request('stackTrace', { threadId: 9 });
    adapter.respond(adapter.last(), {
      success: false,
      message: 'invalid thread',
      body: { error: { id: 3, format: 'invalid thread', showUser: true } },
    });
    await expect(p).rejects.toMatchObject({
      code: 'debugger_error',
      message: 'invalid thread',
      details: { command: 'stackTrace' },
    });
    await p.catch((e: Error) => expect(e.stack).toContain('dapConnection.test.ts'));
    const q = conn.request('threads', undefined);
    adapter.respond(adapter.last(), { success: false, message: 'notStopped' });
    await expect(q).rejects.toMatchObject({ message: 'notStopped', details: { adapterMessage: 'notStopped' } });
  });

  it("a late response after the deadline is dropped and logged at debug, never read as the next one's", async () => {
    setLogLevel('debug');
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const { conn, adapter, sent } = setup();
    await adapter.initialize({});
    const slow = conn.request('next', { threadId: 1 }, { timeoutMs: 10 });
    await expect(slow).rejects.toMatchObject({ code: 'timeout', details: { command: 'next' } });
    const next = conn.request('threads', undefined);
    adapter.respond(sent[1] as Sent, { body: { late: true } });
    adapter.respond(sent[2] as Sent, { body: { threads: [] } });
    expect((await next).body).toEqual({ threads: [] });
    const dropped = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['request_seq'] === 2);
    expect(dropped).toEqual([
      expect.objectContaining({ level: 'debug', message: 'dap: dropped a response to no pending request' }),
    ]);
  });

  it('an aborted request stops waiting at once; one aborted before it is sent is never written', async () => {
    const { conn, adapter, sent } = setup();
    await adapter.initialize({});
    const controller = new AbortController();
    const p = conn.request('continue', { threadId: 1 }, { signal: controller.signal });
    controller.abort();
    await expect(p).rejects.toMatchObject({ code: 'timeout' });
    expect(conn.pendingCount).toBe(0);
    const written = sent.length;
    await expect(conn.request('threads', undefined, { signal: controller.signal })).rejects.toMatchObject({
      code: 'timeout',
    });
    expect(sent).toHaveLength(written);
  });

  it('delivers events in order, and a listener that throws does not stop the next ones', () => {
    const seen: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const { adapter } = setup({
      onEvent: (e) => {
        seen.push(e.event);
        if (e.event === 'module') throw new Error('listener bug');
      },
    });
    for (const name of ['initialized', 'module', 'stopped', 'output', 'exited']) adapter.event(name, {});
    expect(seen).toEqual(['initialized', 'module', 'stopped', 'output', 'exited']);
  });

  it("answers the adapter's runInTerminal with the handler's body", async () => {
    const { sent, adapter } = setup({
      onReverseRequest: async (request) => {
        expect(request.arguments).toMatchObject({ args: ['/bin/prog', 'a b'] });
        return { processId: 4242 };
      },
    });
    adapter.send({
      type: 'request',
      command: 'runInTerminal',
      seq: 77,
      arguments: { kind: 'integrated', args: ['/bin/prog', 'a b'], cwd: '/' },
    });
    await settle();
    expect(sent).toEqual([
      { seq: 1, type: 'response', request_seq: 77, command: 'runInTerminal', success: true, body: { processId: 4242 } },
    ]);
  });

  it("answers every request of the adapter's, even without a handler or when the handler throws", async () => {
    const bare = setup();
    bare.adapter.send({ type: 'request', command: 'startDebugging', seq: 5, arguments: {} });
    await settle();
    expect(bare.sent).toEqual([
      expect.objectContaining({
        request_seq: 5,
        command: 'startDebugging',
        success: false,
        message: expect.any(String),
      }),
    ]);
    const throwing = setup({
      onReverseRequest: (request) => {
        throw new Error(`no ${request.command} here`);
      },
    });
    throwing.adapter.send({ type: 'request', command: 'somethingNew', seq: 6 });
    await settle();
    expect(throwing.sent).toEqual([
      expect.objectContaining({ request_seq: 6, success: false, message: 'no somethingNew here' }),
    ]);
  });

  it('answers a reverse request whose handler never settles, at the reverse deadline', async () => {
    let aborted = false;
    const { sent, adapter } = setup({
      reverseTimeoutMs: 20,
      onReverseRequest: (_request, signal) => {
        signal.addEventListener('abort', () => {
          aborted = true;
        });
        return new Promise(() => {});
      },
    });
    adapter.send({ type: 'request', command: 'runInTerminal', seq: 8, arguments: {} });
    await vi.waitFor(() => expect(sent).toHaveLength(1), { timeout: 5_000 });
    expect(sent[0]).toMatchObject({ request_seq: 8, success: false, message: expect.stringContaining('20 ms') });
    expect(aborted).toBe(true);
  });

  it('fail() rejects every pending request at once, every later one, and abandons reverse answers', async () => {
    let release: (() => void) | undefined;
    const { conn, adapter, sent } = setup({
      onReverseRequest: () => new Promise<void>((resolve) => (release = resolve)),
    });
    await adapter.initialize({});
    const a = conn.request('continue', { threadId: 1 });
    const b = conn.request('evaluate', { expression: '1' });
    adapter.send({ type: 'request', command: 'runInTerminal', seq: 3, arguments: {} });
    conn.fail('lldb-dap exited with status 1');
    await expect(a).rejects.toMatchObject({ code: 'debugger_error', message: 'lldb-dap exited with status 1' });
    await expect(b).rejects.toMatchObject({ code: 'debugger_error' });
    await expect(conn.request('threads', undefined)).rejects.toMatchObject({
      message: 'lldb-dap exited with status 1',
    });
    release?.();
    await settle();
    expect(sent.filter((m) => m.type === 'response')).toEqual([]);
    expect(conn.closed).toBe(true);
  });

  it('refuses a request whose capability is not advertised, locally and before writing', async () => {
    const { conn, adapter, sent } = setup();
    await expect(conn.request('readMemory', { memoryReference: '0x0', count: 4 })).rejects.toMatchObject({
      code: 'backend_unavailable',
      details: { command: 'readMemory', capability: 'supportsReadMemoryRequest' },
    });
    await adapter.initialize({ supportsReadMemoryRequest: true, supportsStepBack: false });
    const refusals = [
      conn.request('stepBack', { threadId: 1 }),
      conn.request('setDataBreakpoints', { breakpoints: [] }),
      conn.request('setExceptionBreakpoints', { filters: ['cpp_throw'] }),
      conn.request('disassemble', { memoryReference: '0x0', instructionCount: 1 }),
    ];
    for (const [refusal, capability] of [
      [refusals[0], 'supportsStepBack'],
      [refusals[1], 'supportsDataBreakpoints'],
      [refusals[2], 'exceptionBreakpointFilters'],
      [refusals[3], 'supportsDisassembleRequest'],
    ] as const) {
      await expect(refusal).rejects.toMatchObject({ code: 'backend_unavailable', details: { capability } });
      await refusal?.catch((e: Error) => {
        expect(e.message).toContain(capability);
        expect(e.stack).toContain('dapConnection.test.ts');
      });
    }
    expect(sent.map((m) => m.command)).toEqual(['initialize']);
    // An advertised one goes out.
    void conn.request('readMemory', { memoryReference: '0x0', count: 4 }).catch(() => {});
    expect(adapter.last().command).toBe('readMemory');
  });

  it('adds what a later capabilities event advertises', async () => {
    const { conn, adapter } = setup();
    await adapter.initialize({ supportsConfigurationDoneRequest: true });
    await expect(conn.request('stepInTargets', { frameId: 1 })).rejects.toMatchObject({ code: 'backend_unavailable' });
    adapter.event('capabilities', { capabilities: { supportsStepInTargetsRequest: true } });
    const p = conn.request('stepInTargets', { frameId: 1 });
    adapter.respond(adapter.last(), { body: { targets: [] } });
    expect((await p).body).toEqual({ targets: [] });
    expect(conn.capabilities).toEqual({ supportsConfigurationDoneRequest: true, supportsStepInTargetsRequest: true });
  });

  it('takes exception breakpoints once filters are offered', async () => {
    const { conn, adapter } = setup();
    await adapter.initialize({ exceptionBreakpointFilters: [{ filter: 'cpp_throw', label: 'C++ Throw' }] });
    const p = conn.request('setExceptionBreakpoints', { filters: ['cpp_throw'] });
    adapter.respond(adapter.last(), { body: { breakpoints: [{ verified: true }] } });
    await expect(p).resolves.toMatchObject({ success: true });
  });

  it('a __proto__ key among capabilities stays a key, not a prototype', async () => {
    const { conn, adapter } = setup();
    const answered = conn.request('initialize', { adapterID: 'fake' });
    conn.receive(
      Buffer.from(
        (() => {
          const body = `{"seq":1,"type":"response","request_seq":1,"command":"initialize","success":true,"body":{"__proto__":{"supportsStepBack":true},"supportsModulesRequest":true}}`;
          return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
        })(),
      ),
    );
    await answered;
    expect(conn.capabilities?.supportsModulesRequest).toBe(true);
    expect(conn.capabilities?.supportsStepBack).toBeUndefined();
    expect(Object.getPrototypeOf(conn.capabilities)).toBe(Object.prototype);
    await expect(conn.request('stepBack', { threadId: 1 })).rejects.toMatchObject({ code: 'backend_unavailable' });
    void adapter;
  });

  it('sends a request outside the spec only when the owner vouches for it', async () => {
    const { conn, adapter, sent } = setup({ extraCommands: ['compileUnits'] });
    await adapter.initialize({});
    await expect(conn.customRequest('fooBar')).rejects.toMatchObject({ code: 'backend_unavailable' });
    await expect(conn.customRequest('threads')).rejects.toMatchObject({ code: 'backend_unavailable' });
    const p = conn.customRequest('compileUnits', { moduleId: 'x' });
    adapter.respond(adapter.last(), { body: { compileUnits: [] } });
    expect((await p).body).toEqual({ compileUnits: [] });
    expect(sent.map((m) => m.command)).toEqual(['initialize', 'compileUnits']);
  });

  it('fails the request an oversized response answers at once, not at its deadline', async () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const { conn, adapter } = setup({ framer: { maxBodyBytes: 1024 } });
    await adapter.initialize({ supportsReadMemoryRequest: true });
    const p = conn.request('readMemory', { memoryReference: '0x1000', count: 100_000 }, { timeoutMs: 60_000 });
    // Keys sorted as lldb-dap sends them: body first, request_seq near the end.
    adapter.send({
      body: { address: '0x1000', data: 'A'.repeat(5000) },
      command: 'readMemory',
      request_seq: 2,
      success: true,
      type: 'response',
    });
    await expect(p).rejects.toMatchObject({ code: 'limit_exceeded', details: { command: 'readMemory' } });
    // The stream goes on.
    const q = conn.request('threads', undefined);
    adapter.respond(adapter.last(), { body: { threads: [] } });
    await expect(q).resolves.toMatchObject({ success: true });
  });

  it('writes every message sent and received to the transcript, when asked', async () => {
    const lines: string[] = [];
    const { conn, adapter } = setup({ transcript: (direction, text) => lines.push(`${direction} ${text}`) });
    await adapter.initialize({});
    void conn.request('threads', undefined).catch(() => {});
    adapter.event('stopped', { reason: 'pause' });
    expect(lines).toEqual([
      'send {"seq":1,"type":"request","command":"initialize","arguments":{"adapterID":"fake"}}',
      'recv {"seq":1000,"type":"response","request_seq":1,"command":"initialize","success":true,"body":{}}',
      'send {"seq":2,"type":"request","command":"threads"}',
      'recv {"seq":1001,"type":"event","event":"stopped","body":{"reason":"pause"}}',
    ]);
  });

  it('refuses arguments that cannot be serialised, and a write that throws fails the request', async () => {
    const { conn, adapter, sent } = setup();
    await adapter.initialize({});
    await expect(conn.request('evaluate', { expression: 'x', big: 1n } as never)).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    expect(sent).toHaveLength(1);
    const broken = new DapConnection({
      write: () => {
        throw new Error('EPIPE');
      },
    });
    await expect(broken.request('initialize', { adapterID: 'x' })).rejects.toMatchObject({
      code: 'debugger_error',
      message: expect.stringContaining('EPIPE'),
    });
  });
});

describe('REQUEST_CAPABILITY', () => {
  // The spec's .d.ts, read as text: each request interface and the sentence of its comment that
  // names the capability a client must see first.
  const require = createRequire(import.meta.url);
  const spec = readFileSync(
    require.resolve('@vscode/debugprotocol').replace(/debugProtocol\.js$/, 'debugProtocol.d.ts'),
    'utf8',
  );
  const requests = [
    ...spec.matchAll(
      /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*interface (\w+)Request extends Request \{\s*\/\/ command: '(\w+)'/g,
    ),
  ];
  const reverse = new Set(['runInTerminal', 'startDebugging']);

  it('lists every client request of the spec, and nothing else', () => {
    const commands = requests.map((m) => m[3] as string).filter((c) => !reverse.has(c));
    expect(commands.length).toBeGreaterThan(40);
    expect(Object.keys(REQUEST_CAPABILITY).sort()).toEqual([...commands].sort());
  });

  it("guards each request with the capability the spec's comment names", () => {
    for (const [, comment = '', , command = ''] of requests) {
      if (reverse.has(command)) continue;
      const named =
        /(?:should only call this request|should only be called|only call this request) if the (?:corresponding )?capability `(\w+)`/.exec(
          comment,
        )?.[1] ?? /capability `(\w+)` returns one or more filters/.exec(comment)?.[1];
      expect(REQUEST_CAPABILITY[command as keyof typeof REQUEST_CAPABILITY], command).toBe(named ?? null);
    }
  });
});
