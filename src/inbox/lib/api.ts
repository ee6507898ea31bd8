// Queries and mutations over plain fetch, with the generated typed documents (API.md §3, §4).
// Every failure becomes an ApiError that says what kind it was: a refused key (the page goes
// back to sign-in), an error the API returned (with its code and field), or no answer at all.
import type { TypedDocumentString } from '../../client/generated/graphql.ts';

export const GRAPHQL_PATH = '/graphql';

export type ApiErrorKind = 'unauthenticated' | 'api' | 'network';

export class ApiError extends Error {
  readonly kind: ApiErrorKind;
  /** The API's `extensions.code`, e.g. ALREADY_ANSWERED. */
  readonly code: string | undefined;
  /** The API's `extensions.field`, e.g. `answer.email`. */
  readonly field: string | undefined;

  constructor(kind: ApiErrorKind, message: string, code?: string, field?: string) {
    super(message);
    this.name = 'ApiError';
    this.kind = kind;
    this.code = code;
    this.field = field;
  }
}

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}

export type FetchFn = (input: string, init: RequestInit) => Promise<Response>;

export interface ApiOptions {
  key: string;
  /** Defaults to the global fetch. */
  fetchFn?: FetchFn;
  signal?: AbortSignal;
}

interface GraphQLErrorShape {
  message?: unknown;
  extensions?: { code?: unknown; field?: unknown };
}

function asString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** The ApiError for the first GraphQL error of a response (UNAUTHENTICATED becomes its own kind). */
export function errorFromGraphQL(errors: readonly GraphQLErrorShape[]): ApiError {
  const first = errors[0] ?? {};
  const code = asString(first.extensions?.code);
  const message = asString(first.message) ?? 'the request failed';
  if (code === 'UNAUTHENTICATED') return new ApiError('unauthenticated', message, code);
  return new ApiError('api', message, code, asString(first.extensions?.field));
}

export function authHeaders(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

/** Runs one query or mutation and returns its data, or throws an ApiError. */
export async function request<R, V>(
  document: TypedDocumentString<R, V>,
  variables: V,
  o: ApiOptions,
): Promise<R> {
  const fetchFn = o.fetchFn ?? ((input, init) => fetch(input, init));
  let res: Response;
  try {
    res = await fetchFn(GRAPHQL_PATH, {
      method: 'POST',
      headers: {
        ...authHeaders(o.key),
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ query: String(document), variables }),
      credentials: 'omit',
      cache: 'no-store',
      ...(o.signal ? { signal: o.signal } : {}),
    });
  } catch (err) {
    if (o.signal?.aborted) throw err;
    throw new ApiError('network', 'Could not reach the server. Check the connection and try again.');
  }
  if (res.status === 401)
    throw new ApiError('unauthenticated', 'The API key was refused.', 'UNAUTHENTICATED');
  let body: { data?: unknown; errors?: GraphQLErrorShape[] };
  try {
    body = (await res.json()) as typeof body;
  } catch {
    throw new ApiError('network', `The server answered ${res.status} without a GraphQL response.`);
  }
  if (Array.isArray(body.errors) && body.errors.length > 0) throw errorFromGraphQL(body.errors);
  if (body.data === null || body.data === undefined) {
    throw new ApiError('network', `The server answered ${res.status} without data.`);
  }
  return body.data as R;
}
