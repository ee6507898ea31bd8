// Media gating: an item renders only when the API contract (API.md §5.2) would accept it, checked
// by the contract's own validator; anything else is shown as blocked, never rendered. The server
// refuses such items at ask time already: this is the second line, for whatever gets through.
import { isDomainError } from '../../domain/errors.ts';
import { checkWebUrl, validateMedia } from '../../domain/media.ts';

export type MediaView =
  | { ok: true; kind: 'IMAGE' | 'LINK'; url: string; caption: string | null }
  | { ok: false; kind: string; url: string; reason: string };

export interface MediaInput {
  kind: string;
  url: string;
  caption?: string | null;
}

export function checkMedia(item: MediaInput): MediaView {
  const raw: Record<string, unknown> = { kind: item.kind, url: item.url };
  if (item.caption !== null && item.caption !== undefined) raw.caption = item.caption;
  try {
    const [valid] = validateMedia([raw], 'media');
    if (!valid) throw new Error('no item');
    return { ok: true, kind: valid.kind, url: valid.url, caption: valid.caption ?? null };
  } catch (err) {
    const reason = isDomainError(err) ? err.message : 'not a valid media item';
    return { ok: false, kind: item.kind, url: item.url, reason };
  }
}

/** The host a link leads to, shown next to its label (null when it has none). */
export function hostOf(url: string): string | null {
  try {
    return new URL(url).host || null;
  } catch {
    return null;
  }
}

/**
 * An EXTERNAL question's link, if it is safe to make an anchor of: an absolute http(s) URL on
 * one line with a real host and no user@ part (the contract's rules for a link, §5.1).
 */
export function safeLink(url: string | null): string | null {
  if (url === null) return null;
  try {
    checkWebUrl(url, ['http', 'https'], 'link');
    return url;
  } catch {
    return null;
  }
}
