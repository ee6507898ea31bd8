// Request bodies of the REST doors are read as text under the door's byte cap and parsed by
// the domain, so every malformed body is the same clear 400, whatever its Content-Type says.
import type { FastifyInstance } from 'fastify';

/** In this (encapsulated) scope every body is read as a string of at most `bodyLimit` bytes. */
export function useTextBodies(app: FastifyInstance, bodyLimit: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, (_req, body, done) => done(null, body));
}
