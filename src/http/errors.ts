// One place that turns errors into REST responses (API.md §3): {"error", "code", "field"?}.
// Anything that is not a domain error is a bug or a store failure: a generic 500 with an
// error id, and the detail only in the log.
import { randomUUID } from 'node:crypto';
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
): FastifyReply {
  const known = err instanceof DomainError ? err : fromFastify(err as FastifyError);
  if (known?.code === 'PAYLOAD_TOO_LARGE') closeAfterUnreadBody(req, reply);
  if (known) return sendRestError(reply, known.code, known.message, known.field);
  const errorId = randomUUID();
  logger.error({ err, errorId }, 'request failed');
  return sendRestError(reply, 'INTERNAL', `internal error (id ${errorId})`);
}

/** How much of a refused body is still read (and dropped) so its sender can read the 413. */
export const DRAIN_LIMIT_BYTES = 1024 * 1024;
const DRAIN_LIMIT_MS = 5_000;

/**
 * A body refused while its client is still sending it: answer, then keep reading (and
 * dropping) what is in flight for a bounded while and close only after that, so the client
 * reads the 413 instead of a reset (EPIPE) from a socket that stopped listening. A sender that
 * goes on past the bound is cut off.
 */
function closeAfterUnreadBody(req: FastifyRequest, reply: FastifyReply): void {
  const raw = req.raw;
  if (raw.complete) return;
  reply.header('connection', 'close');
  let drained = 0;
  const cut = (): void => {
    raw.socket?.destroy();
  };
  const timer = setTimeout(cut, DRAIN_LIMIT_MS);
  timer.unref();
  raw.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_LIMIT_BYTES) cut();
  });
  raw.on('end', () => clearTimeout(timer));
  raw.on('close', () => clearTimeout(timer));
  raw.resume();
}
