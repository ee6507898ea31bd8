// One place that turns errors into REST responses (API.md §3): {"error", "code", "field"?}.
// Anything that is not a domain error is a bug or a store failure: a generic 500 with an
// error id, and the detail only in the log.
import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyReply } from 'fastify';
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

export function handleError(err: unknown, reply: FastifyReply, logger: Logger): FastifyReply {
  const known = err instanceof DomainError ? err : fromFastify(err as FastifyError);
  if (known) return sendRestError(reply, known.code, known.message, known.field);
  const errorId = randomUUID();
  logger.error({ err, errorId }, 'request failed');
  return sendRestError(reply, 'INTERNAL', `internal error (id ${errorId})`);
}
