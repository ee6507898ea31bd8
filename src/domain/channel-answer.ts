// A channel click whose answer depends only on the question's format (a CONFIRM button's true or
// false): the engine then knows the answer to record before it has read
// the question, so the store can find the question and claim it in one step (API.md §9). Both
// rules here are mirrored by src/store/redis/channel-answer.lua.
import type { AnswerFormat, QuestionSpec } from './question.ts';
import { isPlainObject } from './values.ts';

/** The formats a one-step channel answer may be for. */
export type OneStepFormat = Extract<AnswerFormat, 'CONFIRM' | 'APPROVAL'>;

/** A one-step answer: what any question of `format` records for it, already valid (§5.3). */
export interface OneStepAnswer {
  format: OneStepFormat;
  answer: boolean | { decision: 'REJECTED' };
}

/**
 * The answer `value` records on every question of `format`, when that is all it depends on:
 * CONFIRM's true or false. Null for anything else: the door then reads the question first.
 * An APPROVAL's bare rejection was one too, until every APPROVAL answer recorded what the
 * channel showed (`presentedDigest`, API.md §23), which needs the question's action. SELECT is
 * not here: its answer is the option's text, which only the question knows, and the audit
 * entry's digest of it cannot be computed inside a Redis script.
 */
export function oneStepAnswer(format: AnswerFormat, value: unknown): OneStepAnswer | null {
  if (format === 'CONFIRM') return typeof value === 'boolean' ? { format, answer: value } : null;
  // An APPROVAL answer, even a rejection, takes the one answer path: it records what this
  // channel showed (presentedDigest, API.md §23), which needs the question's action first.
  return null;
}

/**
 * Whether a pending question may take a one-step answer for `format` that came through channel
 * instance `place`: the question was delivered there itself (a REROUTE place is found by the
 * full path), it is of that format, not sensitive (its answer goes to the one-read reply slot)
 * and takes no votes (a quorum counts votes instead, API.md §15).
 */
export function takesOneStepAnswer(
  spec: Pick<QuestionSpec, 'channel' | 'format' | 'sensitive' | 'quorum' | 'action'>,
  place: string,
  format: OneStepFormat,
): boolean {
  return (
    spec.channel === place &&
    spec.format === format &&
    spec.sensitive === false &&
    (spec.quorum ?? null) === null &&
    (format !== 'APPROVAL' || (isPlainObject(spec.action) && !separatesDuties(spec.action)))
  );
}

/**
 * An APPROVAL whose deciders separation of duties limits (API.md §22: a requester, or a rule's
 * requireSeparateRequester) is never claimed in one step: a requester's "Reject" must meet the
 * answer path's checks like any other answer.
 */
function separatesDuties(action: NonNullable<QuestionSpec['action']>): boolean {
  return typeof action.requestedBy === 'string' || action.requireSeparateRequester === true;
}
