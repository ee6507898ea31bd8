// Sessions for 2025-era MCP clients that can answer forms (API.md §13.1): the 2025 protocol puts
// an elicitation to the client as an `elicitation/create` request on the session's stream, so a
// client that declares form elicitation at `initialize` gets a sessionful Streamable HTTP
// transport (the SDK's WebStandardStreamableHTTPServerTransport) kept in this instance's memory.
// Every other 2025 client stays stateless. A session belongs to the principal that opened it: a
// request for it with another key is answered like an unknown session (404), never served.
// Sessions are capped in count (per instance and per principal) and closed after an idle time.
import { randomUUID } from 'node:crypto';
import {
  type AuthInfo,
  type McpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { declaresFormElicitation } from './elicitation.ts';

export interface SessionLimits {
  /** Sessions one instance keeps at once. */
  max: number;
  /** Sessions one principal keeps at once on one instance. */
  perPrincipal: number;
  /** A session with no request in flight and none for this long is closed. */
  idleMs: number;
}

/**
 * A session costs a server object and a little state; clients rarely send DELETE, so the idle
 * time reclaims the rest. A client over a cap is served statelessly, as before (no elicitation).
 */
export const SESSION_LIMITS: SessionLimits = { max: 1_000, perPrincipal: 20, idleMs: 30 * 60_000 };

/** How often idle sessions are looked for (sooner with a shorter idle time, never below 1 s). */
const SWEEP_EVERY_MS = 60_000;

/** One legacy request's response, and what to call once it was sent in full (or the client left). */
export interface Served {
  response: Response;
  done: () => void;
}

interface Session {
  principalId: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  inFlight: number;
  lastSeen: number;
}

/** The spec's answer to an unknown (or expired, or foreign) session id: 404, re-initialize. */
export function sessionNotFound(): Response {
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null },
    { status: 404 },
  );
}

/** A 2025 `initialize` whose client declares form elicitation: only these open a session. */
export function isElicitingInitialize(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const message = body as { method?: unknown; params?: { capabilities?: { elicitation?: unknown } } };
  return (
    message.method === 'initialize' && declaresFormElicitation(message.params?.capabilities?.elicitation)
  );
}

export interface LegacySessionsOptions<P extends { id: string }> {
  /** A fresh tool server acting as `principal` (the same factory as every other request's). */
  serverFor: (principal: P) => McpServer;
  limits?: SessionLimits;
  maxBodyBytes: number;
  onError?: (err: Error) => void;
  now?: () => number;
}

export function createLegacySessions<P extends { id: string }>(o: LegacySessionsOptions<P>) {
  const limits = o.limits ?? SESSION_LIMITS;
  const now = o.now ?? Date.now;
  const sessions = new Map<string, Session>();

  const end = (id: string): Promise<void> => {
    const s = sessions.get(id);
    sessions.delete(id);
    // Closing the server closes its transport, which ends the session's open streams.
    return s ? s.server.close().catch((err: Error) => o.onError?.(err)) : Promise.resolve();
  };

  const sweep = (): void => {
    const cutoff = now() - limits.idleMs;
    for (const [id, s] of sessions) if (s.inFlight === 0 && s.lastSeen <= cutoff) void end(id);
  };
  const timer = setInterval(sweep, Math.min(SWEEP_EVERY_MS, Math.max(limits.idleMs, 1_000)));
  timer.unref();

  const hasRoom = (principalId: string): boolean => {
    if (sessions.size >= limits.max) return false;
    let own = 0;
    for (const s of sessions.values()) if (s.principalId === principalId) own += 1;
    return own < limits.perPrincipal;
  };

  async function serve(
    s: Session,
    request: Request,
    parsedBody: unknown,
    authInfo: AuthInfo,
  ): Promise<Served> {
    s.inFlight += 1;
    s.lastSeen = now();
    let released = false;
    const done = () => {
      if (released) return;
      released = true;
      s.inFlight -= 1;
      s.lastSeen = now();
    };
    try {
      return { response: await s.transport.handleRequest(request, { parsedBody, authInfo }), done };
    } catch (err) {
      done();
      throw err;
    }
  }

  return {
    /** The session `id` if it exists and belongs to `principalId`; anything else is not found. */
    find(id: string, principalId: string): Session | undefined {
      const s = sessions.get(id);
      return s?.principalId === principalId ? s : undefined;
    },

    serve,

    /** Opens a session with this `initialize`; null when a cap is reached (serve it statelessly). */
    async open(
      principal: P,
      request: Request,
      parsedBody: unknown,
      authInfo: AuthInfo,
    ): Promise<Served | null> {
      if (!hasRoom(principal.id)) {
        sweep();
        if (!hasRoom(principal.id)) return null;
      }
      // Unguessable, and known before the request runs, so the session counts against the caps
      // at once (parallel initializes cannot overshoot them).
      const id = randomUUID();
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => id,
        // DELETE: the client ends its session.
        onsessionclosed: (closed) => {
          sessions.delete(closed);
        },
        maxRequestBodySize: o.maxBodyBytes,
      });
      const server = o.serverFor(principal);
      const s: Session = { principalId: principal.id, transport, server, inFlight: 0, lastSeen: now() };
      sessions.set(id, s);
      try {
        await server.connect(transport);
        const served = await serve(s, request, parsedBody, authInfo);
        // Refused before it initialized (a wrong Accept header, say): no session was made.
        if (transport.sessionId !== id) {
          served.done();
          await end(id);
        }
        return served;
      } catch (err) {
        await end(id);
        throw err;
      }
    },

    /** Ends every session (the server is closing). */
    async close(): Promise<void> {
      clearInterval(timer);
      await Promise.all([...sessions.keys()].map(end));
    },
  };
}

export type LegacySessions = ReturnType<typeof createLegacySessions>;
