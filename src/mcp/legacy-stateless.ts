// Stateless serving of 2025-era MCP requests (every client that speaks the `initialize`
// handshake, which is every official client by default): the SDK's legacyStatelessFallback,
// except that a request which asked for no progress is answered with one JSON body instead of
// an SSE stream. The SDK's fallback builds its transport with only `sessionIdGenerator:
// undefined`, so it always streams, although such a call sends nothing before its result (no
// progress is sent without a token, and a stateless exchange can put no request to the client).
// The stream costs both ends: the server's stream, its keep-alive timer and chunked writes, and
// the client's SSE parsing pipeline; a held `ask_user` paid about 1 ms for it (bench/README.md,
// "MCP"). Calls that carry a progress token, batches and anything unusual keep the SDK's stream.
import {
  isJsonContentType,
  type LegacyHttpHandler,
  type LegacyStatelessFallbackOptions,
  legacyStatelessFallback,
  type McpServerFactory,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { isPlainObject } from '../domain/values.ts';

/**
 * A single JSON-RPC request (not a batch, notification or response) without a progress token:
 * nothing it can cause is sent before its result, so one JSON body carries all of it.
 */
function answersInJson(request: Request, body: unknown): boolean {
  if (request.method !== 'POST' || !isPlainObject(body)) return false;
  if (typeof body.method !== 'string' || (typeof body.id !== 'string' && typeof body.id !== 'number'))
    return false;
  const params = body.params;
  const meta = isPlainObject(params) ? params._meta : undefined;
  return !(isPlainObject(meta) && meta.progressToken !== undefined);
}

function jsonRpcError(status: number, code: number, message: string, id: unknown = null): Response {
  const echoed = typeof id === 'string' || typeof id === 'number' ? id : null;
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: echoed }, { status });
}

/** A drop-in for the SDK's `legacyStatelessFallback` (same arguments, same answers but the framing). */
export function legacyStatelessServing(
  factory: McpServerFactory,
  onerror?: (error: Error) => void,
  options: LegacyStatelessFallbackOptions = {},
): LegacyHttpHandler {
  const streaming = legacyStatelessFallback(factory, onerror, options);
  return async (request, o) => {
    // What createMcpHandler answers before it classifies anything, kept for a router in front.
    if (request.method === 'POST' && !isJsonContentType(request.headers.get('content-type'))) {
      onerror?.(new Error('Unsupported Media Type: Content-Type must be application/json'));
      return jsonRpcError(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    }
    const body = o?.parsedBody;
    if (!answersInJson(request, body)) return streaming(request, o);
    const authInfo = o?.authInfo;
    try {
      const product = await factory({
        era: 'legacy',
        ...(authInfo !== undefined && { authInfo }),
        requestInfo: request,
      });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
        ...(options.maxRequestBodySize !== undefined && { maxRequestBodySize: options.maxRequestBodySize }),
      });
      await product.connect(transport);
      let closed = false;
      const teardown = () => {
        if (closed) return;
        closed = true;
        transport.close().catch(() => {});
        product.close().catch(() => {});
      };
      // A client gone mid-call: closing the server aborts the tool's signal (ending a held wait,
      // never the question). The transport then never settles its JSON answer, so the exchange
      // is answered here (nobody reads it).
      let onAbort = () => {};
      const gone = new Promise<Response>((resolve) => {
        onAbort = () => {
          teardown();
          resolve(new Response(null, { status: 499 }));
        };
      });
      if (request.signal.aborted) onAbort();
      else request.signal.addEventListener('abort', onAbort, { once: true });
      try {
        return await Promise.race([
          transport.handleRequest(request, { ...(authInfo !== undefined && { authInfo }), parsedBody: body }),
          gone,
        ]);
      } finally {
        request.signal.removeEventListener('abort', onAbort);
        // After the answer is on its way: closing the instance is not the caller's wait.
        setImmediate(teardown);
      }
    } catch (error) {
      try {
        onerror?.(error instanceof Error ? error : new Error(String(error)));
      } catch {}
      return jsonRpcError(500, -32603, 'Internal server error', (body as { id?: unknown }).id);
    }
  };
}
