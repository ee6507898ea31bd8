// A question as an e-mail (API.md §9.1): a plain-text and an HTML part built from the same
// pieces, the question's text escaped for HTML, one link per choice for CONFIRM and SELECT
// (each opens the callback page with that choice selected; the person's click there answers)
// and one link to the answer page for the rest. The reference goes in the subject.
import { presentOn } from '../../domain/presentation.ts';
import { answerLine, inboxOutcome } from '../answer-line.ts';
import type { ChannelQuestion } from '../types.ts';

/** The subject shows the start of the question; the whole text is in the body. */
export const SUBJECT_TEXT_MAX_CHARS = 100;

export interface MailLink {
  label: string;
  url: string;
}

export interface Mail {
  subject: string;
  text: string;
  html: string;
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** One line, no control characters (an agent's text never becomes a header of its own), cut short. */
export function subjectText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const line = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  const chars = [...line];
  return chars.length > SUBJECT_TEXT_MAX_CHARS
    ? `${chars.slice(0, SUBJECT_TEXT_MAX_CHARS - 1).join('')}…`
    : line;
}

/** `{callbackUrl}?choice=<n>`: the confirm page with that choice selected (src/domain/choice-link.ts). */
export function choiceUrl(callbackUrl: string, index: number): string {
  return `${callbackUrl}?choice=${index}`;
}

/** The links the mail offers, and the sentence that introduces them. */
export function linksFor(q: ChannelQuestion, callbackUrl: string): { intro: string; links: MailLink[] } {
  switch (q.format) {
    case 'CONFIRM':
      return {
        intro: 'Choose your answer:',
        links: [
          { label: 'Yes', url: choiceUrl(callbackUrl, 1) },
          { label: 'No', url: choiceUrl(callbackUrl, 0) },
        ],
      };
    case 'APPROVAL':
      return {
        intro: 'Approve or reject:',
        links: [
          { label: 'Approve', url: choiceUrl(callbackUrl, 1) },
          { label: 'Reject', url: choiceUrl(callbackUrl, 0) },
          // Edits need the form from argumentsSchema: the callback page has it (API.md §15).
          ...(q.action?.editable ? [{ label: 'Edit and approve', url: callbackUrl }] : []),
        ],
      };
    case 'SELECT':
      return {
        intro: 'Choose your answer:',
        links: (q.options ?? []).map((label, i) => ({ label, url: choiceUrl(callbackUrl, i) })),
      };
    case 'EXTERNAL':
      return { intro: 'Open the page to answer:', links: [{ label: 'Open', url: q.link ?? callbackUrl }] };
    case 'FORM':
      return { intro: 'Fill in your answer on this page:', links: [{ label: 'Answer', url: callbackUrl }] };
    case 'TEXT':
      return {
        intro: q.sensitive
          ? 'This answer is sensitive: type it on this page, never in a reply:'
          : 'Type your answer on this page:',
        links: [{ label: 'Answer', url: callbackUrl }],
      };
    default:
      // A format this build does not know (a newer server's record): its answer page shows it.
      q.format satisfies never;
      return { intro: 'Answer on this page:', links: [{ label: 'Answer', url: callbackUrl }] };
  }
}

const FOOTER = 'Each link opens a page where you confirm; nothing is answered until you press its button.';

/** Longest argument value shown in a mail; the callback page shows them whole. */
export const ARGUMENT_VALUE_MAX_CHARS = 500;

/** An APPROVAL's action as lines: its name, summary and one `name: value` line per argument. */
export function actionLines(q: ChannelQuestion): string[] {
  const a = q.action;
  if (!a) return [];
  // One presentation object: what the mail shows is what presentedDigest digests (API.md §23).
  const p = presentOn('email', a, a.arguments);
  const values =
    typeof p.arguments === 'string'
      ? null
      : Object.entries(p.arguments).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]);
  // One `name: value` line per argument when every value fits whole; else the (perhaps cut) JSON.
  const args = values?.every(([, v]) => [...(v ?? '')].length <= ARGUMENT_VALUE_MAX_CHARS)
    ? values!.map(([k, v]) => `  ${k}: ${v}`)
    : p.argumentsText.split('\n').map((line) => `  ${line}`);
  return [`Action: ${p.name}`, ...(p.summary ? [p.summary] : []), 'Arguments:', ...args];
}

export function questionMail(q: ChannelQuestion, callbackUrl: string, ref: string): Mail {
  const { intro, links } = linksFor(q, callbackUrl);
  const action = actionLines(q);
  const text = [
    q.text,
    '',
    ...(action.length ? [...action, ''] : []),
    intro,
    ...links.map((l) => `${l.label}: ${l.url}`),
    '',
    `${FOOTER} Reference: ${ref}`,
    '',
  ].join('\n');
  const buttons = links
    .map(
      (l) =>
        `<a href="${escapeHtml(l.url)}" style="display:inline-block;margin:0 8px 8px 0;padding:8px 16px;border-radius:6px;background:#2563eb;color:#ffffff;text-decoration:none;font-weight:600">${escapeHtml(l.label)}</a>`,
    )
    .join('');
  const html = page(
    `<p style="white-space:pre-wrap;margin:0 0 16px">${escapeHtml(q.text)}</p>` +
      (action.length
        ? `<pre style="white-space:pre-wrap;margin:0 0 16px">${escapeHtml(action.join('\n'))}</pre>`
        : '') +
      `<p style="margin:0 0 8px">${escapeHtml(intro)}</p><p style="margin:0 0 16px">${buttons}</p>` +
      `<p style="color:#666666;font-size:12px;margin:0">${escapeHtml(FOOTER)} Reference: ${escapeHtml(ref)}</p>`,
  );
  return { subject: `[${ref}] ${subjectText(q.text)}`, text, html };
}

/** The follow-up after resolution (only when `notifyOnResolved`); `line` never holds a sensitive answer. */
export function resolvedMail(q: ChannelQuestion, ref: string, line: string): Mail {
  return {
    subject: `Re: [${ref}] ${subjectText(q.text)}`,
    text: `${line}\n\n${q.text}\n\nReference: ${ref}\n`,
    html: page(
      `<p style="font-weight:600;margin:0 0 16px">${escapeHtml(line)}</p>` +
        `<p style="white-space:pre-wrap;color:#444444;margin:0 0 16px">${escapeHtml(q.text)}</p>` +
        `<p style="color:#666666;font-size:12px;margin:0">Reference: ${escapeHtml(ref)}</p>`,
    ),
  };
}

function page(body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"></head><body style="font-family:system-ui,sans-serif;line-height:1.5">${body}</body></html>`;
}

/** What the follow-up says: who answered what, or how it closed. A sensitive answer: "Answered". */
export function resolvedLine(q: ChannelQuestion, channelName: string): string {
  if (q.status === 'TIMED_OUT') return 'Timed out';
  if (q.status === 'CANCELLED') return q.cancelReason ? `Cancelled: ${q.cancelReason}` : 'Cancelled';
  if (q.sensitive) return 'Answered';
  const by = q.answeredBy ?? '';
  const prefix = `${channelName}:`;
  if (by.startsWith(prefix)) return `Answered by ${by.slice(prefix.length)}: ${answerLine(q)}`;
  if (by === 'callback') return `Answered on the answer page: ${answerLine(q)}`;
  return `Answered in the inbox by ${by || 'someone'}${inboxOutcome(q)}`;
}
