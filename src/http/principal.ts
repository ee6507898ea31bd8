// Who is calling a REST door, by the door policy: a principal, or a 401 already sent.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator } from '../auth/authenticate.ts';
import type { Door } from '../auth/door-policy.ts';
import type { Principal } from '../domain/principal.ts';
import { sendRestError } from './errors.ts';

export function principalOf(
  auth: Authenticator,
  door: Door,
  req: FastifyRequest,
  reply: FastifyReply,
): Principal | null {
  const r = auth.authenticate(door, req.headers);
  if (r.ok) return r.principal;
  sendRestError(reply, 'UNAUTHENTICATED', 'missing or unknown API key');
  return null;
}
