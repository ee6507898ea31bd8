// Helmet's response headers, worked out once at start. @fastify/helmet runs two onRequest hooks
// and a chain of a dozen middleware functions on every request to set the same constant headers
// (about 4% of the callback door's CPU in a profile, bench/README.md); with the options below
// (no CSP: each door sets its own) nothing in them depends on the request. So helmet stays the
// source of the values: it answers one request of a throwaway instance, and every real response
// gets a copy of those headers from one synchronous hook.
//
// One of them depends on how the request came: Strict-Transport-Security is sent only over https
// (RFC 6797 §7.2: never over plain http, where a man in the middle could strip or forge it). The
// server itself listens on plain http, so in practice that is a request a trusted proxy says came
// over https (X-Forwarded-Proto, honoured only within INTERACTIONS_TRUST_PROXY_HOPS).
import helmet from '@fastify/helmet';
import Fastify, { type FastifyInstance } from 'fastify';

const HELMET_OPTIONS = { contentSecurityPolicy: false, crossOriginEmbedderPolicy: false } as const;

/** Headers of the probe's response that are the transport's, not helmet's. */
const NOT_HELMET = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);

const HSTS = 'strict-transport-security';

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

/** Helmet's headers split by when they apply: on every response, or only on one over https. */
export async function securityHeaders(): Promise<{
  always: Readonly<Record<string, string>>;
  overHttps: Readonly<Record<string, string>>;
}> {
  const { [HSTS]: hsts, ...always } = await helmetHeaders();
  const overHttps: Record<string, string> = hsts === undefined ? {} : { [HSTS]: hsts };
  return { always: Object.freeze(always), overHttps: Object.freeze(overHttps) };
}

/** Sets helmet's headers on every response of `app` (call on the root, before the routes). */
export async function useSecurityHeaders(app: FastifyInstance): Promise<void> {
  const { always, overHttps } = await securityHeaders();
  app.addHook('onRequest', (req, reply, done) => {
    reply.headers(always);
    if (req.protocol === 'https') reply.headers(overHttps);
    done();
  });
}
