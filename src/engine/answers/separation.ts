// Separation of duties (API.md §2 amended, §20, §22): who may never decide an APPROVAL, whatever
// door they come by. Called by the one answer path (record.ts) before an answer or a vote is
// recorded, so the rule holds on the inbox, GraphQL, REST, the CLI, MCP, callback pages and every
// channel alike.
//
//   - `action.requestedBy`, the person the agent acts for, never answers or votes on it; nor do
//     the people acting for them (their delegates: `actsFor`, wired by the delegation module);
//     nor does the asker's own MCP client, whose user is that person.
//   - The asker of an APPROVAL never answers or votes on it, unless it holds `admin` (the one-key
//     quick start).
//   - A rule's `requireSeparateRequester` (§20) takes that exception away: nobody on the asking
//     side (the asker, its MCP client's user, the requester and their delegates) decides it.
import { DomainError } from '../../domain/errors.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import type { Answerer } from './record.ts';

/**
 * The people `identity` acts for at `now` (it is their delegate, API.md §22). The delegation
 * module provides it; absent, nobody acts for anybody.
 */
export type ActsFor = (identity: string, now: number) => Promise<readonly string[]>;

export const REQUESTER_REFUSED =
  'the person this action is requested for may not approve it, nor may anyone acting for them (separation of duties)';
export const ASKER_REFUSED = 'the asker of an approval may not decide it (separation of duties)';

type Decided = Pick<QuestionRecord, 'format' | 'askedBy' | 'action'>;

/** Why `by` may not decide `q`, or null when separation of duties allows it. */
export async function separationRefusal(
  q: Decided,
  by: Pick<Answerer, 'id' | 'roles'>,
  now: number,
  actsFor?: ActsFor,
): Promise<DomainError | null> {
  if (q.format !== 'APPROVAL' || !q.action) return null;
  const strict = q.action.requireSeparateRequester === true;
  const requester = q.action.requestedBy ?? null;
  // answer-here.ts records an MCP client's answers as `mcp:<asker id>` (API.md §13.1).
  const fromAskersClient = by.id === `mcp:${q.askedBy}`;
  if (requester !== null) {
    if (by.id === requester || fromAskersClient) return new DomainError('FORBIDDEN', REQUESTER_REFUSED);
    if (actsFor && (await actsFor(by.id, now)).includes(requester)) {
      return new DomainError('FORBIDDEN', REQUESTER_REFUSED);
    }
  }
  if (by.id === q.askedBy && (strict || !by.roles?.includes('admin'))) {
    return new DomainError('FORBIDDEN', ASKER_REFUSED);
  }
  if (strict && fromAskersClient) return new DomainError('FORBIDDEN', ASKER_REFUSED);
  return null;
}
