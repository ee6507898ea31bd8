// What a question looks like as a text message, and what a reply means. Every message starts with
// a short reference ("[K72]") that a reply may start with to name its question.

import { randomInt } from 'node:crypto';
import { presentOn } from '../../domain/presentation.ts';
import { yesOrNo } from '../../domain/yes-no.ts';
import { cutUnits } from '../cut-text.ts';
import type { ChannelQuestion } from '../types.ts';

/** Twilio refuses longer message bodies (error 14103). */
export const BODY_MAX_CHARS = 1600;
/**
 * The longest link written into a body as is: a longer one (up to 8,192) would crowd out the
 * question or break the 1,600 characters, so it arrives as the server's short redirect.
 */
export const LINK_MAX_CHARS = 512;
/** WhatsApp quick replies: at most 3 buttons with titles of at most 20 characters, a body of at most 1,024. */
export const QUICK_REPLY_MAX_BUTTONS = 3;
export const QUICK_REPLY_TITLE_MAX_CHARS = 20;
export const QUICK_REPLY_BODY_MAX_CHARS = 1024;
const OPTION_MAX_CHARS = 60;

// No I/O (they read as 1/0) and no 0/1; short enough to type on a phone.
const LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const DIGITS = '23456789';

/** A fresh short reference: a letter and two digits ("K72"). Unique enough among one number's open questions. */
export function newShortRef(): string {
  return `${LETTERS[randomInt(LETTERS.length)]}${DIGITS[randomInt(DIGITS.length)]}${DIGITS[randomInt(DIGITS.length)]}`;
}

/** The delivery's ref: scoped to the number, so a sender can only ever name their own questions. */
export function refFor(recipient: string, short: string): string {
  return `${recipient}#${short.toUpperCase()}`;
}

function optionLines(options: string[], room: number): string {
  const lines = options.map(
    (o, i) => `${i + 1}) ${cutUnits(o.replace(/\s+/g, ' ').trim(), OPTION_MAX_CHARS)}`,
  );
  let shown = lines.length;
  const join = (n: number) =>
    `${lines.slice(0, n).join('\n')}${n < lines.length ? `\n(+${lines.length - n} more)` : ''}`;
  while (shown > 1 && join(shown).length > room) shown--;
  return join(shown);
}

function instruction(q: ChannelQuestion, callbackUrl: string, room: number): string {
  switch (q.format) {
    case 'CONFIRM':
      return 'Reply 1 for Yes, 2 for No.';
    case 'SELECT': {
      const n = q.options?.length ?? 0;
      const tail = `Reply with a number from 1 to ${n}.`;
      return `${optionLines(q.options ?? [], room - tail.length - 1)}\n${tail}`;
    }
    case 'TEXT':
      // A texted answer stays in the phone's history (and the carrier's): a sensitive one is
      // typed on the answer page instead.
      return q.sensitive
        ? `This answer is sensitive: do not text it. Answer on this page: ${callbackUrl}`
        : 'Reply with your answer.';
    case 'FORM':
      return `Answer on this page: ${callbackUrl}`;
    case 'APPROVAL': {
      // The action in short; the page shows every argument (and the edit form when editable).
      const a = q.action;
      // One presentation object: the SMS shows, and presentedDigest digests, the cut name and
      // summary and no arguments (API.md §23); the page shows them whole.
      const p = a ? presentOn('twilio', a, a.arguments) : null;
      const what = p ? `${p.name}${p.summary ? `: ${p.summary}` : ''}` : '';
      const edit = a?.editable ? ` To change it first: ${callbackUrl}` : ` Details: ${callbackUrl}`;
      return `${cutUnits(what, 200)}\nReply 1 to Approve, 2 to Reject.${edit}`;
    }
    case 'EXTERNAL':
      return `Open: ${q.link ?? callbackUrl}`;
    default:
      q.format satisfies never;
      return `Answer on this page: ${callbackUrl}`;
  }
}

/**
 * The message body within `max` characters: `[K72] text`, a blank line, what to reply. A question
 * too long for it is cut and points to the answer page, where it is shown whole.
 */
export function messageBody(
  q: ChannelQuestion,
  short: string,
  callbackUrl: string,
  max = BODY_MAX_CHARS,
  withInstruction = true,
): string {
  const head = `[${short}] `;
  // SELECT lists may use up to two thirds of the room; the question keeps the rest.
  const how = withInstruction ? `\n\n${instruction(q, callbackUrl, Math.floor((max * 2) / 3))}` : '';
  const room = max - head.length - how.length;
  if (q.text.length <= room) return `${head}${q.text}${how}`;
  const more = ` (full question: ${callbackUrl})`;
  return `${head}${cutUnits(q.text, room - more.length)}${more}${how}`;
}

/** The quick-reply buttons for a WhatsApp message, or null when the question needs more than buttons allow. */
export function quickReplies(q: ChannelQuestion, short: string): { title: string; id: string }[] | null {
  const labels =
    q.format === 'CONFIRM'
      ? ['Yes', 'No']
      : q.format === 'APPROVAL'
        ? ['Approve', 'Reject']
        : q.format === 'SELECT'
          ? (q.options ?? [])
          : null;
  if (!labels || labels.length === 0 || labels.length > QUICK_REPLY_MAX_BUTTONS) return null;
  if (labels.some((l) => l.trim() === '' || l.length > QUICK_REPLY_TITLE_MAX_CHARS)) return null;
  return labels.map((title, i) => ({ title, id: `tai:${short}:${i + 1}` }));
}

/** A button press arrives as its payload; it reads like the typed reply "K72 2". */
export function payloadAsReply(payload: string | null): string | null {
  const m = payload === null ? null : /^tai:([A-Z][2-9]{2}):(\d{1,3})$/.exec(payload);
  return m ? `${m[1]} ${m[2]}` : null;
}

/** The reference a reply starts with ("K72 2", "[k72] yes", "K72: …"), and what follows it. */
export function splitReply(body: string): { short: string | null; rest: string } {
  const m = /^\s*\[?([A-Za-z][2-9]{2})\]?(?:$|[\s:.,;)-]+)/.exec(body);
  if (!m) return { short: null, rest: body.trim() };
  return { short: m[1]!.toUpperCase(), rest: body.slice(m[0].length).trim() };
}

/** A yes or no word (one vocabulary, src/domain/yes-no.ts), or the option keys 1 and 2 of the message. */
function yesNoReply(word: string): boolean | undefined {
  return word === '1' ? true : word === '2' ? false : yesOrNo(word);
}

/** Carrier keywords Twilio acts on itself (opt-out and help); never read as answers. */
export const RESERVED = new Set([
  'stop',
  'stopall',
  'unsubscribe',
  'cancel',
  'end',
  'quit',
  'start',
  'unstop',
  'help',
  'info',
]);

function normalized(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[.!]+$/, '');
}

/** The answer a reply gives to a question of this format; undefined when it gives none. */
export function answerFromReply(q: ChannelQuestion, text: string): unknown {
  const word = normalized(text);
  switch (q.format) {
    case 'CONFIRM':
      return yesNoReply(word);
    case 'SELECT': {
      const options = q.options ?? [];
      if (/^\d{1,3}$/.test(word)) return options[Number(word) - 1];
      const exact = options.filter((o) => o.trim().toLowerCase() === word);
      return exact.length === 1 ? exact[0] : options.find((o) => o.trim() === text.trim());
    }
    case 'TEXT':
      return text.trim() === '' || q.sensitive ? undefined : text;
    case 'APPROVAL': {
      const yes = yesNoReply(word);
      return yes === undefined ? undefined : { decision: yes ? 'APPROVED' : 'REJECTED' };
    }
    case 'FORM':
    case 'EXTERNAL':
      // The message links the answer page for these: a text cannot carry their JSON.
      return undefined;
    default:
      q.format satisfies never;
      return undefined;
  }
}

/** What to send, so the person knows how to answer this question. */
export function howToAnswer(q: ChannelQuestion, short: string): string {
  switch (q.format) {
    case 'CONFIRM':
      return `Reply "${short} 1" for Yes or "${short} 2" for No.`;
    case 'APPROVAL':
      return `Reply "${short} 1" to Approve or "${short} 2" to Reject.`;
    case 'SELECT':
      return `Reply "${short}" and a number from 1 to ${q.options?.length ?? 0}, e.g. "${short} 1".`;
    case 'TEXT':
      return q.sensitive
        ? `${short} is sensitive and is not answered by text: use the page linked in its message, and delete your reply.`
        : `Reply "${short}" followed by your answer.`;
    case 'FORM':
    case 'EXTERNAL':
      return `${short} cannot be answered by text: use the link in its message.`;
    default:
      q.format satisfies never;
      return `${short} cannot be answered by text: use the link in its message.`;
  }
}
