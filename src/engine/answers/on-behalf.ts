// The answer-time delegation check (API.md §22), called once by the one answer path (record.ts):
// whom is this answer for? A delegate answering a question addressed to a person who delegated
// to them answers for that person (`onBehalfOf`); on a quorum, a delegate who is not a voter
// casts the vote of the first voter who delegated to them and has not voted yet. A delegate who
// is a voter themselves votes as themselves (and so has no second vote: the store counts one
// per caster). Only live, direct delegations count — no chains.
import { addressedPerson } from '../../domain/access.ts';
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
  // The person a delegate acts for: the audience, or whom a rotation routed the question to.
  const person = addressedPerson(q);
  // The common cases read nothing: the person is addressed, or listed, themselves.
  if (voters ? voters.includes(by.id) : person === null || person === by.id) return by;
  const mine = await delegations.delegatorsOf(by.id, now);
  if (mine.length === 0) return by;
  const froms = new Set(mine.map((d) => d.from));
  if (voters) {
    const voted = new Set((q.votes ?? []).map((v) => v.onBehalfOf ?? v.by));
    const voter = voters.find((v) => froms.has(v) && !voted.has(v)) ?? voters.find((v) => froms.has(v));
    return voter ? { ...by, onBehalfOf: voter } : by;
  }
  return person !== null && froms.has(person) ? { ...by, onBehalfOf: person } : by;
}

/** Whether `id` may see `q` as a delegate: it is addressed to someone who delegated to them. */
export async function seesAsDelegate(
  delegations: DelegationStore,
  now: number,
  id: string,
  q: Pick<QuestionRecord, 'audience'> & Partial<Pick<QuestionRecord, 'routedTo'>>,
): Promise<boolean> {
  const person = addressedPerson(q);
  if (person === null || person === id) return false;
  const d = await delegations.get(person, now);
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
