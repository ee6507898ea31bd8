// Mail no person wrote (API.md §9.1): an out-of-office notice or another automatic reply to our
// question must not become its answer ("I am away until Monday" would answer a TEXT question).
// Read from the reply's headers as each provider passes them — Postmark a `Headers` array of
// {Name, Value}, Mailgun a `message-headers` JSON list of [name, value] pairs, SendGrid the raw
// header block — and from the subject lines auto-responders write.

export type MailHeaders = ReadonlyArray<readonly [name: string, value: string]>;

/** Most headers read from one message; a real one has a few dozen. */
const MAX_HEADERS = 500;

/** Postmark: `Headers: [{"Name": "...", "Value": "..."}]`. */
export function postmarkHeaders(value: unknown): MailHeaders {
  if (!Array.isArray(value)) return [];
  const out: [string, string][] = [];
  for (const h of value.slice(0, MAX_HEADERS)) {
    const { Name, Value } = (h ?? {}) as { Name?: unknown; Value?: unknown };
    if (typeof Name === 'string' && typeof Value === 'string') out.push([Name, Value]);
  }
  return out;
}

/** Mailgun: `message-headers`, a JSON list of `[name, value]` pairs. */
export function mailgunHeaders(json: string): MailHeaders {
  let list: unknown;
  try {
    list = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(list)) return [];
  const out: [string, string][] = [];
  for (const pair of list.slice(0, MAX_HEADERS)) {
    if (Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'string') {
      out.push([pair[0], pair[1]]);
    }
  }
  return out;
}

/** SendGrid: the raw header block, folded lines joined to their header. */
export function rawHeaders(block: string): MailHeaders {
  const out: [string, string][] = [];
  for (const line of block.split(/\r?\n/)) {
    if (out.length >= MAX_HEADERS) break;
    const last = out[out.length - 1];
    if (/^[ \t]/.test(line) && last) last[1] = `${last[1]} ${line.trim()}`;
    else {
      const colon = line.indexOf(':');
      if (colon > 0) out.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
    }
  }
  return out;
}

const AUTO_SUBJECT =
  /^\s*(automatic reply|auto(?:matic)?[- ]?reply|autoreply|out of (?:the )?office|abwesenheitsnotiz|réponse automatique)\b/i;

/**
 * Whether the mail is an automatic reply: RFC 3834 `Auto-Submitted` other than `no`,
 * `X-Autoreply`, `X-Autorespond`, `Precedence: auto_reply|bulk|junk`, Exchange's
 * `X-MS-Exchange-Generated-Message-Source`, or an auto-responder's subject
 * ("Automatic reply:", "Out of Office").
 */
export function isAutoReply(headers: MailHeaders, subject: string): boolean {
  for (const [rawName, rawValue] of headers) {
    const name = rawName.trim().toLowerCase();
    const value = rawValue.trim().toLowerCase();
    if (name === 'auto-submitted' && value !== '' && !/^no\b/.test(value)) return true;
    if (
      name === 'x-autoreply' ||
      name === 'x-autorespond' ||
      name === 'x-ms-exchange-generated-message-source'
    ) {
      return true;
    }
    if (name === 'precedence' && /^(auto_reply|bulk|junk)\b/.test(value)) return true;
  }
  return AUTO_SUBJECT.test(subject);
}
