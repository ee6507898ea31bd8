// The inbox's GraphQL client is the SDK's: its fetch-based Transport and its error classes (one
// client, one error type). This adds only what a page needs: the page's own origin, no cookies
// and no HTTP cache (the key travels as a Bearer header, answers must be fresh), and the words a
// person reads when a call fails.
import { InteractionsError, NetworkError, UnauthenticatedError } from '../../client/errors.ts';
import { type FetchLike, Transport } from '../../client/transport.ts';

export { Transport };

export interface InboxApiOptions {
  /** The API key; null for a person signed in through the identity provider (the session cookie). */
  key: string | null;
  /** The server's origin; default the page's own. */
  origin?: string;
  /** Defaults to the global fetch. */
  fetch?: FetchLike;
}

/** The transport for one signed-in key, or for the signed-in person's session cookie. */
export function createInboxApi({ key, origin, fetch: fetchFn }: InboxApiOptions): Transport {
  const base: FetchLike = fetchFn ?? ((input, init) => globalThis.fetch(input, init));
  // A key travels as a header and no cookie goes along; a session is the cookie alone.
  const credentials: RequestCredentials = key === null ? 'same-origin' : 'omit';
  return new Transport({
    url: origin ?? window.location.origin,
    ...(key === null ? {} : { apiKey: key }),
    fetch: (input, init) => base(input, { ...init, credentials, cache: 'no-store' }),
  });
}

/** The key was refused (401): the page goes back to sign-in. */
export function isRefusedKey(err: unknown): boolean {
  return err instanceof UnauthenticatedError;
}

export const UNREACHABLE_TEXT = 'Could not reach the server. Check the connection and try again.';

/** A failed call in a person's words: no answer at all, or what the server said. */
export function failureText(err: unknown, fallback: string): string {
  if (err instanceof NetworkError) return UNREACHABLE_TEXT;
  if (err instanceof InteractionsError) return err.message;
  return fallback;
}
