// What a JSON Schema `format` means, in words a person understands: "must be an email address"
// rather than `must match format "email"`. One list for the server's errors (json-schema.ts) and
// the inbox's form (inbox/lib/form-validator.ts), so the CLI, the API and the page say the same.
export const FORMAT_WORDS: Record<string, string> = {
  email: 'an email address',
  uri: 'a URL',
  url: 'a URL',
  'uri-reference': 'a URL or path',
  date: 'a date (YYYY-MM-DD)',
  time: 'a time',
  'date-time': 'a date and time',
  duration: 'a duration',
  hostname: 'a host name',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  uuid: 'a UUID',
  regex: 'a regular expression',
};

/** The words for `format` ("an email address"), or "a valid <format>" for one without a name here. */
export function formatWords(format: string): string {
  return Object.hasOwn(FORMAT_WORDS, format) ? (FORMAT_WORDS[format] as string) : `a valid ${format}`;
}
