// Where a caller's key rides (API.md §2): `Authorization: Bearer <key>` or `X-Api-Key: <key>`.

import type { HeaderBag } from '../domain/values.ts';

export type { HeaderBag };

const BEARER = /^bearer +(\S+)$/i;
const BARE_KEY = /^\S+$/;

/** The single value of a header (names compared case-insensitively); null if absent or repeated. */
function single(headers: HeaderBag, name: string): string | null {
  let found: string | null = null;
  let seen = 0;
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== name || v === undefined) continue;
    const values = Array.isArray(v) ? v : [v];
    seen += values.length;
    found = values[0] ?? null;
  }
  return seen === 1 ? found : null;
}

/**
 * The key the caller presents, or null. Accepted: `Authorization: Bearer <key>` (scheme
 * case-insensitive) and `X-Api-Key: <key>`; surrounding whitespace is ignored, a key with inner
 * whitespace is not a key. Another Authorization scheme (e.g. Basic) is ignored. A repeated
 * header, or both headers carrying different keys, is ambiguous and yields null.
 */
export function credentialFrom(headers: HeaderBag): string | null {
  const auth = single(headers, 'authorization')?.trim();
  const bearer = auth === undefined ? null : (BEARER.exec(auth)?.[1] ?? null);
  const apiKeyRaw = single(headers, 'x-api-key')?.trim();
  const apiKey = apiKeyRaw !== undefined && BARE_KEY.test(apiKeyRaw) ? apiKeyRaw : null;
  if (bearer !== null && apiKey !== null) return bearer === apiKey ? bearer : null;
  return bearer ?? apiKey;
}
