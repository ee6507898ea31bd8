// POST/GET/DELETE /mcp: the MCP tools over Streamable HTTP, as a self-contained Fastify plugin.
// 2026-07-28 requests are served per request by the SDK's createMcpHandler. 2025-era requests
// (the SDK's isLegacyRequest decides, as the handler itself would) are served statelessly
// (legacy-stateless.ts: the SDK's fallback, with JSON answers where nothing comes before the
// result), as any instance can, except for clients that declare form elicitation: those
// get a session on this instance (legacy-sessions.ts) so that `answer_here` can send them an
// `elicitation/create` request (API.md §13.1).
import { Readable } from 'node:stream';
import {
  type AuthInfo,
  createMcpHandler,
  isJsonContentType,
  isLegacyRequest,
  type McpRequestContext,
} from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../domain/principal.ts';
import type { Interactions } from '../engine/types.ts';
import { restError } from '../http/errors.ts';
import { createEnginePort } from './engine-port.ts';
import {
  createLegacySessions,
  isElicitingInitialize,
  type Served,
  type SessionLimits,
  sessionNotFound,
} from './legacy-sessions.ts';
import { legacyStatelessServing } from './legacy-stateless.ts';
import { createMcpTools, type McpToolsOptions } from './tools.ts';

export interface McpPluginOptions extends McpToolsOptions {
  engine: Interactions;
  /** Cap on a request body (an ask carries media and schemas). */
  maxBodyBytes: number;
  onError?: (err: Error) => void;
  /** Caps and idle time of the 2025 sessions (default SESSION_LIMITS; tests lower them). */
  sessionLimits?: SessionLimits;
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

const SESSION_HEADER = 'mcp-session-id';

/** What a POST whose body is not JSON is told (the same words as /graphql's 415). */
export const NOT_JSON_MESSAGE = 'the request body must be sent as Content-Type: application/json';

export async function mcpRoutes(app: FastifyInstance, o: McpPluginOptions): Promise<void> {
  // Elicitation states are bound to the principal they were minted for (elicitation.ts).
  const toolsFor = (principal: Principal) =>
    createMcpTools(createEnginePort(o.engine, principal), { ...o, caller: principal.id });
  const factory = (ctx: McpRequestContext) => {
    const principal = ctx.authInfo?.extra?.[PRINCIPAL] as Principal | undefined;
    // Every request passes the authentication below first; a missing principal is a bug.
    if (!principal) throw new Error('MCP request without a principal');
    return toolsFor(principal);
  };
  const limits = { maxRequestBodySize: o.maxBodyBytes };
  const onerror = o.onError ? { onerror: o.onError } : {};
  const modern = createMcpHandler(factory, { legacy: 'reject', ...limits, ...onerror });
  // Stateless 2025-era serving: the SDK's fallback, with a JSON answer where nothing comes before
  // the result (legacy-stateless.ts).
  const stateless = legacyStatelessServing(factory, o.onError, limits);
  const sessions = createLegacySessions<Principal>({
    serverFor: toolsFor,
    maxBodyBytes: o.maxBodyBytes,
    ...(o.sessionLimits ? { limits: o.sessionLimits } : {}),
    ...onerror,
  });
  // Before the listener waits for its connections: a session's open streams end here.
  app.addHook('preClose', async () => {
    await sessions.close();
  });
  app.addHook('onClose', async () => {
    await modern.close();
  });

  const noop = () => {};
  /** A 2025-era request: its session's, a new session's, or stateless as before. */
  const legacy = async (request: Request, principal: Principal, parsedBody: unknown, authInfo: AuthInfo) => {
    const id = request.headers.get(SESSION_HEADER);
    if (id !== null) {
      const s = sessions.find(id, principal.id);
      return s
        ? sessions.serve(s, request, parsedBody, authInfo)
        : { response: sessionNotFound(), done: noop };
    }
    if (request.method === 'POST' && isElicitingInitialize(parsedBody)) {
      const opened = await sessions.open(principal, request, parsedBody, authInfo);
      if (opened) return opened;
    }
    return { response: await stateless(request, { parsedBody, authInfo }), done: noop };
  };

  const serve = async (req: FastifyRequest, reply: FastifyReply) => {
    // The `mcp` door (route config below) authenticated the caller before this runs, and the
    // route's body limit refused an oversized body before anything was parsed.
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
    const served: Served = (await isLegacyRequest(request, parsedBody, limits))
      ? await legacy(request, principal, parsedBody, authInfo)
      : { response: await modern.fetch(request, { parsedBody, authInfo }), done: noop };
    // The exchange is over when the connection closes (a client that left during the await above
    // has closed it already).
    if (aborter.signal.aborted) served.done();
    else aborter.signal.addEventListener('abort', served.done, { once: true });
    return sendWeb(reply, served.response);
  };

  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: MCP_PATH,
    config: { door: 'mcp' },
    bodyLimit: o.maxBodyBytes,
    // A body that is not JSON never was JSON-RPC: before it is read, it gets the REST error of
    // every door (API.md §3) with the status the SDK would give it (not the SDK's JSON-RPC error
    // with a null id, nor the body parser's 400 for a body without a type).
    onRequest: async (req, reply) => {
      if (req.method === 'POST' && !isJsonContentType(req.headers['content-type']))
        return reply.status(415).type('application/json').send(restError('BAD_USER_INPUT', NOT_JSON_MESSAGE));
    },
    handler: serve,
  });
}
