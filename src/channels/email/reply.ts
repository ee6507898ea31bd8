// A reply by mail as an answer (API.md §9.1): the provider's payload read into sender, subject,
// recipients and text; the text cut at the first quoted line or signature; its first line read
// as the answer for the question's format. Everything here is untrusted input.
import { exceedsChars, APPROVAL_NOTE_MAX_CHARS as NOTE_MAX } from '../../domain/limits.ts';
import { clip } from '../../domain/values.ts';
import { yesOrNo } from '../../domain/yes-no.ts';
import type { ChannelQuestion } from '../types.ts';
import { type MailHeaders, mailgunHeaders, postmarkHeaders, rawHeaders } from './auto-reply.ts';
import type { InboundProvider } from './inbound-auth.ts';
import { htmlText } from './mail-text.ts';

export interface MailReply {
  sender: string;
  /** Subject and recipient addresses, where the question's reference may be. */
  subject: string;
  to: string;
  /** The plain part, or the text of the HTML part when the mail has no plain one. */
  text: string;
  /** The provider's message id (or a hash of the request): what makes a repeat a repeat. */
  id: string;
  /** The mail's own headers, as far as the provider passes them (auto-reply.ts reads them). */
  headers: MailHeaders;
}

/** A provider's form fields, decoded (stream-form.ts and inbound.ts). */
export interface MailFields {
  get(name: string): string | null;
}

const REF = /\bQ-[A-HJ-NP-Z2-9]{6}\b/;
const MAX_TEXT_CHARS = 64 * 1024;

/** The question's reference in the subject, else in a recipient address (`reply+Q-…@`). */
export function refOf(reply: Pick<MailReply, 'subject' | 'to'>): string | null {
  return REF.exec(reply.subject)?.[0] ?? REF.exec(reply.to.toUpperCase())?.[0] ?? null;
}

/** `Ana <ana@example.com>` or `ana@example.com` → `ana@example.com`, lower-cased. */
export function bareAddress(value: string): string {
  const inAngles = /<([^<>\s]{1,254})>/.exec(value);
  return (inAngles?.[1] ?? value).trim().toLowerCase();
}

const QUOTE_STARTS = [
  /^>/,
  /^On .{1,300}wrote:\s*$/i,
  /^-- ?$/,
  /^_{5,}\s*$/,
  /^-{2,}\s*Original Message/i,
  /^From:\s/i,
  /^Sent from my /i,
];

/** The reply's first line of its own: quoted text and signatures removed, then empty lines skipped. */
export function firstLine(text: string): string {
  for (const raw of text.slice(0, MAX_TEXT_CHARS).split(/\r?\n/)) {
    const line = raw.trim();
    if (QUOTE_STARTS.some((re) => re.test(line))) return '';
    if (line !== '') return line;
  }
  return '';
}

/**
 * APPROVAL: the line's first word decides (a yes word approves, a no word rejects: "approve",
 * "reject", "ok", "no"…), and what follows it on the same line, past a colon, dash or comma, is
 * the note: "reject: not before Friday". Lines after the first are never read (they are often the
 * quoted question). A note past the answer's limit is cut, so a long line still decides.
 */
function decisionFromLine(line: string): unknown {
  const m = /^([^\s:,;.!]+)[.!]*(?:[\s:,;.!\u2013\u2014-]+(.*))?$/u.exec(line.trim());
  const decision = m ? yesOrNo(m[1]!) : undefined;
  if (decision === undefined) return undefined;
  const note = m?.[2]?.trim() ?? '';
  return {
    decision: decision ? 'APPROVED' : 'REJECTED',
    ...(note === '' ? {} : { note: exceedsChars(note, NOTE_MAX) ? clip(note, NOTE_MAX - 1) : note }),
  };
}

/** The answer the line gives `q`, or undefined when it gives none (sensitive answers never by mail). */
export function answerFromLine(q: ChannelQuestion, line: string): unknown {
  const word = line.replace(/[.!]+$/, '').trim();
  if (word === '' || q.sensitive) return undefined;
  switch (q.format) {
    case 'CONFIRM':
      return yesOrNo(word);
    case 'APPROVAL':
      return decisionFromLine(line);
    case 'SELECT': {
      const options = q.options ?? [];
      const exact = options.find((o) => o.toLowerCase() === word.toLowerCase());
      if (exact !== undefined) return exact;
      const n = /^\d{1,3}$/.test(word) ? Number(word) : 0;
      return n >= 1 && n <= options.length ? options[n - 1] : undefined;
    }
    case 'TEXT':
      return line;
    case 'FORM':
    case 'EXTERNAL':
      // A JSON object is not typed into a mail: the mail links the answer page for these.
      return undefined;
    default:
      q.format satisfies never;
      return undefined;
  }
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Postmark's inbound JSON; `bodyHash` names the message when it carries no id. */
export function postmarkReply(json: unknown, bodyHash: string): MailReply | null {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  const m = json as Record<string, unknown>;
  const fromFull = m.FromFull as Record<string, unknown> | undefined;
  const sender = bareAddress(str(fromFull?.Email) || str(m.From));
  if (!sender.includes('@')) return null;
  const id = str(m.MessageID);
  return {
    sender,
    subject: str(m.Subject),
    to: `${str(m.OriginalRecipient)} ${str(m.To)}`,
    text: str(m.StrippedTextReply) || str(m.TextBody) || htmlText(str(m.HtmlBody)),
    id: id && id.length <= 150 ? `postmark:${id}` : bodyHash,
    headers: postmarkHeaders(m.Headers),
  };
}

/** Mailgun's forwarded form fields. */
export function mailgunReply(form: MailFields): MailReply | null {
  const get = (k: string) => str(form.get(k));
  const sender = bareAddress(get('sender') || get('from'));
  if (!sender.includes('@')) return null;
  return {
    sender,
    subject: get('subject'),
    to: `${get('recipient')} ${get('To')}`,
    text: get('stripped-text') || get('body-plain') || htmlText(get('stripped-html') || get('body-html')),
    id: `mailgun:${get('token').slice(0, 150)}`,
    headers: mailgunHeaders(get('message-headers')),
  };
}

/** SendGrid Inbound Parse's form fields. */
export function sendgridReply(form: MailFields, bodyHash: string): MailReply | null {
  const get = (k: string) => str(form.get(k));
  let envelopeFrom = '';
  try {
    envelopeFrom = str((JSON.parse(get('envelope') || '{}') as { from?: unknown }).from);
  } catch {
    envelopeFrom = '';
  }
  const sender = bareAddress(envelopeFrom || get('from'));
  if (!sender.includes('@')) return null;
  const messageId = /^Message-ID:\s*(<[^<>\s]{1,140}>)\s*$/im.exec(get('headers'))?.[1];
  return {
    sender,
    subject: get('subject'),
    to: get('to'),
    text: get('text') || htmlText(get('html')),
    id: messageId ? `sendgrid:${messageId}` : bodyHash,
    headers: rawHeaders(get('headers')),
  };
}

export const PROVIDERS: readonly InboundProvider[] = ['postmark', 'mailgun', 'sendgrid'];
