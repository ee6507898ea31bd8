// Discord messages for a question, per format (API.md §9.1's table): the escaped text as the
// message content and components for the answer; the modals for TEXT and flat FORMs; and the
// message once the question is closed. Every custom_id carries the question id and an option
// index, never the callback ticket.
import { ONE_HOUR_GRANT_LABEL } from '../../domain/policy/grant.ts';
import { presentOn } from '../../domain/presentation.ts';
import { yesOrNo } from '../../domain/yes-no.ts';
import { type FormField, formFields as flatFields } from '../slack/blocks.ts';
import type { ChannelQuestion } from '../types.ts';

/** Discord's limits for what we send (https://discord.com/developers/docs/components/reference). */
export const DISCORD_LIMITS = {
  content: 2000,
  rows: 5,
  buttonsPerRow: 5,
  buttonLabel: 80,
  customId: 100,
  buttonUrl: 512,
  selectOptions: 25,
  optionLabel: 100,
  placeholder: 150,
  modalTitle: 45,
  modalRows: 5,
  inputLabel: 45,
  inputPlaceholder: 100,
  inputMaxLength: 4000,
} as const;
const L = DISCORD_LIMITS;

/** Component types, button styles, message flags. */
export const ROW = 1;
export const BUTTON = 2;
export const STRING_SELECT = 3;
export const TEXT_INPUT = 4;
const PRIMARY = 1;
const SECONDARY = 2;
const SUCCESS = 3;
const DANGER = 4;
const LINK = 5;
/** No link previews for whatever URL the question's text holds. */
export const SUPPRESS_EMBEDS = 1 << 2;
export const EPHEMERAL = 1 << 6;

/** Where a custom_id points: `tai:c:{id}:{0|1}`, `tai:s:{id}:{i}`, `tai:m:{id}:{menu}`, `tai:t:{id}`, `tai:f:{id}`, `tai:x:{id}`. */
export const KIND = {
  confirm: 'c',
  selectButton: 's',
  selectMenu: 'm',
  openText: 't',
  openForm: 'f',
  modal: 'x',
} as const;
export const TEXT_FIELD = 'v';
export const FIELD_PREFIX = 'f:';

type Obj = Record<string, unknown>;

// Discord's markdown, mentions, masked links and emoji codes: every control character is
// escaped with a backslash, so nothing an agent writes formats, pings or links.
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\*_~`|>#\-[\]()<:@!.]/g, (c) => `\\${c}`);
}

/** Plain text cut to `max` code points, with an ellipsis. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** The escaped text in at most `max` code points, cut after escaping but never inside an escape. */
export function escapedCut(text: string, max: number): string {
  const whole = escapeMarkdown(text);
  if ([...whole].length <= max) return whole;
  let out = '';
  let n = 0;
  for (const ch of text) {
    const piece = escapeMarkdown(ch);
    const size = [...piece].length;
    if (n + size > max - 1) break;
    out += piece;
    n += size;
  }
  return `${out}…`;
}

const button = (label: string, customId: string, style = SECONDARY): Obj => ({
  type: BUTTON,
  style,
  label: cut(label, L.buttonLabel),
  custom_id: customId,
});
const linkButton = (label: string, url: string): Obj => ({ type: BUTTON, style: LINK, label, url });
const row = (components: Obj[]): Obj => ({ type: ROW, components });

/**
 * The fields Discord can show as a modal (a flat schema, at most five): a FORM's, or an editable
 * APPROVAL's arguments schema; else null.
 */
export function modalFields(q: ChannelQuestion): FormField[] | null {
  const schema =
    q.format === 'FORM'
      ? q.schema
      : q.format === 'APPROVAL' && q.action?.editable
        ? q.action.argumentsSchema
        : null;
  const fields = flatFields(schema);
  return fields !== null && fields.length <= L.modalRows ? fields : null;
}

function selectRows(q: ChannelQuestion): Obj[] {
  const options = q.options ?? [];
  if (options.length <= L.buttonsPerRow) {
    return [row(options.map((o, i) => button(o === '' ? '""' : o, `tai:${KIND.selectButton}:${q.id}:${i}`)))];
  }
  // Up to 25 options per menu; validation caps options at 100, so four menus at most.
  const menus: Obj[] = [];
  for (let start = 0; start < options.length && menus.length < L.rows; start += L.selectOptions) {
    const chunk = options.slice(start, start + L.selectOptions);
    const many = options.length > L.selectOptions;
    menus.push(
      row([
        {
          type: STRING_SELECT,
          custom_id: `tai:${KIND.selectMenu}:${q.id}:${menus.length}`,
          placeholder: many ? `Choose one (${start + 1}–${start + chunk.length})` : 'Choose one',
          min_values: 1,
          max_values: 1,
          options: chunk.map((o, i) => ({
            label: o === '' ? '""' : cut(o, L.optionLabel),
            value: String(start + i),
          })),
        },
      ]),
    );
  }
  return menus;
}

function answerRows(q: ChannelQuestion, callbackUrl: string): Obj[] {
  switch (q.format) {
    case 'CONFIRM':
      return [
        row([
          button('Yes', `tai:${KIND.confirm}:${q.id}:1`, SUCCESS),
          button('No', `tai:${KIND.confirm}:${q.id}:0`),
        ]),
      ];
    case 'SELECT':
      return selectRows(q);
    case 'TEXT':
      return [row([button('Answer', `tai:${KIND.openText}:${q.id}`, PRIMARY)])];
    case 'FORM':
      // The answer page's form stays one click away beside the modal; a schema Discord cannot
      // show as a modal gets only the page.
      return modalFields(q) !== null
        ? [
            row([
              button('Open form', `tai:${KIND.openForm}:${q.id}`, PRIMARY),
              linkButton('Open in browser', callbackUrl),
            ]),
          ]
        : [row([linkButton('Open form', callbackUrl)])];
    case 'APPROVAL':
      // The confirm buttons' ids (1 approves, 0 rejects); an editable flat schema also opens a
      // prefilled modal; the whole action, and any other edit, on the page.
      return [
        row([
          button('Approve', `tai:${KIND.confirm}:${q.id}:1`, SUCCESS),
          // 2: approve and allow the same for an hour (API.md §20).
          ...(q.grantable ? [button(ONE_HOUR_GRANT_LABEL, `tai:${KIND.confirm}:${q.id}:2`, SECONDARY)] : []),
          button('Reject', `tai:${KIND.confirm}:${q.id}:0`, DANGER),
          ...(modalFields(q) !== null
            ? [button('Edit and approve', `tai:${KIND.openForm}:${q.id}`, PRIMARY)]
            : []),
          linkButton(q.action?.editable ? 'Edit in browser' : 'Details', callbackUrl),
        ]),
      ];
    case 'EXTERNAL':
      return [row([linkButton('Open', q.link ?? callbackUrl)])];
    default:
      // A format this build does not know (a newer server's record): its answer page shows it.
      q.format satisfies never;
      return [row([linkButton('Open', callbackUrl)])];
  }
}

/** APPROVAL: the question's text, then the action and its arguments as JSON on one line. */
function textWithAction(q: ChannelQuestion): string {
  const a = q.action;
  if (!a) return q.text;
  // One presentation object: what the message shows is what presentedDigest digests (API.md §23).
  const p = presentOn('discord', a, a.arguments);
  return `${q.text}\n\n${p.name}${p.summary ? ` — ${p.summary}` : ''}: ${p.argumentsText}`;
}

/** The message that asks: content, components, no pings, no previews. */
export function questionMessage(q: ChannelQuestion, callbackUrl: string): Obj {
  return {
    content: escapedCut(textWithAction(q), L.content),
    components: answerRows(q, callbackUrl),
    allowed_mentions: { parse: [] },
    flags: SUPPRESS_EMBEDS,
  };
}

/**
 * An escalation REMIND (API.md §18): a reply to the question's message (`message_reference`, so
 * Discord shows the original above it with a jump link) saying it still waits, and the question's
 * own components, so the person answers from the reminder they were just notified of. A click
 * there after the question closed shows how it ended, as on the original. Still no pings.
 */
export function reminderMessage(
  q: ChannelQuestion,
  callbackUrl: string,
  original: { channel: string; message: string },
): Obj {
  const prefix = 'Reminder: still waiting for an answer to "';
  const room = L.content - [...prefix].length - 1;
  return {
    content: `${prefix}${escapedCut(q.text, room)}"`,
    components: answerRows(q, callbackUrl),
    // Sent even when the original was deleted: the reminder carries what answers the question.
    message_reference: {
      message_id: original.message,
      channel_id: original.channel,
      fail_if_not_exists: false,
    },
    allowed_mentions: { parse: [], replied_user: false },
    flags: SUPPRESS_EMBEDS,
  };
}

/** The message once closed: the text, then how it ended; no components left to click. */
export function resolvedMessage(q: ChannelQuestion, line: string): Obj {
  const room = L.content - [...line].length - 2;
  return {
    content: `${escapedCut(q.text, Math.max(room, 1))}\n\n${line}`,
    components: [],
    allowed_mentions: { parse: [] },
    flags: SUPPRESS_EMBEDS,
  };
}

/** An ephemeral reply that only the person who clicked sees. */
export function ephemeral(text: string): Obj {
  return { content: cut(text, L.content), flags: EPHEMERAL, allowed_mentions: { parse: [] } };
}

function hint(field: FormField): string | undefined {
  if (field.kind === 'boolean') return 'yes or no';
  if (field.kind === 'number') return 'a number';
  if (field.kind === 'integer') return 'a whole number';
  if (field.kind === 'enum') return cut(`one of: ${field.values.map(String).join(', ')}`, L.inputPlaceholder);
  return undefined;
}

/** The modal for a TEXT question, or a FORM whose schema is flat with at most five fields; else null. */
export function questionModal(q: ChannelQuestion): Obj | null {
  const custom_id = `tai:${KIND.modal}:${q.id}`;
  if (q.format === 'TEXT') {
    return {
      custom_id,
      title: 'Answer',
      components: [
        row([
          {
            type: TEXT_INPUT,
            custom_id: TEXT_FIELD,
            style: 2,
            label: 'Your answer',
            required: true,
            max_length: L.inputMaxLength,
          },
        ]),
      ],
    };
  }
  const fields = modalFields(q);
  if (fields === null) return null;
  // An APPROVAL's modal is prefilled with the proposal; submitting it approves what it holds.
  const proposal = q.format === 'APPROVAL' ? (q.action?.arguments ?? {}) : null;
  return {
    custom_id,
    title: proposal ? 'Edit and approve' : 'Answer',
    components: fields.map((field, i) => {
      const placeholder = hint(field);
      const initial = proposal ? initialText(proposal[field.name]) : undefined;
      return row([
        {
          type: TEXT_INPUT,
          custom_id: `${FIELD_PREFIX}${i}`,
          style: 1,
          label: cut(field.label, L.inputLabel),
          required: field.required,
          max_length: L.inputMaxLength,
          ...(placeholder ? { placeholder } : {}),
          ...(initial !== undefined ? { value: initial } : {}),
        },
      ]);
    }),
  };
}

/** A proposed argument as a text input's prefill (as `fieldValue` reads it back); none when absent. */
function initialText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  const text =
    typeof value === 'string' ? value : typeof value === 'number' ? String(value) : JSON.stringify(value);
  // A prefill longer than the input allows would make Discord refuse the whole modal.
  return [...text].length <= L.inputMaxLength ? text : undefined;
}

/** Typed text of a modal field as the value its schema asks for; what does not fit stays text (and fails validation). */
function fieldValue(field: FormField, raw: string): unknown {
  const text = raw.trim();
  if (field.kind === 'number' || field.kind === 'integer') {
    const n = Number(text);
    return text !== '' && Number.isFinite(n) ? n : raw;
  }
  if (field.kind === 'boolean') {
    // The one yes/no vocabulary (src/domain/yes-no.ts), and the digits a switch shows.
    const yes = text === '1' ? true : text === '0' ? false : yesOrNo(text);
    return yes ?? raw;
  }
  if (field.kind === 'enum') {
    const found = field.values.find((v) => String(v) === text);
    return found === undefined ? raw : found;
  }
  return raw;
}

/** A modal submission's values (custom_id → text) as the question's answer; undefined when it does not answer it. */
export function modalAnswer(q: ChannelQuestion, values: ReadonlyMap<string, string>): unknown {
  if (q.format === 'TEXT') return values.get(TEXT_FIELD);
  const fields = modalFields(q);
  if (fields === null) return undefined;
  const out: Record<string, unknown> = {};
  fields.forEach((field, i) => {
    const raw = values.get(`${FIELD_PREFIX}${i}`);
    if (raw === undefined || raw === '') return;
    out[field.name] = fieldValue(field, raw);
  });
  // An APPROVAL's modal approves the arguments as edited (checked against the schema by the engine).
  return q.format === 'APPROVAL' ? { decision: 'APPROVED', arguments: out } : out;
}
