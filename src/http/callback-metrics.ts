// Counts the POSTs of the doors that answer outsiders (the callback door and the channel
// inbound doors) by what they came to. An HTTP hook rather than an engine one: the size cap
// and the rate limit refuse requests before the engine sees them, and those are what an
// operator alerts on (a provider sending oversized or badly signed payloads, a flood).
import type { FastifyInstance } from 'fastify';
import type { CallbackResult, Metrics } from '../metrics/metrics.ts';

const COUNTED_DOORS: ReadonlySet<string> = new Set(['callback', 'channels']);

const RESULT_OF_STATUS: Readonly<Record<number, CallbackResult>> = {
  400: 'invalid',
  401: 'unauthenticated',
  404: 'not_found',
  409: 'closed',
  413: 'too_large',
  429: 'rate_limited',
};

export function resultOfStatus(status: number): CallbackResult {
  if (status < 300) return 'ok';
  return RESULT_OF_STATUS[status] ?? 'error';
}

/** Installs the counting hook (call on the root instance, before registering routes). */
export function countCallbackRequests(app: FastifyInstance, metrics: Metrics): void {
  // A callback-style hook: an async one costs a promise per response of every door.
  app.addHook('onResponse', (req, reply, done) => {
    const door: string | undefined = req.routeOptions.config.door;
    if (req.method === 'POST' && door !== undefined && COUNTED_DOORS.has(door)) {
      metrics.callbackRequest(door, resultOfStatus(reply.statusCode));
    }
    done();
  });
}
