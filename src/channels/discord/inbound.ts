// Discord interactions (PING, message components, modal submissions) mapped to what they mean.
// Only called after the signature was verified; every shape is checked, nothing is trusted.
import { z } from 'zod';
import { ONE_HOUR_GRANT } from '../../domain/policy/grant.ts';
import type { ChannelQuestion } from '../types.ts';
import { KIND, modalAnswer } from './components.ts';

export const PING = 1;
export const APPLICATION_COMMAND = 2;
export const MESSAGE_COMPONENT = 3;
export const MODAL_SUBMIT = 5;

const snowflake = z.string().regex(/^\d{1,25}$/);
const user = z.object({ id: snowflake });

const input = z.object({ custom_id: z.string().max(100), value: z.string().max(4000).nullish() });
/** A modal's action row of text inputs, or a label (the newer layout) around one. */
const modalItem = z.union([
  z.object({ type: z.literal(1), components: z.array(z.unknown()).max(5) }),
  z.object({ type: z.literal(18), component: z.unknown() }),
]);

const interaction = z.object({
  id: snowflake,
  application_id: snowflake,
  type: z.number().int(),
  // Part of REST paths (the deferred reply): only the characters Discord's tokens use.
  token: z.string().regex(/^[A-Za-z0-9_.-]{1,500}$/),
  member: z.object({ user }).nullish(),
  user: user.nullish(),
  data: z
    .object({
      custom_id: z.string().max(100).optional(),
      component_type: z.number().int().optional(),
      values: z.array(z.string().max(100)).max(25).optional(),
      components: z.array(z.unknown()).max(5).optional(),
    })
    .optional(),
});
export type Interaction = z.output<typeof interaction>;

export type DiscordEvent =
  | { kind: 'ping' }
  | { kind: 'command' }
  | { kind: 'answer'; questionId: string; by: string; answer: (q: ChannelQuestion) => unknown }
  | { kind: 'open-modal'; questionId: string }
  | { kind: 'ignore' };

export function parseInteraction(rawBody: Buffer): Interaction | null {
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return null;
  }
  const parsed = interaction.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** The text inputs of a modal submission, custom_id → value. */
function modalValues(rows: unknown[]): Map<string, string> {
  const values = new Map<string, string>();
  const take = (c: unknown) => {
    const field = input.safeParse(c);
    if (field.success && typeof field.data.value === 'string')
      values.set(field.data.custom_id, field.data.value);
  };
  for (const item of rows) {
    const parsed = modalItem.safeParse(item);
    if (!parsed.success) continue;
    if (parsed.data.type === 1) parsed.data.components.forEach(take);
    else take(parsed.data.component);
  }
  return values;
}

const INDEXED = /^tai:([csm]):(.{1,90}):(\d{1,3})$/;
const PLAIN = /^tai:([tfx]):(.{1,95})$/;

/** What a verified interaction means; null when it is malformed (a 400). */
/** A decision button's answer: 1 approves, 0 rejects, 2 approves with a one-hour grant (API.md §20). */
function approvalOf(n: string): Record<string, unknown> {
  if (n !== '2') return { decision: n === '1' ? 'APPROVED' : 'REJECTED' };
  return { decision: 'APPROVED', grant: { scope: ONE_HOUR_GRANT.scope, seconds: ONE_HOUR_GRANT.seconds } };
}

export function interpret(i: Interaction): DiscordEvent | null {
  if (i.type === PING) return { kind: 'ping' };
  if (i.type === APPLICATION_COMMAND) return { kind: 'command' };
  const by = i.member?.user.id ?? i.user?.id;
  const customId = i.data?.custom_id;
  if (by === undefined || customId === undefined) return null;
  if (i.type === MESSAGE_COMPONENT) {
    const indexed = INDEXED.exec(customId);
    if (indexed) {
      const [, kind, questionId, n] = indexed as unknown as [string, string, string, string];
      if (kind === KIND.confirm) {
        if (n !== '0' && n !== '1' && n !== '2') return null;
        return {
          kind: 'answer',
          questionId,
          by,
          answer: (q) =>
            q.format === 'CONFIRM' && n !== '2'
              ? n === '1'
              : q.format === 'APPROVAL'
                ? approvalOf(n)
                : undefined,
        };
      }
      // A menu's value is the option's index over all menus; a button's is in its custom_id.
      const value = kind === KIND.selectMenu ? i.data?.values?.[0] : n;
      if (value === undefined || !/^\d{1,3}$/.test(value)) return null;
      const index = Number(value);
      return {
        kind: 'answer',
        questionId,
        by,
        answer: (q) => (q.format === 'SELECT' ? q.options?.[index] : undefined),
      };
    }
    const plain = PLAIN.exec(customId);
    if (plain && (plain[1] === KIND.openText || plain[1] === KIND.openForm)) {
      return { kind: 'open-modal', questionId: plain[2]! };
    }
    return { kind: 'ignore' };
  }
  if (i.type === MODAL_SUBMIT) {
    const plain = PLAIN.exec(customId);
    if (!plain || plain[1] !== KIND.modal) return { kind: 'ignore' };
    const values = modalValues(i.data?.components ?? []);
    return { kind: 'answer', questionId: plain[2]!, by, answer: (q) => modalAnswer(q, values) };
  }
  return null;
}
