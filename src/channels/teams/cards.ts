// Adaptive Cards for a question, per format (API.md §9.1's table): the question as plain text runs
// (a TextRun renders no markdown, so nothing an agent writes formats, mentions or links), then
// Action.Submit buttons for the choices, inputs for TEXT and flat FORMs, Action.OpenUrl for the rest.
// Every submit carries the question id and an option index, never the callback ticket.
import { ONE_HOUR_GRANT_LABEL } from '../../domain/policy/grant.ts';
import { presentOn } from '../../domain/presentation.ts';
import { type FormField, formFields } from '../slack/blocks.ts';
import type { ChannelQuestion } from '../types.ts';

export const CARD_CONTENT_TYPE = 'application/vnd.microsoft.card.adaptive';
/** What Teams renders (https://learn.microsoft.com/microsoftteams/platform/task-modules-and-cards/cards/cards-reference). */
const VERSION = '1.4';
/** Buttons beyond this many wrap badly in Teams; more options become a choice set. */
export const BUTTONS_MAX = 5;
export const TEXT_MAX_CHARS = 4000;
/** Longest button title we send. */
const TITLE_MAX = 80;
/** APPROVAL: the arguments shown as facts; the rest are on the answer page. */
export const FACTS_MAX = 30;
const FACT_TITLE_MAX = 100;
const FACT_VALUE_MAX = 500;
/**
 * The most a question's card may weigh, counted as Teams counts a message: its JSON encoded as
 * UTF-16. Teams refuses a message over about 100 KB with 413 MessageSizeTooBig and advises
 * staying within 80 KB (learn.microsoft.com, "Format your bot messages"); the activity around the
 * card adds a few hundred bytes more.
 */
export const CARD_MAX_UTF16_BYTES = 80 * 1024;
/** The question's text in a card that fell back to the answer page's link. */
const FALLBACK_TEXT_MAX = 4000;

/** The `tai` field of a submit: which control sent it. */
export const SUBMIT = { confirm: 'c', select: 's', choice: 'm', text: 't', form: 'f', approve: 'a' } as const;
export const TEXT_INPUT = 'tai_text';
export const CHOICE_INPUT = 'tai_choice';
export const FIELD_PREFIX = 'f_';

type Obj = Record<string, unknown>;

export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

const plain = (text: string, extra: Obj = {}): Obj => ({
  type: 'RichTextBlock',
  inlines: [{ type: 'TextRun', text, ...extra }],
});
const submit = (title: string, data: Obj): Obj => ({
  type: 'Action.Submit',
  title: cut(title, TITLE_MAX),
  data,
});
const openUrl = (title: string, url: string): Obj => ({ type: 'Action.OpenUrl', title, url });
const card = (body: Obj[], actions: Obj[]): Obj => ({
  type: 'AdaptiveCard',
  $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
  version: VERSION,
  body,
  ...(actions.length ? { actions } : {}),
});

/** The fields of a FORM Teams can show as inputs (a flat schema), else null. */
export function cardFields(q: ChannelQuestion): FormField[] | null {
  return q.format === 'FORM' ? formFields(q.schema) : null;
}

function fieldInput(field: FormField, i: number): Obj {
  const base = { id: `${FIELD_PREFIX}${i}`, label: cut(field.label, 200), isRequired: field.required };
  switch (field.kind) {
    case 'string':
      return { type: 'Input.Text', ...base, maxLength: TEXT_MAX_CHARS };
    case 'number':
    case 'integer':
      return { type: 'Input.Number', ...base };
    case 'boolean':
      return {
        type: 'Input.Toggle',
        ...base,
        title: cut(field.label, 200),
        valueOn: 'true',
        valueOff: 'false',
        value: 'false',
      };
    default:
      return {
        type: 'Input.ChoiceSet',
        ...base,
        style: 'compact',
        choices: field.values.map((v, n) => ({ title: cut(String(v) || '""', TITLE_MAX), value: String(n) })),
      };
  }
}

function answerParts(q: ChannelQuestion, callbackUrl: string): { inputs: Obj[]; actions: Obj[] } {
  switch (q.format) {
    case 'CONFIRM':
      return {
        inputs: [],
        actions: [
          submit('Yes', { tai: SUBMIT.confirm, q: q.id, i: 1 }),
          submit('No', { tai: SUBMIT.confirm, q: q.id, i: 0 }),
        ],
      };
    case 'SELECT': {
      const options = q.options ?? [];
      if (options.length <= BUTTONS_MAX) {
        return {
          inputs: [],
          actions: options.map((o, i) => submit(o || '""', { tai: SUBMIT.select, q: q.id, i })),
        };
      }
      return {
        inputs: [
          {
            type: 'Input.ChoiceSet',
            id: CHOICE_INPUT,
            style: 'compact',
            isRequired: true,
            label: 'Choose one',
            choices: options.map((o, i) => ({ title: cut(o || '""', TITLE_MAX), value: String(i) })),
          },
        ],
        actions: [submit('Answer', { tai: SUBMIT.choice, q: q.id })],
      };
    }
    case 'TEXT':
      return {
        inputs: [
          {
            type: 'Input.Text',
            id: TEXT_INPUT,
            label: 'Your answer',
            isMultiline: true,
            isRequired: true,
            maxLength: TEXT_MAX_CHARS,
          },
        ],
        actions: [submit('Send', { tai: SUBMIT.text, q: q.id })],
      };
    case 'FORM': {
      const fields = cardFields(q);
      // The answer page's form stays one click away beside the inputs.
      if (fields === null) return { inputs: [], actions: [openUrl('Open form', callbackUrl)] };
      return {
        inputs: fields.map(fieldInput),
        actions: [submit('Submit', { tai: SUBMIT.form, q: q.id }), openUrl('Open in browser', callbackUrl)],
      };
    }
    case 'APPROVAL':
      // Approve / Reject vote or decide through the inbound door; edits happen on the answer page.
      return {
        inputs: [],
        actions: [
          submit('Approve', { tai: SUBMIT.approve, q: q.id, i: 1 }),
          // i 2: approve and allow the same for an hour (API.md §20).
          ...(q.grantable ? [submit(ONE_HOUR_GRANT_LABEL, { tai: SUBMIT.approve, q: q.id, i: 2 })] : []),
          submit('Reject', { tai: SUBMIT.approve, q: q.id, i: 0 }),
          ...(q.action?.editable ? [openUrl('Edit on the web', callbackUrl)] : []),
        ],
      };
    case 'EXTERNAL':
      return { inputs: [], actions: [openUrl('Open', q.link ?? callbackUrl)] };
    default:
      // A format this build does not know (a newer server's record): its answer page shows it.
      q.format satisfies never;
      return { inputs: [], actions: [openUrl('Open', callbackUrl)] };
  }
}

/** An argument's value as a fact: strings as they are, anything else (numbers, nested) as JSON. */
function factValue(value: unknown): string {
  return cut(factText(value), FACT_VALUE_MAX);
}

function factText(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
  return text || '""';
}

/** APPROVAL: the action's name (bold) and summary, then its arguments as a FactSet. */
export function actionBlocks(q: ChannelQuestion): Obj[] {
  const a = q.format === 'APPROVAL' ? q.action : null;
  if (!a) return [];
  // One presentation object: what the card shows is what presentedDigest digests (API.md §23).
  const p = presentOn('teams', a, a.arguments);
  const entries = typeof p.arguments === 'string' ? null : Object.entries(p.arguments);
  const facts = entries?.map(([k, v]) => ({ title: k, value: factValue(v) }));
  // A FactSet only when it shows every argument whole; else the (perhaps cut) JSON line.
  const whole =
    facts !== undefined &&
    facts.length <= FACTS_MAX &&
    facts.every((f, i) => f.title.length <= FACT_TITLE_MAX && f.value === factText(entries![i]![1]));
  return [
    plain(p.name, { weight: 'bolder' }),
    ...(p.summary ? [plain(p.summary)] : []),
    ...(whole && facts.length ? [{ type: 'FactSet', facts }] : []),
    ...(!whole && p.argumentsText ? [plain(p.argumentsText)] : []),
  ];
}

/** A card's size as Teams counts it: a JS string's length is its count of UTF-16 code units. */
export const utf16Bytes = (value: unknown): number => JSON.stringify(value).length * 2;

/**
 * The question's card; when it would weigh more than Teams takes (a FORM of fifty enums of fifty
 * values is about 235 KB), the question and one link to the answer page instead, as Slack's
 * modal falls back to its link: the person still gets the question, and answers it there.
 */
export function questionCard(q: ChannelQuestion, callbackUrl: string): Obj {
  const { inputs, actions } = answerParts(q, callbackUrl);
  const whole = card([plain(q.text), ...actionBlocks(q), ...inputs], actions);
  if (utf16Bytes(whole) <= CARD_MAX_UTF16_BYTES) return whole;
  const link =
    q.format === 'EXTERNAL'
      ? openUrl('Open', q.link ?? callbackUrl)
      : openUrl(q.format === 'FORM' ? 'Open form' : 'Answer in the browser', callbackUrl);
  return card([plain(cut(q.text, FALLBACK_TEXT_MAX))], [link]);
}

/** The card once closed: the question and how it ended; no inputs, no actions. */
export function resolvedCard(q: ChannelQuestion, line: string): Obj {
  // An APPROVAL keeps the action's name below the decision, so the card still says what was decided.
  const action = q.format === 'APPROVAL' && q.action ? [plain(cut(q.action.name, 200))] : [];
  return card([plain(q.text), plain(line, { weight: 'bolder' }), ...action], []);
}

/** A submit's values as the question's answer; undefined when they do not answer it. */
function fieldValue(field: FormField, raw: unknown): unknown {
  const text = typeof raw === 'string' ? raw.trim() : raw;
  if (field.kind === 'number' || field.kind === 'integer') {
    const n = typeof text === 'number' ? text : Number(text);
    return text !== '' && Number.isFinite(n) ? n : raw;
  }
  if (field.kind === 'boolean')
    return text === true || text === 'true' ? true : text === false || text === 'false' ? false : raw;
  if (field.kind === 'enum') {
    return typeof text === 'string' && /^\d{1,3}$/.test(text) ? field.values[Number(text)] : undefined;
  }
  return raw;
}

export function formAnswer(q: ChannelQuestion, values: Readonly<Record<string, unknown>>): unknown {
  const fields = cardFields(q);
  if (fields === null) return undefined;
  const out: Record<string, unknown> = {};
  fields.forEach((field, i) => {
    const raw = values[`${FIELD_PREFIX}${i}`];
    if (raw === undefined || raw === null || raw === '') return;
    out[field.name] = fieldValue(field, raw);
  });
  return out;
}
