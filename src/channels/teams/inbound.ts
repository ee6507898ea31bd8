// Bot Framework activities mapped to what they mean: an install (the conversation to capture), a
// card's Action.Submit (an answer), or something else to acknowledge. Only called after the token
// was verified; every shape is checked, nothing is trusted.
import { z } from 'zod';
import { ONE_HOUR_GRANT } from '../../domain/policy/grant.ts';
import type { ChannelQuestion } from '../types.ts';
import { CHOICE_INPUT, formAnswer, SUBMIT, TEXT_INPUT } from './cards.ts';

const id = z.string().min(1).max(500);
const account = z.object({
  id,
  name: z.string().max(500).nullish(),
  aadObjectId: z.string().max(100).nullish(),
});

const activity = z.object({
  type: z.string().max(64),
  id: id.optional(),
  serviceUrl: z.string().max(2048),
  channelId: z.string().max(64),
  from: account.optional(),
  recipient: account.optional(),
  conversation: z.object({ id, tenantId: z.string().max(100).nullish() }),
  action: z.string().max(64).nullish(),
  membersAdded: z.array(z.object({ id })).max(1000).nullish(),
  value: z.unknown().optional(),
  channelData: z
    .object({ tenant: z.object({ id: z.string().max(100) }).nullish() })
    .passthrough()
    .nullish(),
});
export type Activity = z.output<typeof activity>;

/** `{tai, q, i?}` from the card's submit data, beside the card's input values. */
const submitData = z
  .object({
    tai: z.enum([SUBMIT.confirm, SUBMIT.select, SUBMIT.choice, SUBMIT.text, SUBMIT.form, SUBMIT.approve]),
    q: z.string().min(1).max(128),
    i: z.number().int().min(0).max(999).optional(),
  })
  .passthrough();

export type TeamsEvent =
  | { kind: 'install' }
  | {
      kind: 'answer';
      questionId: string;
      by: string;
      name: string | null;
      answer: (q: ChannelQuestion) => unknown;
    }
  | { kind: 'ignore' };

export function parseActivity(rawBody: Buffer): Activity | null {
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return null;
  }
  const parsed = activity.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** The tenant the activity comes from. */
export function tenantOf(a: Activity): string | null {
  return a.conversation.tenantId ?? a.channelData?.tenant?.id ?? null;
}

function isInstall(a: Activity): boolean {
  if (a.type === 'installationUpdate') return a.action === 'add' || a.action === 'add-upgrade';
  if (a.type !== 'conversationUpdate') return false;
  const bot = a.recipient?.id;
  return bot !== undefined && (a.membersAdded ?? []).some((m) => m.id === bot);
}

function optionAt(q: ChannelQuestion, index: unknown): unknown {
  const n = typeof index === 'string' && /^\d{1,3}$/.test(index) ? Number(index) : index;
  return q.format === 'SELECT' && typeof n === 'number' ? q.options?.[n] : undefined;
}

/** What a verified activity means; null when it is malformed (a 400). */
export function interpret(a: Activity): TeamsEvent | null {
  if (isInstall(a)) return { kind: 'install' };
  if (a.type !== 'message' || a.value === undefined) return { kind: 'ignore' };
  const parsed = submitData.safeParse(a.value);
  if (!parsed.success) return { kind: 'ignore' };
  if (!a.from || !a.id) return null;
  const data = parsed.data as z.output<typeof submitData> & Record<string, unknown>;
  const by = a.from.aadObjectId ?? a.from.id;
  const base = { kind: 'answer' as const, questionId: data.q, by, name: a.from.name ?? null };
  switch (data.tai) {
    case SUBMIT.confirm:
      if (data.i !== 0 && data.i !== 1) return null;
      return { ...base, answer: (q) => (q.format === 'CONFIRM' ? data.i === 1 : undefined) };
    case SUBMIT.approve: {
      // A decision on an APPROVAL (API.md §15): the engine records it as the answer or, with a
      // quorum, as this person's vote; the proposed arguments are kept as they are.
      if (data.i !== 0 && data.i !== 1 && data.i !== 2) return null;
      const value =
        data.i === 2
          ? { decision: 'APPROVED', grant: { scope: ONE_HOUR_GRANT.scope, seconds: ONE_HOUR_GRANT.seconds } }
          : { decision: data.i === 1 ? 'APPROVED' : 'REJECTED' };
      return { ...base, answer: (q) => (q.format === 'APPROVAL' ? value : undefined) };
    }
    case SUBMIT.select:
      return { ...base, answer: (q) => optionAt(q, data.i) };
    case SUBMIT.choice:
      return { ...base, answer: (q) => optionAt(q, data[CHOICE_INPUT]) };
    case SUBMIT.text:
      return {
        ...base,
        answer: (q) =>
          q.format === 'TEXT' && typeof data[TEXT_INPUT] === 'string' ? data[TEXT_INPUT] : undefined,
      };
    default:
      return { ...base, answer: (q) => formAnswer(q, data) };
  }
}
