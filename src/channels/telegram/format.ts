// Telegram messages for a question (API.md §9): HTML parse mode with the question's text escaped,
// an inline keyboard for CONFIRM/SELECT, ForceReply for TEXT, URL buttons for FORM/EXTERNAL.
import { presentOn } from '../../domain/presentation.ts';
import { answerLine, inboxOutcome } from '../answer-line.ts';
import { cutUnits } from '../cut-text.ts';
import type { ChannelQuestion } from '../types.ts';

/** Telegram's limits: message text (after entity parsing), callback_data bytes, answerCallbackQuery text. */
export const TEXT_MAX_CHARS = 4096;
export const CALLBACK_DATA_MAX_BYTES = 64;
export const NOTICE_MAX_CHARS = 200;
/** Labels longer than this are cut; a row holds at most this many characters of labels (a phone's width). */
export const LABEL_MAX_CHARS = 40;
const ROW_MAX_CHARS = 30;
const ROW_MAX_BUTTONS = 3;

/** callback_data: `tai:{index}`. The question is named by the message the button is on, which Telegram attests. */
export const CALLBACK_PREFIX = 'tai:';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Untrusted text for HTML parse mode: nothing an agent writes can become a tag, link or mention. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ENTITIES[c]!);
}

/**
 * The question's text as HTML with an optional trailing line (already HTML), kept within
 * Telegram's 4,096 visible characters: a longer text is cut and ends with a link to the answer page.
 * `tailVisible` is how many characters the tail shows once its tags are parsed.
 */
export function messageHtml(text: string, callbackUrl: string | null, tail = '', tailVisible = 0): string {
  const more = '\n\n… the full question is on the answer page';
  const room = TEXT_MAX_CHARS - tailVisible;
  if (text.length <= room) return `${escapeHtml(text)}${tail}`;
  // An edit has no callback URL at hand: the text is only cut there.
  if (callbackUrl === null) return `${escapeHtml(cutUnits(text, room))}${tail}`;
  const link = `\n\n… <a href="${escapeHtml(callbackUrl)}">the full question is on the answer page</a>`;
  return `${escapeHtml(cutUnits(text, room - more.length))}${link}${tail}`;
}

type Button = { text: string; callback_data: string } | { text: string; url: string };
export type ReplyMarkup =
  | { inline_keyboard: Button[][] }
  | { force_reply: true; input_field_placeholder: string };

function label(text: string): string {
  // Button labels are plain text (no parse mode); only their length is ours to bound.
  return cutUnits(text.replace(/\s+/g, ' ').trim() || '—', LABEL_MAX_CHARS);
}

/** Buttons packed into rows that fit a phone: short labels share a row, long ones get their own. */
export function rows(buttons: Button[]): Button[][] {
  const out: Button[][] = [];
  let row: Button[] = [];
  let width = 0;
  for (const b of buttons) {
    if (row.length > 0 && (row.length >= ROW_MAX_BUTTONS || width + b.text.length > ROW_MAX_CHARS)) {
      out.push(row);
      row = [];
      width = 0;
    }
    row.push(b);
    width += b.text.length;
  }
  if (row.length > 0) out.push(row);
  return out;
}

export function replyMarkup(q: ChannelQuestion, callbackUrl: string): ReplyMarkup {
  switch (q.format) {
    case 'CONFIRM':
      return {
        inline_keyboard: [
          [
            { text: 'Yes', callback_data: `${CALLBACK_PREFIX}1` },
            { text: 'No', callback_data: `${CALLBACK_PREFIX}0` },
          ],
        ],
      };
    case 'SELECT':
      return {
        inline_keyboard: rows(
          (q.options ?? []).map((option, i) => ({
            text: label(option),
            callback_data: `${CALLBACK_PREFIX}${i}`,
          })),
        ),
      };
    case 'TEXT':
      // A sensitive answer typed into the chat would stay in its history, visible to every
      // member: it is asked for on the answer page (our page, nothing left in the chat).
      if (q.sensitive) return { inline_keyboard: [[{ text: 'Answer privately', url: callbackUrl }]] };
      return { force_reply: true, input_field_placeholder: 'Your answer' };
    case 'FORM':
      return { inline_keyboard: [[{ text: 'Open form', url: callbackUrl }]] };
    case 'APPROVAL': {
      const keyboard: Button[][] = [
        [
          { text: 'Approve', callback_data: `${CALLBACK_PREFIX}1` },
          { text: 'Reject', callback_data: `${CALLBACK_PREFIX}0` },
        ],
      ];
      // Edits need a form: the answer page has it.
      if (q.action?.editable) keyboard.push([{ text: 'Edit and approve', url: callbackUrl }]);
      return { inline_keyboard: keyboard };
    }
    case 'EXTERNAL':
      return { inline_keyboard: [[{ text: 'Open', url: q.link ?? callbackUrl }]] };
    default:
      // A format this build does not know (a newer server's record): its answer page shows it.
      q.format satisfies never;
      return { inline_keyboard: [[{ text: 'Open', url: callbackUrl }]] };
  }
}

/**
 * APPROVAL: the lines under the question (HTML) that say what would run — the action's name and
 * summary, and its arguments as JSON, cut to a bound — and how many characters they show.
 */
export function actionTail(q: ChannelQuestion): { html: string; visible: number } {
  const a = q.action;
  if (!a) return { html: '', visible: 0 };
  // One presentation object: what the message shows is what presentedDigest digests (API.md §23).
  const p = presentOn('telegram', a, a.arguments);
  const head = `${p.name}${p.summary ? ` — ${p.summary}` : ''}`;
  const args = p.argumentsText;
  return {
    html: `\n\n<b>${escapeHtml(head)}</b>\n<pre>${escapeHtml(args)}</pre>`,
    visible: head.length + args.length + 3,
  };
}

/** The line under a sensitive TEXT question (HTML), and how many characters it shows. */
export const SENSITIVE_TAIL =
  '\n\n<i>This answer is sensitive: answer it privately with the button below, not in this chat.</i>';
export const SENSITIVE_TAIL_VISIBLE = SENSITIVE_TAIL.length - '<i></i>'.length;

/** The option index in a button's callback_data, or null when it is not one of ours. */
export function parseCallbackData(data: string): number | null {
  const m = /^tai:(\d{1,3})$/.exec(data);
  return m ? Number(m[1]) : null;
}

/** The resolution line appended when the message is edited (plain text, escaped by the caller). */
export function resolvedLine(q: ChannelQuestion, channelName: string): string {
  if (q.status === 'TIMED_OUT') return 'Timed out';
  if (q.status === 'CANCELLED') return q.cancelReason ? `Cancelled: ${q.cancelReason}` : 'Cancelled';
  if (q.sensitive) return 'Answered';
  const answer = answerLine(q);
  const by = q.answeredBy ?? '';
  const prefix = `${channelName}:`;
  if (by.startsWith(prefix))
    return `Answered by ${q.answeredByName || `user ${by.slice(prefix.length)}`}: ${answer}`;
  if (by === 'callback') return `Answered on the answer page: ${answer}`;
  return `Answered in the inbox by ${q.answeredByName || by || 'someone'}${inboxOutcome(q)}`;
}
