// Tokens of the graphql-sse single-connection mode (/graphql/stream). The library's default
// mints them with Math.random and accepts a token from anyone; here they come from the
// CSPRNG and are bound to the principal that reserved them, so another key holding the
// token finds no stream (the library's own 404).
import { randomUUID } from 'node:crypto';
import type { Response as SseResponse } from 'graphql-sse';
import type { Principal } from '../domain/principal.ts';

const TOKEN_HEADER = 'x-graphql-event-stream-token';
/** Reservations kept at once; the oldest is forgotten first (its stream then refuses it). */
const MAX_TOKENS = 10_000;

interface StreamRequest {
  raw: Request;
  url: string;
  headers: { get(name: string): string | null | undefined };
}

export function createStreamTokens(principalOf: (request: Request) => Principal) {
  const owners = new Map<string, string>();

  // graphql-sse's own response shape: [body, init].
  const notFound = (): SseResponse => ['Stream not found', { status: 404, statusText: 'Not Found' }];

  return {
    authenticate(req: StreamRequest): string | SseResponse {
      const principal = principalOf(req.raw);
      const given = req.headers.get(TOKEN_HEADER) ?? new URL(req.url, 'http://x/').searchParams.get('token');
      if (!given) {
        const token = randomUUID();
        owners.set(token, principal.id);
        if (owners.size > MAX_TOKENS) owners.delete(owners.keys().next().value!);
        return token;
      }
      return owners.get(given) === principal.id ? given : notFound();
    },
  };
}
