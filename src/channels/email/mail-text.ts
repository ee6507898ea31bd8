// A reply's text as the person wrote it (API.md §9.1): bytes decoded by the charset the provider
// names (SendGrid's `charsets` field: a reply from Outlook is often windows-1252), and the text of
// an HTML-only reply (Postmark's empty `TextBody`, SendGrid without `text`) for mail clients that
// send no plain part. Node's own TextDecoder reads windows-1252 as Latin-1 (its 0x80–0x9f become
// control characters), so iconv-lite decodes.
import iconv from 'iconv-lite';

/** The bytes as text in `charset`; UTF-8 when it is absent or unknown. */
export function decodeText(bytes: Buffer, charset: string | null | undefined): string {
  const name = (charset ?? '').trim().toLowerCase();
  if (name !== '' && name !== 'utf-8' && name !== 'utf8' && iconv.encodingExists(name)) {
    return iconv.decode(bytes, name);
  }
  return bytes.toString('utf8');
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

function entity(_m: string, body: string): string {
  if (body.startsWith('#')) {
    const code =
      body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
    return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
  }
  return ENTITIES[body.toLowerCase()] ?? '';
}

/** Longest HTML read for its text: a reply's first line is near its start. */
const HTML_MAX_CHARS = 512 * 1024;

/**
 * The text of an HTML body, line by line: what is never shown (head, style, script, comments)
 * and quoted mail (blockquote, Gmail's and Outlook's quote containers start where the reply
 * ends) left out, block elements and `<br>` as line breaks, tags removed, entities decoded.
 */
export function htmlText(html: string): string {
  let s = html.slice(0, HTML_MAX_CHARS);
  s = s.replace(/<!--[\s\S]*?-->/g, '');
  s = s.replace(/<(head|style|script|title)\b[\s\S]*?<\/\1\s*>/gi, '');
  // The quoted thread: everything from the first quote container on (the reply is above it).
  const quote =
    /<blockquote\b|<div[^>]*\b(?:class="[^"]*gmail_quote|id="(?:divRplyFwdMsg|appendonsend)")/i.exec(s);
  if (quote) s = s.slice(0, quote.index);
  s = s.replace(/<br\s*\/?>/gi, '\n');
  s = s.replace(/<\/?(p|div|tr|li|h[1-6]|table|ul|ol|hr|pre)\b[^>]*>/gi, '\n');
  s = s.replace(/<[^>]*>/g, '');
  s = s.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});/g, entity);
  return s.replace(/[ \t\u00a0]+/g, ' ');
}
