// One place that turns errors into REST responses (API.md §3): {"error", "code", "field"?}.
// Anything that is not a domain error is a bug or a store failure: a generic 500 with an
// error id, and the detail only in the log.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from '../domain/errors.ts';
import { DomainError, ERROR_STATUS } from '../domain/errors.ts';
import type { Logger } from '../engine/logger.ts';

export interface RestError {
  error: string;
  code: ErrorCode;
  field?: string;
}

export function restError(code: ErrorCode, message: string, field?: string): RestError {
  return field === undefined ? { error: message, code } : { error: message, code, field };
}

export function sendRestError(
  reply: FastifyReply,
  code: ErrorCode,
  message: string,
  field?: string,
): FastifyReply {
  return reply
    .status(ERROR_STATUS[code])
    .type('application/json')
    .send(restError(code, message, field));
}

/** Fastify's own errors (body parsing, limits) by status; everything else is INTERNAL. */
function fromFastify(err: FastifyError): DomainError | null {
  if (err.statusCode === 413) return new DomainError('PAYLOAD_TOO_LARGE', 'request body is too large');
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
    return new DomainError('BAD_USER_INPUT', 'request body is not valid');
  }
  return null;
}

export function handleError(
  err: unknown,
  req: FastifyRequest,
  reply: FastifyReply,
  logger: Logger,
): FastifyReply | Promise<FastifyReply> {
  const known = err instanceof DomainError ? err : fromFastify(err as FastifyError);
  if (known?.code === 'PAYLOAD_TOO_LARGE' && !req.raw.complete) {
    return dropRestOfBody(req.raw).then(() => sendRestError(reply, known.code, known.message));
  }
  if (known?.more) {
    return reply
      .status(ERROR_STATUS[known.code])
      .type('application/json')
      .send({ ...known.more, ...restError(known.code, known.message, known.field) });
  }
  if (known) return sendRestError(reply, known.code, known.message, known.field);
  const errorId = randomUUID();
  logger.error({ err, errorId }, 'request failed');
  return sendRestError(reply, 'INTERNAL', `internal error (id ${errorId})`);
}

/**
 * How long, and how much of, a refused body is still read (and dropped) before its 413 is
 * sent: Node closes a connection whose request is unfinished as soon as the answer is
 * written, and a fetch client still uploading then reports a failed upload (EPIPE) instead
 * of the answer. Bounded like a web server's lingering close; past a bound the 413 goes out
 * at once and the connection closes with it.
 */
export const DRAIN_LIMITS = { bytes: 64 * 1024 * 1024, ms: 10_000 } as const;

/**
 * Reads the rest of a refused body into nothing, until it ends (the connection then stays
 * usable), the client goes away, or a bound is reached. Nothing read is kept.
 */
function dropRestOfBody(raw: IncomingMessage): Promise<void> {
  return new Promise<void>((resolve) => {
    let drained = 0;
    const done = (): void => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', done);
      raw.off('close', done);
      resolve();
    };
    const onData = (chunk: Buffer): void => {
      drained += chunk.length;
      if (drained > DRAIN_LIMITS.bytes) done();
    };
    const timer = setTimeout(done, DRAIN_LIMITS.ms);
    raw.on('data', onData);
    raw.once('end', done);
    raw.once('close', done);
    raw.resume();
  });
}
