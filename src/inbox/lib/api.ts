// The inbox's GraphQL client is the SDK's: its fetch-based Transport and its error classes (one
// client, one error type). This adds only what a page needs: the page's own origin, no cookies
// and no HTTP cache (the key travels as a Bearer header, answers must be fresh), and the words a
// person reads when a call fails.
import { InteractionsError, NetworkError, UnauthenticatedError } from '../../client/errors.ts';
import { type FetchLike, Transport } from '../../client/transport.ts';

export { Transport };

export interface InboxApiOptions {
  key: string;
  /** The server's origin; default the page's own. */
  origin?: string;
  /** Defaults to the global fetch. */
  fetch?: FetchLike;
}

/** The transport for one signed-in key. */
export function createInboxApi({ key, origin, fetch: fetchFn }: InboxApiOptions): Transport {
  const base: FetchLike = fetchFn ?? ((input, init) => globalThis.fetch(input, init));
  return new Transport({
    url: origin ?? window.location.origin,
    apiKey: key,
    fetch: (input, init) => base(input, { ...init, credentials: 'omit', cache: 'no-store' }),
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
