// A client of LLDB's MCP protocol server, spoken directly on its socket (wrapping `lldb-mcp-22`
// was measured broken here: the lldb it spawns writes `(lldb)` into stdout and swallows
// `initialize`). LLDB 22.1.8 answers MCP 2024-11-05 with two tools: `command` (one LLDB command,
// its text back) and `debugger_list`. Every command names its debugger: without one, LLDB picks
// the first debugger of the process.

import { connect, type Socket } from 'node:net';
import { JsonLineRpc } from '../../protocols/jsonLine/jsonLineRpc.js';
import type { TranscriptWriter } from '../../protocols/mi/miConnection.js';
import { DebuggerError } from '../../util/errors.js';

export const MCP_PROTOCOL_VERSION = '2024-11-05';

export interface CommandText {
  /** The command's output, terminal colours taken out (LLDB colours it as the person's settings say). */
  text: string;
  isError: boolean;
}

/** CSI sequences (colours, cursor moves) LLDB puts in its output when the person's terminal has colour. */
const CSI = /\x1b\[[0-?]*[ -/]*[@-~]/g;

export function stripTerminalCodes(text: string): string {
  return text.replace(CSI, '');
}

export interface LldbMcpOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  transcript?: TranscriptWriter;
  /** Called once when the socket closes for any reason (the person stopped the server, LLDB exited). */
  onClose?: (reason: string) => void;
}

export class LldbMcpClient {
  private closing = false;
  /** The debugger every command names ("lldb-mcp://debugger/1"). */
  debuggerUri = '';
  serverName = '';

  private constructor(
    private readonly socket: Socket,
    private readonly rpc: JsonLineRpc,
  ) {}

  static async connect(host: string, port: number, options: LldbMcpOptions): Promise<LldbMcpClient> {
    const socket = connect({ host, port });
    const transcript = options.transcript;
    const rpc = new JsonLineRpc(
      {
        write: (chunk) => {
          transcript?.('send', chunk.trimEnd());
          return socket.write(chunk);
        },
      },
      { defaultTimeoutMs: options.timeoutMs },
    );
    const client = new LldbMcpClient(socket, rpc);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      if (transcript) for (const line of chunk.toString('utf8').split('\n')) if (line) transcript('recv', line);
      rpc.receive(chunk);
    });
    let closedReason = 'the connection to LLDB closed';
    socket.on('error', (e) => {
      closedReason = `the connection to LLDB failed: ${e.message}`;
    });
    socket.on('close', () => {
      rpc.fail(closedReason);
      if (!client.closing) options.onClose?.(closedReason);
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', (e) =>
        reject(
          new DebuggerError(
            'backend_unavailable',
            `cannot reach LLDB's protocol server at ${host}:${port}: ${e.message}`,
          ),
        ),
      );
    });
    try {
      const init = (await rpc.request(
        'initialize',
        { protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'dbg-mcp', version: '1' } },
        { timeoutMs: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) },
      )) as { serverInfo?: { name?: string } } | undefined;
      client.serverName = init?.serverInfo?.name ?? '';
      rpc.notify('notifications/initialized');
      const list = (await rpc.request('tools/call', { name: 'debugger_list', arguments: {} })) as unknown;
      const uris = [...toolText(list).text.matchAll(/lldb-mcp:\/\/debugger\/\d+/g)].map((m) => m[0]);
      if (uris.length === 0) throw new DebuggerError('backend_unavailable', 'LLDB lists no debugger to join');
      client.debuggerUri = uris[0] as string;
    } catch (e) {
      client.close();
      throw e;
    }
    return client;
  }

  /** Runs one LLDB command in the named debugger; its text back, colours removed. */
  async command(text: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<CommandText> {
    const result = await this.rpc.request(
      'tools/call',
      { name: 'command', arguments: { debugger: this.debuggerUri, command: text } },
      options,
    );
    return toolText(result);
  }

  get closed(): boolean {
    return this.rpc.closed;
  }

  close(): void {
    this.closing = true;
    this.rpc.fail('the session left LLDB');
    this.socket.destroy();
  }
}

/** A tools/call result's text (its content parts joined), colours removed. */
function toolText(result: unknown): CommandText {
  const r = result as { content?: { type?: string; text?: string }[]; isError?: boolean } | undefined;
  const text = (r?.content ?? []).map((c) => (typeof c.text === 'string' ? c.text : '')).join('');
  return { text: stripTerminalCodes(text), isError: r?.isError === true };
}
