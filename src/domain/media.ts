// Media shown with a question in the inbox (API.md §5.2): display-only images and links.
// Hosts are checked as written, before WHATWG URL normalizes look-alikes such as `0x7f.1`.
import { badInput, isDomainError } from './errors.ts';
import {
  codePointLength,
  exceedsChars,
  isBlank,
  MEDIA_CAPTION_MAX_CHARS,
  MEDIA_DATA_URI_MAX_CHARS,
  MEDIA_MAX_ITEMS,
  MEDIA_TOTAL_URI_CHARS,
  MEDIA_URL_MAX_CHARS,
} from './limits.ts';
import { MEDIA_KINDS, type MediaItem, type MediaKind } from './question.ts';
import { clip, listChoices, own } from './values.ts';

export type WebScheme = 'http' | 'https';

const ITEM_KEYS: ReadonlySet<string> = new Set(['kind', 'url', 'caption']);
/** Whitespace, control, surrogate, separator and invisible format (Cf) characters. */
const NOT_SINGLE_LINE = /[\s\p{Cc}\p{Cf}\p{Cs}\p{Z}]/u;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;
const DATA_IMAGE = /^data:image\/(?:png|jpeg|gif|webp);base64,/i;
const DATA_PREFIX = /^data:/i;
const PORT = /^:(\d{1,5})$/;
const DNS_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const IPV4_OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${IPV4_OCTET}(?:\\.${IPV4_OCTET}){3}$`);
const NUMERIC_LABEL = /^(?:\d+|0[xX][0-9A-Fa-f]*)$/;
const IPV6_CHARS = /^\[[0-9A-Fa-f:.]+\]$/;
const BASE64_CHAR = /^[A-Za-z0-9+/]*$/;
const NON_ASCII = /[^\p{ASCII}]/u;
const KEY_SHOWN_MAX = 64;

/** WHATWG's "ends in a number": such hosts are parsed as IPv4, so they must be a real one. */
function endsInNumber(host: string): boolean {
  const labels = host.split('.');
  if (labels[labels.length - 1] === '' && labels.length > 1) labels.pop();
  const last = labels[labels.length - 1] ?? '';
  return NUMERIC_LABEL.test(last);
}

function isDnsName(host: string): boolean {
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  if (name.length === 0 || name.length > 253) return false;
  return name.split('.').every((label) => DNS_LABEL.test(label));
}

function checkHost(host: string, field: string): void {
  if (host === '') throw badInput('URL must have a host', field);
  if (host.startsWith('[')) {
    if (!IPV6_CHARS.test(host)) throw badInput('URL host is not a valid IPv6 address', field);
    return; // the WHATWG parse below validates the address itself
  }
  const ascii = !NON_ASCII.test(host);
  if (ascii && endsInNumber(host)) {
    if (!IPV4.test(host)) throw badInput('URL host is not a valid IPv4 address', field);
    return;
  }
  if (ascii && !isDnsName(host)) throw badInput('URL host is not a valid host name', field);
}

/** The host of a non-ASCII (IDN) host after WHATWG turned it into punycode. */
function checkIdnHost(hostname: string, field: string): void {
  if (endsInNumber(hostname) || !isDnsName(hostname)) {
    throw badInput('URL host is not a valid host name', field);
  }
}

/**
 * An absolute web URL on one line with a real host: `scheme://host[:port]…`, no `user@` part,
 * a DNS name, a dotted IPv4 or a bracketed IPv6, and a port in 1..65535 when given.
 * Lengths are the caller's business.
 */
export function checkWebUrl(url: string, schemes: readonly WebScheme[], field: string): void {
  if (NOT_SINGLE_LINE.test(url)) {
    throw badInput('URL must be one line without spaces or invisible characters', field);
  }
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (!scheme || !(schemes as readonly string[]).includes(scheme)) {
    throw badInput(`URL must be an absolute ${schemes.join(' or ')} URL`, field);
  }
  const rest = url.slice(scheme.length + 3);
  const end = rest.search(/[/?#\\]/);
  const authority = end === -1 ? rest : rest.slice(0, end);
  if (authority.includes('@')) throw badInput('URL must not contain a user@ part', field);
  let host: string;
  let portPart: string;
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    host = close === -1 ? authority : authority.slice(0, close + 1);
    portPart = close === -1 ? '' : authority.slice(close + 1);
  } else {
    const colon = authority.indexOf(':');
    host = colon === -1 ? authority : authority.slice(0, colon);
    portPart = colon === -1 ? '' : authority.slice(colon);
  }
  checkHost(host, field);
  if (portPart !== '') {
    const digits = PORT.exec(portPart)?.[1];
    const port = digits === undefined ? 0 : Number(digits);
    if (port < 1 || port > 65535) throw badInput('URL port must be 1 to 65535', field);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badInput('URL is not valid', field);
  }
  if (parsed.protocol !== `${scheme}:` || parsed.hostname === '') throw badInput('URL is not valid', field);
  if (parsed.username !== '' || parsed.password !== '') {
    throw badInput('URL must not contain a user@ part', field);
  }
  if (!host.startsWith('[') && NON_ASCII.test(host)) checkIdnHost(parsed.hostname, field);
}

/** Forgiving base64 (what browsers apply to `data:` URLs), minus whitespace; must decode to bytes. */
function isNonEmptyBase64(payload: string): boolean {
  let body = payload;
  if (body.length % 4 === 0) {
    if (body.endsWith('==')) body = body.slice(0, -2);
    else if (body.endsWith('=')) body = body.slice(0, -1);
  }
  if (body.length === 0 || body.length % 4 === 1) return false;
  return BASE64_CHAR.test(body);
}

function checkImageDataUri(url: string, field: string): void {
  const prefix = DATA_IMAGE.exec(url);
  if (!prefix) throw badInput('data URI must be data:image/(png|jpeg|gif|webp);base64,…', field);
  if (!isNonEmptyBase64(url.slice(prefix[0].length))) {
    throw badInput('data URI must hold valid, non-empty base64', field);
  }
}

function validateUrl(raw: unknown, kind: MediaKind, field: string): string {
  if (typeof raw !== 'string') throw badInput('url must be a string', field);
  if (raw === '') throw badInput('url must not be empty', field);
  const isData = DATA_PREFIX.test(raw);
  if (isData && kind === 'IMAGE') {
    if (exceedsChars(raw, MEDIA_DATA_URI_MAX_CHARS)) {
      throw badInput(`data URI must be at most ${MEDIA_DATA_URI_MAX_CHARS} characters`, field);
    }
    checkImageDataUri(raw, field);
    return raw;
  }
  if (exceedsChars(raw, MEDIA_URL_MAX_CHARS)) {
    throw badInput(`URL must be at most ${MEDIA_URL_MAX_CHARS} characters`, field);
  }
  checkWebUrl(raw, kind === 'IMAGE' ? ['https'] : ['http', 'https'], field);
  return raw;
}

function validateCaption(raw: unknown, field: string): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string') throw badInput('caption must be a string', field);
  if (isBlank(raw)) throw badInput('caption must not be blank', field);
  if (exceedsChars(raw, MEDIA_CAPTION_MAX_CHARS)) {
    throw badInput(`caption must be at most ${MEDIA_CAPTION_MAX_CHARS} characters`, field);
  }
  return raw;
}

function validateItem(raw: unknown, field: string): MediaItem {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw badInput('media item must be an object', field);
  }
  for (const key of Object.keys(raw)) {
    if (!ITEM_KEYS.has(key)) {
      throw badInput(
        `unknown field (expected: ${listChoices(ITEM_KEYS)})`,
        `${field}.${clip(key, KEY_SHOWN_MAX)}`,
      );
    }
  }
  const kind = own(raw, 'kind');
  if (typeof kind !== 'string' || !(MEDIA_KINDS as readonly string[]).includes(kind)) {
    throw badInput('kind must be IMAGE or LINK', `${field}.kind`);
  }
  const url = validateUrl(own(raw, 'url'), kind as MediaKind, `${field}.url`);
  const caption = validateCaption(own(raw, 'caption'), `${field}.caption`);
  return caption === undefined ? { kind: kind as MediaKind, url } : { kind: kind as MediaKind, url, caption };
}

/**
 * Validates a question's media list and returns it normalized to `{kind, url, caption?}`.
 * `field` names the list, e.g. `input.media`; item errors name `input.media[2].url`.
 */
export function validateMedia(items: unknown, field: string): MediaItem[] {
  try {
    if (!Array.isArray(items)) throw badInput('media must be a list', field);
    if (items.length === 0) throw badInput('media must not be empty (omit it instead)', field);
    if (items.length > MEDIA_MAX_ITEMS)
      throw badInput(`media must have at most ${MEDIA_MAX_ITEMS} items`, field);
    const out: MediaItem[] = [];
    let total = 0;
    for (let i = 0; i < items.length; i++) {
      const item = validateItem(items[i], `${field}[${i}]`);
      total += codePointLength(item.url);
      out.push(item);
    }
    if (total > MEDIA_TOTAL_URI_CHARS) {
      throw badInput(`media URLs must total at most ${MEDIA_TOTAL_URI_CHARS} characters`, field);
    }
    return out;
  } catch (err) {
    throw isDomainError(err) ? err : badInput('invalid media', field);
  }
}
