// Small pieces between web-standard Responses and node:http: JSON-RPC error answers, a hook for
// when a streamed body is over, and writing a Response to a ServerResponse (the refusals the
// front door answers itself; MCP answers go through the SDK's toNodeHandler).

import type { ServerResponse } from 'node:http';

export function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

/**
 * The same response, calling `done` once when its body has been read to the end, failed, or was
 * cancelled; at once for a response without a body. `signal` (the request's, which toNodeHandler
 * aborts when the client goes away) cancels the body at once: toNodeHandler itself notices only
 * when the next chunk comes, up to 15 s later on an idle SSE stream (its keep-alive interval).
 */
export function whenBodyDone(response: Response, done: () => void, signal?: AbortSignal): Response {
  if (response.body === null) {
    done();
    return response;
  }
  let called = false;
  const finish = (): void => {
    if (!called) {
      called = true;
      done();
    }
  };
  const reader = response.body.getReader();
  if (signal) {
    const onAbort = (): void => {
      finish();
      reader.cancel(signal.reason).catch(() => {});
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  }
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          finish();
          controller.close();
        } else controller.enqueue(value);
      } catch (e) {
        finish();
        controller.error(e);
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason).catch(() => {});
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Writes a small, fully buffered Response (a refusal, /metrics) to node:http. */
export async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  headers['content-length'] = String(body.length);
  res.writeHead(response.status, headers);
  res.end(body);
}
