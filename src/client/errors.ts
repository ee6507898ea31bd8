// The SDK's errors: one class per API error code (API.md §3), plus the outcomes and failures
// that only a client meets (a question that timed out or was cancelled, a server it cannot
// reach, an answer its own schema refuses). All extend InteractionsError and carry `code` and
// `field`, so callers can branch on either `instanceof` or `err.code`.
//
// The code list and statuses are the server's own (src/domain/errors.ts, a pure module with no
// imports), so the two cannot drift.
import { ERROR_STATUS } from '../domain/errors.ts';
import type { QuestionFieldsFragment } from './generated/graphql.ts';

/** The API's error codes (API.md §3), with their HTTP statuses. */
export const API_ERROR_STATUS = ERROR_STATUS;

export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

/** Codes of the errors the SDK raises itself. */
export type ClientErrorCode =
  | 'TIMED_OUT'
  | 'CANCELLED'
  | 'NETWORK_ERROR'
  | 'INVALID_ANSWER'
  | 'ANSWER_UNAVAILABLE';

export type ErrorCode = ApiErrorCode | ClientErrorCode;

type Question = QuestionFieldsFragment;

export interface ErrorDetails {
  /** Where in the input the problem is, e.g. `input.media[2].url` or `answer.email`. */
  field?: string | undefined;
  /** The HTTP status of the response that carried the error, when there was one. */
  status?: number | undefined;
  cause?: unknown;
}

export class InteractionsError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly status: number | undefined;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.code = code;
    this.field = details.field;
    this.status = details.status;
  }
}

export class BadUserInputError extends InteractionsError {
  constructor(message: string, details?: ErrorDetails) {
    super('BAD_USER_INPUT', message, details);
  }
}
export class UnauthenticatedError extends InteractionsError {
  constructor(message: string, details?: ErrorDetails) {
    super('UNAUTHENTICATED', message, details);
  }
}
export class ForbiddenError extends InteractionsError {
  constructor(message: string, details?: ErrorDetails) {
    super('FORBIDDEN', message, details);
  }
}
export class NotFoundError extends InteractionsError {
  constructor(message: string, details?: ErrorDetails) {
    super('NOT_FOUND', message, details);
  }
}
export class AlreadyAnsweredError extends InteractionsError {
  constructor(message: string, details?: ErrorDetails) {
    super('ALREADY_ANSWERED', message, details);
  }
}
export class QuestionClosedError extends InteractionsError {
  constructor(message: string, details?: ErrorDetails) {
    super('QUESTION_CLOSED', message, details);
  }
}
export class WrongDoorError extends InteractionsError {
  constructor(message: string, details?: ErrorDetails) {
    super('WRONG_DOOR', message, details);
  }
}
export class PayloadTooLargeError extends InteractionsError {
  constructor(message: string, details?: ErrorDetails) {
    super('PAYLOAD_TOO_LARGE', message, details);
  }
}
export class LimitExceededError extends InteractionsError {
  constructor(message: string, details?: ErrorDetails) {
    super('LIMIT_EXCEEDED', message, details);
  }
}
export class RateLimitedError extends InteractionsError {
  constructor(message: string, details?: ErrorDetails) {
    super('RATE_LIMITED', message, details);
  }
}
export class NotConfiguredError extends InteractionsError {
  constructor(message: string, details?: ErrorDetails) {
    super('NOT_CONFIGURED', message, details);
  }
}
export class ChannelDeliveryFailedError extends InteractionsError {
  constructor(message: string, details?: ErrorDetails) {
    super('CHANNEL_DELIVERY_FAILED', message, details);
  }
}
/** The server's store did not respond: the request may or may not have taken effect; retrying is safe. */
export class UnavailableError extends InteractionsError {
  constructor(message: string, details?: ErrorDetails) {
    super('UNAVAILABLE', message, details);
  }
}
export class InternalError extends InteractionsError {
  constructor(message: string, details?: ErrorDetails) {
    super('INTERNAL', message, details);
  }
}

/** The question timed out before anyone answered it. */
export class TimedOutError extends InteractionsError {
  readonly question: Question;
  constructor(question: Question) {
    super('TIMED_OUT', `question ${question.id} timed out without an answer`);
    this.question = question;
  }
}

/** The question was cancelled (by its asker or an operator). */
export class CancelledError extends InteractionsError {
  readonly question: Question;
  /** The reason given with the cancellation, if any. */
  readonly reason: string | null;
  constructor(question: Question) {
    const why = question.cancelReason ? `: ${question.cancelReason}` : '';
    super('CANCELLED', `question ${question.id} was cancelled${why}`);
    this.question = question;
    this.reason = question.cancelReason;
  }
}

/** The server could not be reached, or answered with something that is not the API (a proxy's 502, say). */
export class NetworkError extends InteractionsError {
  constructor(message: string, details?: ErrorDetails) {
    super('NETWORK_ERROR', message, details);
  }
}

/** The recorded answer does not satisfy the caller's own (zod) schema, e.g. a refinement JSON Schema cannot express. */
export class InvalidAnswerError extends InteractionsError {
  readonly question: Question;
  readonly answer: unknown;
  constructor(question: Question, answer: unknown, message: string, details?: ErrorDetails) {
    super('INVALID_ANSWER', message, details);
    this.question = question;
    this.answer = answer;
  }
}

/** A sensitive answer was delivered once already (its response was lost in transit): it cannot be read again. */
export class AnswerUnavailableError extends InteractionsError {
  readonly question: Question;
  constructor(question: Question) {
    super('ANSWER_UNAVAILABLE', `the sensitive answer to question ${question.id} was already delivered once`);
    this.question = question;
  }
}

type ApiErrorClass = new (message: string, details?: ErrorDetails) => InteractionsError;

/** The class raised for each API code. */
export const API_ERROR_CLASSES: Readonly<Record<ApiErrorCode, ApiErrorClass>> = {
  BAD_USER_INPUT: BadUserInputError,
  UNAUTHENTICATED: UnauthenticatedError,
  FORBIDDEN: ForbiddenError,
  NOT_FOUND: NotFoundError,
  ALREADY_ANSWERED: AlreadyAnsweredError,
  QUESTION_CLOSED: QuestionClosedError,
  WRONG_DOOR: WrongDoorError,
  PAYLOAD_TOO_LARGE: PayloadTooLargeError,
  LIMIT_EXCEEDED: LimitExceededError,
  RATE_LIMITED: RateLimitedError,
  NOT_CONFIGURED: NotConfiguredError,
  CHANNEL_DELIVERY_FAILED: ChannelDeliveryFailedError,
  UNAVAILABLE: UnavailableError,
  INTERNAL: InternalError,
};

export function isApiErrorCode(code: unknown): code is ApiErrorCode {
  return typeof code === 'string' && Object.hasOwn(API_ERROR_STATUS, code);
}

/**
 * The error for a code the server sent. An unknown code (a newer server) becomes an
 * InteractionsError that still carries it, typed as INTERNAL for exhaustive switches.
 */
export function errorFromCode(code: unknown, message: string, details: ErrorDetails = {}): InteractionsError {
  if (isApiErrorCode(code)) return new API_ERROR_CLASSES[code](message, details);
  return new InternalError(message, details);
}
