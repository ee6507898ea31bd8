// GET /.well-known/jwks.json: the public keys that verify decision receipts (API.md §16).
// Public like /health (a verifier must reach it without a key), cacheable and readable from any
// origin (no credentials, so `*` grants nothing more); it serves only the keys' public parts,
// the signing key first.
import type { FastifyInstance } from 'fastify';

export const JWKS_PATH = '/.well-known/jwks.json';

export interface JwksRouteOptions {
  jwks: () => { keys: readonly object[] };
}

export async function jwksRoutes(app: FastifyInstance, o: JwksRouteOptions): Promise<void> {
  // The keys are fixed for the life of the process: the body is written once.
  const body = JSON.stringify(o.jwks());
  app.get(JWKS_PATH, { config: { door: 'health' } }, async (_req, reply) =>
    reply
      .header('content-type', 'application/jwk-set+json')
      // Short enough that a rotation is seen within minutes, long enough to spare the server.
      .header('cache-control', 'public, max-age=300')
      // A public key set is meant to be read from anywhere, a verifier in a browser on another
      // origin included: these two override the same-origin defaults of every other route.
      .header('access-control-allow-origin', '*')
      .header('cross-origin-resource-policy', 'cross-origin')
      .send(body),
  );
}
