// The answer-time delegation check (API.md §22), called once by the one answer path (record.ts):
// whom is this answer for? A delegate answering a question addressed to a person who delegated
// to them answers for that person (`onBehalfOf`); on a quorum, a delegate who is not a voter
// casts the vote of the first voter who delegated to them and has not voted yet. A delegate who
// is a voter themselves votes as themselves (and so has no second vote: the store counts one
// per caster). Only live, direct delegations count — no chains.
import type { QuestionRecord } from '../../domain/question.ts';
import type { DelegationStore } from '../../store/delegations.ts';
import type { Answerer } from './record.ts';

/** Who answers, with the person they answer for when they act as a delegate. */
export type ActingAnswerer = Answerer;

/** The `onBehalfOf` field a vote or a claim carries, when there is one. */
export function forWhom(by: Answerer): { onBehalfOf?: string } {
  return by.onBehalfOf ? { onBehalfOf: by.onBehalfOf } : {};
}

export async function actingAnswerer(
  delegations: DelegationStore,
  now: number,
  q: QuestionRecord,
  by: Answerer,
): Promise<ActingAnswerer> {
  const voters = q.quorum?.voters ?? null;
  // The common cases read nothing: the person is addressed, or listed, themselves.
  if (voters ? voters.includes(by.id) : q.audience === null || q.audience === by.id) return by;
  const mine = await delegations.delegatorsOf(by.id, now);
  if (mine.length === 0) return by;
  const froms = new Set(mine.map((d) => d.from));
  if (voters) {
    const voted = new Set((q.votes ?? []).map((v) => v.onBehalfOf ?? v.by));
    const person = voters.find((v) => froms.has(v) && !voted.has(v)) ?? voters.find((v) => froms.has(v));
    return person ? { ...by, onBehalfOf: person } : by;
  }
  return q.audience !== null && froms.has(q.audience) ? { ...by, onBehalfOf: q.audience } : by;
}

/** Whether `id` may see `q` as a delegate: it is addressed to someone who delegated to them. */
export async function seesAsDelegate(
  delegations: DelegationStore,
  now: number,
  id: string,
  q: Pick<QuestionRecord, 'audience'>,
): Promise<boolean> {
  if (q.audience === null || q.audience === id) return false;
  const d = await delegations.get(q.audience, now);
  return d !== null && d.to === id;
}

/**
 * The people `identity` acts for at `now` (their live, direct delegations to it): the shape
 * separation of duties asks for (a requester's delegates may not decide their request either).
 */
export function actsForOf(
  delegations: DelegationStore,
): (identity: string, now: number) => Promise<readonly string[]> {
  return async (identity, now) => (await delegations.delegatorsOf(identity, now)).map((d) => d.from);
}
