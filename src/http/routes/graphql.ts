// /graphql and /graphql/stream are served by Yoga; Fastify only hands requests over. Bodies
// are read as text under the GraphQL cap (media and schemas make asks large), so Yoga
// parses them exactly as it would standing alone. A held askUser/awaitAnswer on /graphql
// waits between two executions of its request (see graphql/held-calls.ts), holding only
// the connection and one small object meanwhile.
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Interactions } from '../../engine/types.ts';
import { HeldCall } from '../../graphql/held-calls.ts';
import { nodeBodyOf } from '../../graphql/shared-results.ts';
import { type Admitted, createAdmission, type Place } from '../admission.ts';
import { YOGA_DOOR } from '../door-auth.ts';
import { restError } from '../errors.ts';
import { useTextBodies } from '../json-body.ts';
import { GRAPHIQL_PAGE_HEADERS } from './graphiql.ts';

/** Content types of a response that carries one whole result (JSON, GraphiQL's page). */
const SINGLE_RESULT = /^(application\/(graphql-response\+)?json|text\/html)\b/i;

export interface GraphQLHandler {
  handleNodeRequestAndResponse(
    req: FastifyRequest,
    reply: FastifyReply,
    ctx: { req: FastifyRequest; reply: FastifyReply; heldCall?: HeldCall },
  ): Response | Promise<Response>;
}

export interface GraphQLRouteOptions {
  yoga: GraphQLHandler;
  engine: Interactions;
  maxBodyBytes: number;
  /** How many executions run at once, and how long one keeps its place (admission.ts). */
  executions?: { limit: number; budgetMs: number };
}

/**
 * Enough to keep two cores and the store's round trips busy; few enough that a burst's
 * executions do not all live at once (admission.ts).
 */
export const EXECUTIONS_AT_ONCE = 16;
/** Longer than a first pass takes even on a loaded machine; a longer execution gives way. */
export const EXECUTION_BUDGET_MS = 20;

const RESPONSE_EVENTS = ['close', 'error', 'finish'] as const;

const UNSUPPORTED_TYPE = JSON.stringify({
  errors: [
    {
      message: 'the request body must be sent as Content-Type: application/json',
      extensions: { code: 'BAD_USER_INPUT' },
    },
  ],
});

/**
 * graphql-sse's 406 (an Accept it does not answer; it compares the header as a whole) comes
 * without a body: it gets the REST error shape (API.md §3) saying what to send instead.
 */
function notAcceptable(method: string): string {
  return JSON.stringify(
    restError(
      'BAD_USER_INPUT',
      method === 'PUT'
        ? 'a stream reservation is answered as text/plain: send Accept: text/plain'
        : 'send Accept: application/json for an operation, or text/event-stream for the stream',
    ),
  );
}

/**
 * An empty body in the form Yoga's request adapter (@whatwg-node/server) takes as already read.
 * It uses a parsed body only when the value has own keys; an empty string has none, so it
 * read the request stream instead, which Fastify had already drained: the read never ended
 * and a POST with a Content-Type and no body hung for good. This async iterable has one own
 * key and yields nothing, so the request reads as empty and Yoga answers its 400 at once.
 */
function emptyBody(): AsyncIterable<Uint8Array> & { empty: true } {
  return { empty: true, async *[Symbol.asyncIterator]() {} };
}

/** Hands Yoga a request whose body it can read, whatever Fastify parsed. */
function readable(req: FastifyRequest): FastifyRequest {
  if (req.body === '') req.body = emptyBody();
  return req;
}

/**
 * Runs one execution and then removes the listeners it left on the response: they keep its
 * fetch Request and abort signal alive until the response ends, which for a held call is
 * after the hold.
 */
async function execute(
  o: GraphQLRouteOptions,
  req: FastifyRequest,
  reply: FastifyReply,
  heldCall: HeldCall,
): Promise<Response> {
  const res = reply.raw;
  const before = RESPONSE_EVENTS.map((e) => new Set(res.listeners(e)));
  const response = await o.yoga.handleNodeRequestAndResponse(req, reply, { req, reply, heldCall });
  if (heldCall.deferred) dropListenersSince(res, before);
  return response;
}

function dropListenersSince(res: ServerResponse, before: Set<unknown>[]): void {
  RESPONSE_EVENTS.forEach((e, i) => {
    for (const l of res.listeners(e)) {
      if (!before[i]!.has(l)) res.removeListener(e, l as (...args: unknown[]) => void);
    }
  });
}

/**
 * The headers a resumed reply is sent with (its length is the body's). Its status is 200, as
 * Yoga gives any result without errors; a result with errors goes through Yoga.
 */
interface ReplyHead {
  headers: [string, string][];
}

/** Few distinct heads exist (content type by Accept, CORS by origin): each is kept once. */
const heads = new Map<string, ReplyHead>();
const MAX_HEADS = 64;

function headOf(response: Response): ReplyHead {
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') headers.push([name, value]);
  });
  const key = headers.join('\n');
  const known = heads.get(key);
  if (known) return known;
  const head = { headers };
  if (heads.size < MAX_HEADS) heads.set(key, head);
  return head;
}

/** What the route does with a call (one per route, shared by every call). */
interface Route {
  /** The call has its place: its first pass runs. */
  run(call: HeldReply, place: Place): void;
  /** Its wait is over: its reply is sent. */
  resume(call: HeldReply): void;
}

/**
 * A /graphql request as the route keeps it, before and during a hold: its own entry in the
 * admission queue, the engine's sink (HeldCall), the request and reply to resume, and the head
 * of the first pass's reply. Nothing else is kept: no async frame waits for its place or for
 * its hold, and the client's going away is heard by one listener shared by every held call
 * (see graphqlRoutes).
 */
class HeldReply extends HeldCall implements Admitted {
  head: ReplyHead | null = null;
  constructor(
    readonly req: FastifyRequest,
    readonly reply: FastifyReply,
    private readonly route: Route,
  ) {
    super();
  }
  admitted(place: Place): void {
    this.route.run(this, place);
  }
  protected override resumed(): void {
    this.route.resume(this);
  }
}

/** Gone already: its 'close' was emitted before any listener could hear it. */
function gone(res: ServerResponse): boolean {
  return res.destroyed || res.socket === null || res.socket.destroyed;
}

/** As Fastify answers an async handler that throws. */
function failed(reply: FastifyReply, err: unknown): void {
  if (reply.sent) {
    reply.log.error({ err }, 'the /graphql handler failed after its reply was sent');
    return;
  }
  reply.send(err instanceof Error ? err : new Error(String(err)));
}

export async function graphqlRoutes(app: FastifyInstance, o: GraphQLRouteOptions): Promise<void> {
  useTextBodies(app, o.maxBodyBytes);
  const admission = createAdmission(
    o.executions?.limit ?? EXECUTIONS_AT_ONCE,
    o.executions?.budgetMs ?? EXECUTION_BUDGET_MS,
  );
  const send = async (reply: FastifyReply, response: Response): Promise<FastifyReply> => {
    response.headers.forEach((value, key) => {
      reply.header(key, value);
    });
    // The one HTML page Yoga answers with is GraphiQL's: it gets its own CSP (graphiql.ts).
    if (/^text\/html\b/i.test(response.headers.get('content-type') ?? ''))
      reply.headers(GRAPHIQL_PAGE_HEADERS);
    reply.status(response.status);
    // Yoga's 415 for a content type it does not read and graphql-sse's 406 come without a body:
    // each gets one that says what to send. Any other empty body stays empty (Fastify would
    // write `null`).
    if (response.body === null) {
      if (response.status === 415)
        return reply.type('application/json; charset=utf-8').send(UNSUPPORTED_TYPE);
      if (response.status === 406)
        return reply.type('application/json; charset=utf-8').send(notAcceptable(reply.request.method));
      return reply.send();
    }
    // A shared subscription's event stream is a Node stream already: Fastify pipes it after its
    // hooks, and its frames go to the response with res.write (sse-body.ts). A single
    // result is one string: Fastify writes it at once, where a web stream would be pumped chunk
    // by chunk over several ticks. Other event streams and multipart stay web streams.
    const node = nodeBodyOf(response);
    if (node) return reply.send(node);
    const single = SINGLE_RESULT.test(response.headers.get('content-type') ?? '');
    return reply.send(single ? await response.text() : response.body);
  };
  /** Held calls by their response, for the one 'close' listener they all share. */
  const holding = new Map<ServerResponse, HeldReply>();
  /** The client went away (or the reply ended): `this` is the response. */
  function onClose(this: ServerResponse): void {
    holding.get(this)?.cancel();
  }
  const resume = async (call: HeldReply): Promise<void> => {
    const { req, reply } = call;
    const body = await call.replay(o.engine);
    if (body === null) {
      await send(
        reply,
        await o.yoga.handleNodeRequestAndResponse(req, reply, { req, reply, heldCall: call }),
      );
      return;
    }
    for (const [name, value] of call.head!.headers) reply.header(name, value);
    reply.status(200).send(body);
  };
  /**
   * The first pass, once admitted: its reply is sent unless it deferred a hold; then it is
   * dropped unread, its headers are what the resumed reply is sent with, and the hold starts.
   * Nothing of this frame stays for the hold: it ends once the wait has started.
   */
  const firstPass = async (call: HeldReply, place: Place): Promise<void> => {
    const { req, reply } = call;
    let response: Response;
    try {
      response = await execute(o, req, reply, call);
    } finally {
      admission.leave(place);
    }
    if (!call.deferred) {
      await send(reply, response);
      return;
    }
    await response.body?.cancel();
    call.head = headOf(response);
    const res = reply.raw;
    holding.set(res, call);
    res.on('close', onClose);
    call.wait(o.engine);
    if (gone(res)) call.cancel();
  };
  const route: Route = {
    run(call, place) {
      firstPass(call, place).catch((err: unknown) => failed(call.reply, err));
    },
    resume(call) {
      holding.delete(call.reply.raw);
      resume(call).catch((err: unknown) => failed(call.reply, err));
    },
  };
  /**
   * Not async: Fastify would send an empty reply as soon as the returned promise resolved, and
   * a promise kept pending for the hold would keep a frame with it. The reply is sent by the
   * first pass, or by `resume` after the hold.
   */
  const graphql = (request: FastifyRequest, reply: FastifyReply): void => {
    admission.enter(new HeldReply(readable(request), reply, route));
  };
  const stream = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const req = readable(request);
    return send(reply, await o.yoga.handleNodeRequestAndResponse(req, reply, { req, reply }));
  };
  const methods = ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'] as const;
  // Yoga's plugin resolves the caller (past the GraphiQL page), by the rule every door uses.
  const config = { door: YOGA_DOOR } as const;
  app.route({ url: '/graphql', method: [...methods], config, handler: graphql });
  app.route({ url: '/graphql/stream', method: [...methods], config, handler: stream });
}
