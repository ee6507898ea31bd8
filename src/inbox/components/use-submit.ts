// Answering from a card: send the answer, and turn every way it can fail into what the card
// shows — a refused key (back to sign-in), a 409 (read the question again to say who won), a
// FORM field or an edited approval argument the server refused (marked on the field), or one
// plain sentence.
import { type Dispatch, useCallback } from 'react';
import { InteractionsError } from '../../client/errors.ts';
import { InboxAnswerDocument, InboxQuestionDocument } from '../../client/generated/graphql.ts';
import { answerPath } from '../lib/answer-path.ts';
import { answerErrorMessage, conflictMessage, conflictOutcome } from '../lib/answers.ts';
import { isRefusedKey, type Transport } from '../lib/api.ts';
import type { InboxAction } from '../lib/inbox-state.ts';
import type { Question } from '../lib/model.ts';
import { approveWithPasskey, needsStepUp, PasskeyError } from '../lib/passkeys.ts';
import type { Submit, SubmitResult } from './QuestionCard.tsx';

export interface SubmitDeps {
  api: Transport;
  dispatch: Dispatch<InboxAction>;
  /** The key was refused. */
  refused(): void;
}

/** Someone else answered first, or the question closed: say which, and settle the card. */
async function settleConflict(
  { api, dispatch }: SubmitDeps,
  q: Question,
  code: 'ALREADY_ANSWERED' | 'QUESTION_CLOSED',
): Promise<SubmitResult> {
  let now: Question | null = null;
  try {
    now = (await api.request(InboxQuestionDocument, { id: q.id })).question;
  } catch {
    // the code alone still says enough
  }
  const note = conflictMessage(code, now);
  dispatch({ type: 'closed-elsewhere', question: now ?? q, outcome: conflictOutcome(code, now), note });
  return { ok: false, message: note };
}

/** Approves with the person's passkey, then reads the question as the answer mutation returns it. */
async function approvedWithPasskey(
  api: Transport,
  q: Question,
  answer: unknown,
): Promise<{ answer: Question }> {
  await approveWithPasskey(api, q.id, answer);
  const now = (await api.request(InboxQuestionDocument, { id: q.id })).question;
  return { answer: now ?? q };
}

/** The card's submit function for the signed-in key. */
export function useSubmit(deps: SubmitDeps): Submit {
  const { api, dispatch, refused } = deps;
  return useCallback(
    async (q: Question, answer: unknown): Promise<SubmitResult> => {
      const current = { api, dispatch, refused };
      dispatch({ type: 'retrying', id: q.id });
      try {
        // A HIGH approval goes through the passkey door (API.md §23); the card then reads it again.
        const data = needsStepUp(q, answer)
          ? await approvedWithPasskey(api, q, answer)
          : await api.request(InboxAnswerDocument, { id: q.id, answer });
        // A vote on a quorum question leaves it pending: the card stays, with the vote shown.
        if (data.answer.status === 'PENDING') {
          dispatch({ type: 'feed', event: { type: 'UPDATED', questions: [data.answer], more: false } });
        } else dispatch({ type: 'answered-here', question: data.answer });
        return { ok: true };
      } catch (err) {
        if (err instanceof PasskeyError || (err instanceof Error && err.name === 'NotAllowedError')) {
          return { ok: false, message: err.message };
        }
        if (!(err instanceof InteractionsError))
          return { ok: false, message: 'Something went wrong: try again.' };
        if (isRefusedKey(err)) {
          refused();
          return { ok: false, message: err.message };
        }
        if (err.code === 'ALREADY_ANSWERED' || err.code === 'QUESTION_CLOSED') {
          return settleConflict(current, q, err.code);
        }
        const path = err.code === 'BAD_USER_INPUT' ? answerPath(err.field) : null;
        // A FORM field, or an argument of an approval's edit (`answer.arguments.amount`).
        const onField =
          path !== null &&
          (q.format === 'FORM'
            ? path.length > 0
            : q.format === 'APPROVAL' && path[0] === 'arguments' && path.length > 1);
        if (onField) {
          return {
            ok: false,
            message: 'The answer was refused: see the field marked below.',
            serverError: { message: err.message, field: err.field },
          };
        }
        return { ok: false, message: answerErrorMessage(err) };
      }
    },
    [api, dispatch, refused],
  );
}
