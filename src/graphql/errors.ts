// The one place GraphQL errors are shaped (API.md §3). Every error a client sees carries
// `extensions.code` from the closed set in src/domain/errors.ts (and `extensions.field` when it
// has a place in the input). Anything unexpected becomes `INTERNAL` with a generic message and
// an id; the detail goes to the log under that id, never to the client.
import { randomUUID } from 'node:crypto';
import { PothosValidationError } from '@pothos/core';
import { ForbiddenError } from '@pothos/plugin-scope-auth';
import type { StandardSchemaV1 } from '@pothos/plugin-validation';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { DomainError, ERROR_STATUS, type ErrorCode } from '../domain/errors.ts';
import type { GraphQLErrorExtensions } from './graphql-js.ts';
import { GraphQLError } from './graphql-js.ts';

const FORBIDDEN_MESSAGE = 'this key may not do that';

/** What scope-auth throws when a role gate fails. */
export function forbidden(): DomainError {
  return new DomainError('FORBIDDEN', FORBIDDEN_MESSAGE);
}

function pathText(path: StandardSchemaV1.Issue['path']): string {
  let out = '';
  for (const seg of path ?? []) {
    const key = typeof seg === 'object' ? seg.key : seg;
    out += typeof key === 'number' ? `[${key}]` : `${out === '' ? '' : '.'}${String(key)}`;
  }
  return out;
}

/** What the validation plugin throws: the first issue, as BAD_USER_INPUT at its argument path. */
export function invalidArgument(issues: readonly StandardSchemaV1.Issue[]): DomainError {
  const issue = issues[0];
  const field = issue ? pathText(issue.path) : '';
  return new DomainError('BAD_USER_INPUT', issue?.message ?? 'invalid argument', field || undefined);
}

/** Codes Yoga and graphql-js put on request-level errors, mapped into the closed set. */
const REQUEST_CODES: Readonly<Record<string, ErrorCode>> = {
  REQUEST_ENTITY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
};

type Located = Pick<GraphQLError, 'nodes' | 'source' | 'positions' | 'path'>;

function located(from: GraphQLError | undefined): Partial<Located> {
  if (!from) return {};
  return { nodes: from.nodes, source: from.source, positions: from.positions, path: from.path };
}

function shaped(
  message: string,
  at: GraphQLError | undefined,
  extensions: GraphQLErrorExtensions,
): GraphQLError {
  // No originalError: the result is an intentional, client-facing error (and Yoga keeps status 200).
  return new GraphQLError(message, { ...located(at), extensions });
}

function fromDomain(err: DomainError, at: GraphQLError | undefined): GraphQLError {
  const extensions: GraphQLErrorExtensions = {
    ...err.more,
    ...(err.field === undefined ? { code: err.code } : { code: err.code, field: err.field }),
  };
  return shaped(err.message, at, extensions);
}

/** By name, so a GraphQLError from any copy of graphql-js is recognised. */
export function isGraphQLError(value: unknown): value is GraphQLError {
  return value instanceof Error && value.name === 'GraphQLError';
}

/** The innermost cause under GraphQL's wrapping (located errors, subscription stream errors). */
function rootCause(error: unknown): unknown {
  let cause = error;
  while (isGraphQLError(cause) && cause.originalError) cause = cause.originalError;
  return cause;
}

export type MaskError = (error: unknown, message: string, isDev?: boolean) => Error;

/** Yoga's `maskedErrors.maskError`: every execution and request error passes through here. */
export function createMaskError(logger: Logger): MaskError {
  function internal(cause: unknown, at: GraphQLError | undefined): GraphQLError {
    const errorId = randomUUID();
    logger.error({ errorId, err: cause, path: at?.path?.join('.') }, 'internal error in a GraphQL request');
    return shaped(`Internal error (id ${errorId})`, at, { code: 'INTERNAL', errorId });
  }

  return (error: unknown): Error => {
    const at = isGraphQLError(error) ? error : undefined;
    const cause = rootCause(error);
    if (cause instanceof DomainError) {
      return cause.code === 'INTERNAL' ? internal(cause, at) : fromDomain(cause, at);
    }
    if (cause instanceof ForbiddenError) return shaped(FORBIDDEN_MESSAGE, at, { code: 'FORBIDDEN' });
    if (cause instanceof PothosValidationError) {
      return shaped(cause.message, at, { code: 'BAD_USER_INPUT' });
    }
    if (at && isGraphQLError(cause)) {
      // graphql-js and Yoga's own errors. Request-level ones (syntax, variables, body, method)
      // have no path: they are the caller's to fix. One with a path is a bug (e.g. a null in a
      // non-null field, a value the schema cannot serialize).
      if (at.path !== undefined) return internal(cause, at);
      const code = at.extensions.code;
      const mapped = typeof code === 'string' ? REQUEST_CODES[code] : undefined;
      if (typeof code === 'string' && mapped === undefined && isOurCode(code)) return at;
      return shaped(at.message, at, { ...at.extensions, code: mapped ?? 'BAD_USER_INPUT' });
    }
    return internal(cause, at);
  };
}

function isOurCode(code: string): boolean {
  return Object.hasOwn(ERROR_STATUS, code);
}

/**
 * Documents that fail GraphQL validation keep Yoga's behaviour (message, locations, HTTP status
 * per GraphQL over HTTP) but carry `BAD_USER_INPUT`. Validation errors never reach `maskError`.
 */
export function useValidationErrorCode(): Plugin {
  return {
    onValidate() {
      return ({ valid, result }) => {
        if (valid) return;
        for (const error of result) {
          (error.extensions as Record<string, unknown>).code = 'BAD_USER_INPUT';
        }
      };
    },
  };
}
