// POST/GET/DELETE /mcp: the MCP tools over Streamable HTTP, as a self-contained Fastify plugin.
// The SDK's createMcpHandler serves 2026-07-28 requests per request; 2025-era clients are served
// statelessly from the same factory by legacy-stateless.ts (the SDK's fallback, with JSON answers
// where nothing comes before the result). No sessions are kept, so there is nothing to cap or
// expire, and any instance can serve any request.
import { Readable } from 'node:stream';
import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  type McpRequestContext,
} from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../domain/principal.ts';
import type { Interactions } from '../engine/types.ts';
import { createEnginePort } from './engine-port.ts';
import { legacyStatelessServing } from './legacy-stateless.ts';
import { createMcpTools, type McpToolsOptions } from './tools.ts';

export interface McpPluginOptions extends McpToolsOptions {
  engine: Interactions;
  /** Cap on a request body (an ask carries media and schemas). */
  maxBodyBytes: number;
  onError?: (err: Error) => void;
}

export const MCP_PATH = '/mcp';

/** The principal rides to the per-request server factory in the SDK's pass-through auth info. */
const PRINCIPAL = 'taiPrincipal';

function webRequest(req: FastifyRequest, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    // The body arrives parsed; its framing headers no longer describe anything.
    if (value === undefined || name === 'content-length' || name === 'transfer-encoding') continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const url = new URL(req.url, `${req.protocol}://${req.host || 'localhost'}`);
  return new Request(url, { method: req.method, headers, signal });
}

async function sendWeb(reply: FastifyReply, res: Response): Promise<FastifyReply> {
  reply.status(res.status);
  res.headers.forEach((value, name) => {
    reply.header(name, value);
  });
  if (!res.body) return reply.send();
  // A whole JSON answer goes out in one write, with its length, rather than piped as a stream.
  if (res.headers.get('content-type')?.startsWith('application/json'))
    return reply.send(Buffer.from(await res.arrayBuffer()));
  const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream);
  // A client gone mid-stream: stop reading the SDK's stream so nothing keeps the exchange open.
  reply.raw.once('close', () => body.destroy());
  return reply.send(body);
}

export async function mcpRoutes(app: FastifyInstance, o: McpPluginOptions): Promise<void> {
  const factory = (ctx: McpRequestContext) => {
    const principal = ctx.authInfo?.extra?.[PRINCIPAL] as Principal | undefined;
    // Every request passes the authentication below first; a missing principal is a bug.
    if (!principal) throw new Error('MCP request without a principal');
    // Elicitation states are bound to the principal they were minted for (elicitation.ts).
    return createMcpTools(createEnginePort(o.engine, principal), { ...o, caller: principal.id });
  };
  const limits = { maxRequestBodySize: o.maxBodyBytes };
  const handler = createMcpHandler(factory, {
    legacy: 'reject',
    ...limits,
    ...(o.onError ? { onerror: o.onError } : {}),
  });
  // 2025-era requests (isLegacyRequest decides, as the handler itself would): stateless, with a
  // JSON answer where nothing comes before the result (legacy-stateless.ts).
  const legacy = legacyStatelessServing(factory, o.onError, limits);
  app.addHook('onClose', async () => {
    await handler.close();
  });

  const serve = async (req: FastifyRequest, reply: FastifyReply) => {
    // The `mcp` door (route config below) authenticated the caller before this runs.
    const principal = req.principal;
    // A client that goes away ends its held wait (never the question).
    const aborter = new AbortController();
    reply.raw.on('close', () => aborter.abort());
    const request = webRequest(req, aborter.signal);
    const parsedBody = req.body;
    const authInfo: AuthInfo = {
      token: '',
      clientId: principal.id,
      scopes: [],
      extra: { [PRINCIPAL]: principal },
    };
    const res = (await isLegacyRequest(request, parsedBody, limits))
      ? await legacy(request, { parsedBody, authInfo })
      : await handler.fetch(request, { parsedBody, authInfo });
    return sendWeb(reply, res);
  };

  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: MCP_PATH,
    config: { door: 'mcp' },
    bodyLimit: o.maxBodyBytes,
    handler: serve,
  });
}
