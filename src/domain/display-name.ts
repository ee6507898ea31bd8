// Display names (API.md §19): what an identity provider's `name` claim or a channel's profile
// says a person is called. Shown, never trusted: cleaned once where the name enters (the OIDC
// principal, a channel's sender, the people table), so every later view (the inbox, the CLI,
// a channel's "Answered by …" edit, a receipt's viewer) shows the same one line. Markup is left
// as text here and escaped by whatever renders it (React, each channel's escaping).

/** The longest display name kept, in code points. */
export const DISPLAY_NAME_MAX_CHARS = 100;

/**
 * A name as it may be shown, or '' when nothing is left: whitespace (line breaks, tabs,
 * separators) folded to one space, control and format characters (bidi overrides, zero-width
 * characters) and lone surrogates removed, trimmed, at most DISPLAY_NAME_MAX_CHARS code points.
 */
export function cleanName(raw: unknown): string {
  if (typeof raw !== 'string') return '';
  const folded = raw
    .replace(/\s+/gu, ' ')
    .replace(/[\p{Cc}\p{Cf}\p{Cs}]/gu, '')
    .replace(/ {2,}/g, ' ')
    .trim();
  const points = [...folded];
  return points.length <= DISPLAY_NAME_MAX_CHARS
    ? folded
    : points.slice(0, DISPLAY_NAME_MAX_CHARS).join('').trimEnd();
}

/** The first of `candidates` that is still a name once cleaned, else the identity itself. */
export function displayName(identity: string, ...candidates: unknown[]): string {
  for (const c of candidates) {
    const name = cleanName(c);
    if (name !== '') return name;
  }
  return identity;
}
