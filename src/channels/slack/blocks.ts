// Block Kit for a question, per format (API.md §9's table), and the modal for flat FORM schemas.
// Interactive elements carry the question id and an option index, never the callback ticket.
import { ONE_HOUR_GRANT_LABEL } from '../../domain/policy/grant.ts';
import { presentOn } from '../../domain/presentation.ts';
import type { ChannelQuestion } from '../types.ts';
import { viewProblem } from './block-kit.ts';
import { cut, escapedChunks } from './escape.ts';

/** Slack's limits: section text, button and option labels, static_select options, modal blocks. */
export const SECTION_MAX_CHARS = 3000;
export const LABEL_MAX_CHARS = 75;
export const SELECT_MAX_OPTIONS = 100;
export const BUTTONS_MAX = 5;
export const MODAL_MAX_FIELDS = 50;
const TEXT_INPUT_MAX_CHARS = 3000;

export const ACTION = {
  confirm: 'tai_confirm',
  selectButton: 'tai_select',
  selectMenu: 'tai_select_menu',
  text: 'tai_text',
  openForm: 'tai_form_open',
  link: 'tai_link',
  /** The FORM message's second button: the answer page, for when Slack cannot show the modal. */
  formPage: 'tai_form_page',
  /** APPROVAL: `tai_approve_yes` / `tai_approve_no`, and `tai_approve_hour` (approve with a one-hour grant). */
  approve: 'tai_approve',
} as const;
export const FORM_CALLBACK_ID = 'tai_form';
/** The modal that edits an APPROVAL's arguments before approving. */
export const APPROVAL_CALLBACK_ID = 'tai_approval';
/** Block ids of question blocks: `tai:{questionId}`; modal fields: `f:{property}`. */
export const BLOCK_PREFIX = 'tai:';
export const FIELD_PREFIX = 'f:';
export const FIELD_ACTION = 'v';

type Block = Record<string, unknown>;

const plain = (text: string) => ({ type: 'plain_text', text: cut(text, LABEL_MAX_CHARS), emoji: false });

export function textBlocks(question: ChannelQuestion): Block[] {
  return escapedChunks(question.text, SECTION_MAX_CHARS).map((text) => ({
    type: 'section',
    text: { type: 'mrkdwn', text, verbatim: true },
  }));
}

function linkButton(text: string, url: string): Block {
  return { type: 'button', action_id: ACTION.link, text: plain(text), url };
}

function selectElements(q: ChannelQuestion): Block[] {
  const options = q.options ?? [];
  if (options.length <= BUTTONS_MAX) {
    return options.map((option, i) => ({
      type: 'button',
      action_id: `${ACTION.selectButton}_${i}`,
      text: plain(option),
      value: `${q.id}:${i}`,
    }));
  }
  // Ask validation caps options at 100 (OPTIONS_MAX), which is also Slack's static_select cap.
  return [
    {
      type: 'static_select',
      action_id: ACTION.selectMenu,
      placeholder: plain('Choose one'),
      options: options
        .slice(0, SELECT_MAX_OPTIONS)
        .map((option, i) => ({ text: plain(option), value: `${q.id}:${i}` })),
    },
  ];
}

function answerBlock(q: ChannelQuestion, callbackUrl: string): Block {
  const block_id = `${BLOCK_PREFIX}${q.id}`;
  switch (q.format) {
    case 'CONFIRM':
      return {
        type: 'actions',
        block_id,
        elements: [
          {
            type: 'button',
            action_id: `${ACTION.confirm}_yes`,
            text: plain('Yes'),
            value: `${q.id}:1`,
            style: 'primary',
          },
          { type: 'button', action_id: `${ACTION.confirm}_no`, text: plain('No'), value: `${q.id}:0` },
        ],
      };
    case 'SELECT':
      return { type: 'actions', block_id, elements: selectElements(q) };
    case 'TEXT':
      return {
        type: 'input',
        block_id,
        dispatch_action: true,
        label: plain('Your answer'),
        element: {
          type: 'plain_text_input',
          action_id: ACTION.text,
          max_length: TEXT_INPUT_MAX_CHARS,
          dispatch_action_config: { trigger_actions_on: ['on_enter_pressed'] },
        },
      };
    case 'FORM':
      // A modal Slack would refuse is never offered: the answer page's form is the fallback,
      // and stays one click away beside the modal in case Slack refuses to open it later.
      return {
        type: 'actions',
        block_id,
        elements:
          slackModal(q) !== null
            ? [
                {
                  type: 'button',
                  action_id: ACTION.openForm,
                  text: plain('Open form'),
                  value: q.id,
                  style: 'primary',
                },
                { ...linkButton('Open in browser', callbackUrl), action_id: ACTION.formPage },
              ]
            : [linkButton('Open form', callbackUrl)],
      };
    case 'APPROVAL': {
      const elements: Block[] = [
        {
          type: 'button',
          action_id: `${ACTION.approve}_yes`,
          text: plain('Approve'),
          value: `${q.id}:1`,
          style: 'primary',
        },
        // "Approve and allow for 1 hour" (API.md §20): a grant of the same arguments.
        ...(q.grantable
          ? [
              {
                type: 'button',
                action_id: `${ACTION.approve}_hour`,
                text: plain(ONE_HOUR_GRANT_LABEL),
                value: `${q.id}:2`,
              },
            ]
          : []),
        {
          type: 'button',
          action_id: `${ACTION.approve}_no`,
          text: plain('Reject'),
          value: `${q.id}:0`,
          style: 'danger',
        },
      ];
      // Edits: the modal for a flat schema, else the answer page's edit form.
      if (q.action?.editable) {
        elements.push(
          slackModal(q) !== null
            ? { type: 'button', action_id: ACTION.openForm, text: plain('Edit and approve'), value: q.id }
            : { ...linkButton('Edit in browser', callbackUrl), action_id: ACTION.formPage },
        );
      }
      return { type: 'actions', block_id, elements };
    }
    case 'EXTERNAL':
      return { type: 'actions', block_id, elements: [linkButton('Open', q.link ?? callbackUrl)] };
    default:
      // A format this build does not know (a newer server's record): its answer page shows it.
      q.format satisfies never;
      return { type: 'actions', block_id, elements: [linkButton('Open', callbackUrl)] };
  }
}

/** APPROVAL: the action's name and summary, and its arguments as JSON in a code block. */
export function actionBlocks(q: ChannelQuestion): Block[] {
  const a = q.action;
  if (!a) return [];
  // One presentation object: what the block shows is what presentedDigest digests (API.md §23).
  const p = presentOn('slack', a, a.arguments);
  const head = `*${p.name}*${p.summary ? ` — ${p.summary}` : ''}`;
  const args = p.argumentsText;
  return [
    ...escapedChunks(head, SECTION_MAX_CHARS)
      .slice(0, 1)
      .map((text) => ({
        type: 'section',
        text: { type: 'mrkdwn', text, verbatim: true },
      })),
    // Code blocks are still mrkdwn: the JSON is escaped like any text, then cut to one section.
    ...escapedChunks(args, SECTION_MAX_CHARS - 8)
      .slice(0, 1)
      .map((text) => ({
        type: 'section',
        text: { type: 'mrkdwn', text: `\`\`\`${text}\`\`\``, verbatim: true },
      })),
  ];
}

export function questionBlocks(q: ChannelQuestion, callbackUrl: string): Block[] {
  return [...textBlocks(q), ...actionBlocks(q), answerBlock(q, callbackUrl)];
}

/** A closed question: its text, and the line that says how it ended in place of the buttons. */
export function resolvedBlocks(q: ChannelQuestion, line: string): Block[] {
  return [...textBlocks(q), { type: 'context', elements: [{ type: 'mrkdwn', text: line }] }];
}

// ---- Flat FORM schemas as a modal --------------------------------------------------------------

export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum';
export interface FormField {
  name: string;
  label: string;
  kind: FieldKind;
  required: boolean;
  /** enum: the allowed values (strings, numbers or booleans), referred to by index. */
  values: unknown[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fieldOf(name: string, prop: unknown, required: boolean): FormField | null {
  if (!isObject(prop)) return null;
  const label = typeof prop.title === 'string' && prop.title.trim() !== '' ? prop.title : name;
  if (Array.isArray(prop.enum)) {
    const values = prop.enum;
    const labelable = values.every((v) => ['string', 'number', 'boolean'].includes(typeof v));
    if (values.length === 0 || values.length > SELECT_MAX_OPTIONS || !labelable) return null;
    return { name, label, kind: 'enum', required, values };
  }
  const kind = prop.type;
  if (kind === 'string' || kind === 'number' || kind === 'integer' || kind === 'boolean') {
    return { name, label, kind, required, values: [] };
  }
  return null;
}

/** The modal's fields when the schema is flat (string, number, integer, boolean, enum properties), else null. */
export function formFields(schema: Record<string, unknown> | null): FormField[] | null {
  if (schema?.type !== 'object' || !isObject(schema.properties)) return null;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const entries = Object.entries(schema.properties);
  if (entries.length === 0 || entries.length > MODAL_MAX_FIELDS) return null;
  const fields: FormField[] = [];
  for (const [name, prop] of entries) {
    const field = fieldOf(name, prop, required.has(name));
    if (!field) return null;
    fields.push(field);
  }
  return fields;
}

/** An enum value as an option label; a blank string is shown quoted (Slack refuses empty text). */
function enumLabel(v: unknown): string {
  const text = String(v);
  return text.trim() === '' ? JSON.stringify(text) : text;
}

/** One modal field; `initial` prefills it (an APPROVAL's proposed argument). */
function fieldElement(field: FormField, initial?: unknown): Block {
  const has = initial !== undefined && initial !== null;
  switch (field.kind) {
    case 'string':
      return {
        type: 'plain_text_input',
        action_id: FIELD_ACTION,
        max_length: TEXT_INPUT_MAX_CHARS,
        ...(has && typeof initial === 'string' ? { initial_value: cut(initial, TEXT_INPUT_MAX_CHARS) } : {}),
      };
    case 'number':
    case 'integer':
      return {
        type: 'number_input',
        action_id: FIELD_ACTION,
        is_decimal_allowed: field.kind === 'number',
        ...(has && typeof initial === 'number' ? { initial_value: String(initial) } : {}),
      };
    case 'boolean': {
      const options = [
        { text: plain('Yes'), value: '1' },
        { text: plain('No'), value: '0' },
      ];
      const chosen = initial === true ? options[0] : initial === false ? options[1] : undefined;
      return {
        type: 'static_select',
        action_id: FIELD_ACTION,
        options,
        ...(chosen ? { initial_option: chosen } : {}),
      };
    }
    default: {
      const options = field.values.map((v, i) => ({ text: plain(enumLabel(v)), value: String(i) }));
      const at = has ? field.values.indexOf(initial) : -1;
      return {
        type: 'static_select',
        action_id: FIELD_ACTION,
        options,
        ...(at >= 0 ? { initial_option: options[at] } : {}),
      };
    }
  }
}

export function formModal(q: ChannelQuestion, fields: FormField[]): Block {
  // An APPROVAL's modal edits its arguments, prefilled with the proposal, and approves them.
  const approval = q.format === 'APPROVAL' ? (q.action ?? null) : null;
  return {
    type: 'modal',
    callback_id: approval ? APPROVAL_CALLBACK_ID : FORM_CALLBACK_ID,
    private_metadata: q.id,
    title: plain(approval ? 'Edit and approve' : 'Answer'),
    submit: plain(approval ? 'Approve' : 'Submit'),
    close: plain('Cancel'),
    blocks: [
      ...textBlocks(q).slice(0, 1),
      ...fields.map((field) => ({
        type: 'input',
        block_id: `${FIELD_PREFIX}${field.name}`,
        optional: !field.required,
        label: { type: 'plain_text', text: cut(field.label, 2000), emoji: false },
        element: fieldElement(field, approval?.arguments[field.name]),
      })),
    ],
  };
}

/** The fields a question's modal shows: a FORM's schema, or an editable APPROVAL's arguments schema. */
export function modalFields(q: ChannelQuestion): FormField[] | null {
  if (q.format === 'FORM') return formFields(q.schema);
  if (q.format === 'APPROVAL' && q.action?.editable) return formFields(q.action.argumentsSchema);
  return null;
}

/** The modal for a question, or null when its schema is not flat or Slack would refuse it. */
export function slackModal(q: ChannelQuestion): Block | null {
  const fields = modalFields(q);
  if (fields === null) return null;
  const modal = formModal(q, fields);
  return viewProblem(modal) === null ? modal : null;
}
