// The client half of the unix socket: a `fetch` that sends each request over the socket, for the
// SDK's StreamableHTTPClientTransport (`{ fetch: unixSocketFetch(path) }`, any http://localhost
// URL). Node's own fetch cannot reach a unix socket without the undici package; node:http can.
// The tests and bench/httpLoadBench.mjs use it; so can any Node MCP client.

import { type IncomingHttpHeaders, request } from 'node:http';
import { Readable } from 'node:stream';

function webHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

export function unixSocketFetch(socketPath: string): typeof fetch {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    const body = req.body ? Buffer.from(await req.arrayBuffer()) : undefined;
    const headers: Record<string, string> = {};
    req.headers.forEach((value, name) => {
      headers[name] = value;
    });
    headers['host'] ??= url.host;
    if (body) headers['content-length'] = String(body.length);
    const signal = req.signal;
    signal.throwIfAborted();
    return new Promise<Response>((resolve, reject) => {
      const outgoing = request(
        { socketPath, method: req.method, path: `${url.pathname}${url.search}`, headers },
        (res) => {
          const status = res.statusCode ?? 500;
          const empty = req.method === 'HEAD' || status === 204 || status === 205 || status === 304;
          if (empty) res.resume();
          resolve(
            new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
              status,
              statusText: res.statusMessage ?? '',
              headers: webHeaders(res.headers),
            }),
          );
        },
      );
      // Aborting closes the connection: on the 2026-07-28 protocol that is how a call is cancelled.
      const onAbort = (): void => {
        outgoing.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      outgoing.once('close', () => signal.removeEventListener('abort', onAbort));
      outgoing.once('error', reject);
      outgoing.end(body);
    });
  };
}
