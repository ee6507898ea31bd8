// The one closed set of error codes (API.md §3). Every surface maps these in one place.

export const ERROR_STATUS = {
  BAD_USER_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  ALREADY_ANSWERED: 409,
  QUESTION_CLOSED: 409,
  WRONG_DOOR: 400,
  PAYLOAD_TOO_LARGE: 413,
  LIMIT_EXCEEDED: 429,
  RATE_LIMITED: 429,
  NOT_CONFIGURED: 501,
  CHANNEL_DELIVERY_FAILED: 502,
  UNAVAILABLE: 503,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class DomainError extends Error {
  readonly code: ErrorCode;
  /** Where in the input the problem is, e.g. `input.media[2].url` or `answer.email`. */
  readonly field: string | undefined;
  /** More facts a surface passes on (GraphQL `extensions`, REST body): e.g. `reason`, `url`. */
  readonly more: Readonly<Record<string, string>> | undefined;

  constructor(code: ErrorCode, message: string, field?: string, more?: Readonly<Record<string, string>>) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.field = field;
    this.more = more;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export function badInput(message: string, field?: string): DomainError {
  return new DomainError('BAD_USER_INPUT', message, field);
}

export function notFound(): DomainError {
  return new DomainError('NOT_FOUND', 'question not found');
}

/**
 * The store did not answer in time (a stalled or unreachable Redis): whether the change asked
 * of it was made is unknown, since a command may still be applied when the store resumes.
 */
export function storeUnavailable(
  message = 'the store did not respond; try again (a change it was asked for may already have been made)',
): DomainError {
  return new DomainError('UNAVAILABLE', message);
}

export function isDomainError(err: unknown): err is DomainError {
  return err instanceof DomainError;
}
