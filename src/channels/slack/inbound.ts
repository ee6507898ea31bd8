// Slack interactivity payloads (`block_actions`, `view_submission`) mapped to what they mean.
// Only called after the signature was verified; every shape is checked, nothing is trusted.
import { z } from 'zod';
import { ONE_HOUR_GRANT } from '../../domain/policy/grant.ts';
import type { AnswerFormat, ChannelQuestion, JsonValue } from '../types.ts';
import {
  ACTION,
  APPROVAL_CALLBACK_ID,
  BLOCK_PREFIX,
  FIELD_ACTION,
  FIELD_PREFIX,
  FORM_CALLBACK_ID,
  type FormField,
  formFields,
  modalFields,
} from './blocks.ts';

// `name` (the user's handle) is optional and only shown (API.md §19), never trusted.
const user = z.object({ id: z.string().min(1).max(64), name: z.string().max(256).optional() });

/** The sender's name as Slack gave it, for the inbox and the CLI (`{}` when none). */
function named(u: z.output<typeof user>): { byName?: string } {
  return u.name && u.name.trim() !== '' ? { byName: u.name } : {};
}

const action = z.object({
  action_id: z.string().max(255),
  block_id: z.string().max(255).optional(),
  value: z.string().max(3000).optional(),
  // null when the person cleared the menu.
  selected_option: z.object({ value: z.string().max(150) }).nullish(),
});

const blockActions = z.object({
  type: z.literal('block_actions'),
  user,
  trigger_id: z.string().max(255).optional(),
  response_url: z.string().max(2048).optional(),
  actions: z.array(action).min(1).max(10),
});

const fieldState = z.object({
  type: z.string().max(64),
  value: z.string().max(3000).nullish(),
  selected_option: z.object({ value: z.string().max(150) }).nullish(),
});

const viewSubmission = z.object({
  type: z.literal('view_submission'),
  user,
  view: z.object({
    callback_id: z.string().max(255),
    private_metadata: z.string().max(3000),
    state: z.object({ values: z.record(z.string().max(255), z.record(z.string().max(255), fieldState)) }),
  }),
});

export type BlockActions = z.output<typeof blockActions>;
export type ViewSubmission = z.output<typeof viewSubmission>;

export type SlackEvent =
  | {
      kind: 'answer';
      questionId: string;
      by: string;
      byName?: string;
      answer: (q: ChannelQuestion) => unknown;
      /** A button's answer for every question of its format (the contract's `answerFor`). */
      answerFor?: { format: AnswerFormat; value: JsonValue };
    }
  | { kind: 'open-form'; questionId: string; triggerId: string }
  | { kind: 'ignore' };

/** `payload=<json>` from the form-encoded body, or null when it is not one. */
export function parsePayload(rawBody: Buffer): unknown {
  const payload = new URLSearchParams(rawBody.toString('utf8')).get('payload');
  if (payload === null) return null;
  try {
    return JSON.parse(payload);
  } catch {
    return null;
  }
}

/** `{questionId}:{index}` from a button or option value. */
function splitValue(value: string | undefined): { questionId: string; index: number } | null {
  const m = value === undefined ? null : /^(.{1,200}):(\d{1,3})$/.exec(value);
  return m ? { questionId: m[1]!, index: Number(m[2]) } : null;
}

function fromAction(a: z.output<typeof action>, payload: BlockActions): SlackEvent | null {
  const by = payload.user.id;
  const byName = named(payload.user);
  if (a.action_id.startsWith(ACTION.confirm)) {
    const v = splitValue(a.value);
    if (!v || v.index > 1) return null;
    const yes = v.index === 1;
    return {
      kind: 'answer',
      questionId: v.questionId,
      by,
      ...byName,
      answer: (q) => (q.format === 'CONFIRM' ? yes : undefined),
      answerFor: { format: 'CONFIRM', value: yes },
    };
  }
  if (a.action_id.startsWith(ACTION.approve)) {
    const v = splitValue(a.value);
    if (!v || v.index > 2) return null;
    // 1 approves, 0 rejects, 2 approves and allows the same for an hour (API.md §20).
    const value: JsonValue =
      v.index === 2
        ? { decision: 'APPROVED', grant: { scope: ONE_HOUR_GRANT.scope, seconds: ONE_HOUR_GRANT.seconds } }
        : { decision: v.index === 1 ? 'APPROVED' : 'REJECTED' };
    return {
      kind: 'answer',
      questionId: v.questionId,
      by,
      answer: (q) => (q.format === 'APPROVAL' ? value : undefined),
      answerFor: { format: 'APPROVAL', value },
    };
  }
  // A cleared menu (`selected_option: null`) answers nothing; Slack shows an error for a non-200.
  if (a.action_id === ACTION.selectMenu && !a.selected_option) return { kind: 'ignore' };
  if (a.action_id.startsWith(ACTION.selectButton) || a.action_id === ACTION.selectMenu) {
    const v = splitValue(a.action_id === ACTION.selectMenu ? a.selected_option?.value : a.value);
    if (!v) return null;
    return {
      kind: 'answer',
      questionId: v.questionId,
      by,
      ...byName,
      answer: (q) => (q.format === 'SELECT' ? q.options?.[v.index] : undefined),
    };
  }
  if (a.action_id === ACTION.text) {
    if (!a.block_id?.startsWith(BLOCK_PREFIX) || a.value === undefined) return null;
    const text = a.value;
    return { kind: 'answer', questionId: a.block_id.slice(BLOCK_PREFIX.length), by, answer: () => text };
  }
  if (a.action_id === ACTION.openForm) {
    if (!a.value || !payload.trigger_id) return null;
    return { kind: 'open-form', questionId: a.value, triggerId: payload.trigger_id };
  }
  if (a.action_id === ACTION.link || a.action_id === ACTION.formPage) return { kind: 'ignore' };
  return null;
}

/** The modal's state as the answer object, with each value typed by the question's schema. */
function formAnswer(values: ViewSubmission['view']['state']['values'], q: ChannelQuestion): unknown {
  const fields = formFields(q.schema);
  if (q.format !== 'FORM' || !fields) return undefined;
  return fieldValues(values, fields);
}

/** The approval modal's state: an approval of the edited arguments. */
function approvalAnswer(values: ViewSubmission['view']['state']['values'], q: ChannelQuestion): unknown {
  const fields = q.format === 'APPROVAL' ? modalFields(q) : null;
  if (!fields) return undefined;
  return { decision: 'APPROVED', arguments: fieldValues(values, fields) };
}

function fieldValues(
  values: ViewSubmission['view']['state']['values'],
  fields: FormField[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const state = values[`${FIELD_PREFIX}${field.name}`]?.[FIELD_ACTION];
    const raw = state?.selected_option?.value ?? state?.value ?? null;
    if (raw === null || raw === '') continue;
    if (field.kind === 'number' || field.kind === 'integer') out[field.name] = Number(raw);
    else if (field.kind === 'boolean') out[field.name] = raw === '1';
    else if (field.kind === 'enum')
      out[field.name] = /^\d{1,3}$/.test(raw) ? field.values[Number(raw)] : undefined;
    else out[field.name] = raw;
  }
  return out;
}

export type ParsedPayload =
  | { type: 'block_actions'; payload: BlockActions; event: SlackEvent }
  | { type: 'view_submission'; payload: ViewSubmission; event: SlackEvent }
  | { type: 'other' }
  | null;

/** What a verified payload means; null when it is malformed (a 400). */
export function interpret(payload: unknown): ParsedPayload {
  if (typeof payload !== 'object' || payload === null) return null;
  const type = (payload as { type?: unknown }).type;
  if (type === 'block_actions') {
    const parsed = blockActions.safeParse(payload);
    if (!parsed.success) return null;
    const event = fromAction(parsed.data.actions[0]!, parsed.data);
    return event ? { type, payload: parsed.data, event } : null;
  }
  if (type === 'view_submission') {
    const parsed = viewSubmission.safeParse(payload);
    if (!parsed.success) return null;
    const view = parsed.data.view;
    const approval = view.callback_id === APPROVAL_CALLBACK_ID;
    if ((view.callback_id !== FORM_CALLBACK_ID && !approval) || view.private_metadata === '') {
      return { type: 'other' };
    }
    const values = view.state.values;
    return {
      type,
      payload: parsed.data,
      event: {
        kind: 'answer',
        questionId: view.private_metadata,
        by: parsed.data.user.id,
        ...named(parsed.data.user),
        answer: (q) => (approval ? approvalAnswer(values, q) : formAnswer(values, q)),
      },
    };
  }
  return { type: 'other' };
}
