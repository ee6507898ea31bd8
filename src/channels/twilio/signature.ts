// Twilio's request signing: base64 HMAC-SHA1, keyed with the auth token, over the public URL the
// request was posted to followed by every POST parameter's name and value, sorted by name.
// Compared in constant time; the URL is tried as given, without its port and with the default
// port, because Twilio signs the URL as configured on the number.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-twilio-signature';

/**
 * Most form parameters an inbound request may have. Twilio sends a few dozen (an MMS with ten
 * media, about fifty); a body with more is refused before it is parsed or hashed, so a forged
 * body of thousands of tiny keys costs no more than a genuine one.
 */
export const MAX_FORM_PARAMS = 200;

export function twilioSignature(authToken: string, url: string, params: URLSearchParams): string {
  // One pass groups the values by name: `getAll(name)` per name would rescan the whole form for
  // each distinct name, quadratic in the number of keys.
  const groups = new Map<string, string[]>();
  for (const [name, value] of params) {
    const values = groups.get(name);
    if (values) values.push(value);
    else groups.set(name, [value]);
  }
  const parts = [url];
  for (const name of [...groups.keys()].sort()) {
    for (const value of groups.get(name)!.sort()) parts.push(name, value);
  }
  // One update of the joined text: one native call, not one per parameter.
  return createHmac('sha1', authToken).update(parts.join('')).digest('base64');
}

/** The URL as given, without an explicit port, and with the scheme's default port. */
export function urlVariants(url: string): string[] {
  const m = /^(https?):\/\/([^/?#:]+)(:\d+)?(.*)$/s.exec(url);
  if (!m) return [url];
  const [, scheme, host, port, rest] = m;
  const defaultPort = scheme === 'https' ? ':443' : ':80';
  return [
    ...new Set([url, `${scheme}://${host}${rest}`, `${scheme}://${host}${port ?? defaultPort}${rest}`]),
  ];
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function checkTwilioSignature(
  authToken: string,
  given: string | string[] | undefined,
  url: string,
  params: URLSearchParams,
): boolean {
  if (typeof given !== 'string' || given === '') return false;
  let ok = false;
  // Every variant is computed and compared, so the time taken does not say which one matched.
  for (const candidate of urlVariants(url)) {
    if (sameText(twilioSignature(authToken, candidate, params), given)) ok = true;
  }
  return ok;
}
