// Helmet's response headers, worked out once at start. @fastify/helmet runs two onRequest hooks
// and a chain of a dozen middleware functions on every request to set the same constant headers
// (about 4% of the callback door's CPU in a profile, bench/README.md); with the options below
// (no CSP: each door sets its own) nothing in them depends on the request. So helmet stays the
// source of the values: it answers one request of a throwaway instance, and every real response
// gets a copy of those headers from one synchronous hook.
import helmet from '@fastify/helmet';
import Fastify, { type FastifyInstance } from 'fastify';

const HELMET_OPTIONS = { contentSecurityPolicy: false, crossOriginEmbedderPolicy: false } as const;

/** Headers of the probe's response that are the transport's, not helmet's. */
const NOT_HELMET = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);

export async function helmetHeaders(): Promise<Readonly<Record<string, string>>> {
  const probe = Fastify({ logger: false });
  try {
    await probe.register(helmet, HELMET_OPTIONS);
    probe.get('/', async () => '');
    const r = await probe.inject({ method: 'GET', url: '/' });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(r.headers)) {
      if (!NOT_HELMET.has(name) && value !== undefined) headers[name] = String(value);
    }
    return Object.freeze(headers);
  } finally {
    await probe.close();
  }
}

/** Sets helmet's headers on every response of `app` (call on the root, before the routes). */
export async function useSecurityHeaders(app: FastifyInstance): Promise<void> {
  const headers = await helmetHeaders();
  app.addHook('onRequest', (_req, reply, done) => {
    reply.headers(headers);
    done();
  });
}
