// Who a question addressed to a group or a rotation is for, and who a voters list with groups
// allows (API.md §22), as the one answer path (record.ts) checks them on every door.
//
// Audience: a question whose audience is `group:<id>` or `oncall:<id>` is answered by that group's
// members (and the person it was routed to); a restricted non-member never sees it (NOT_FOUND, at
// the door), an unrestricted one is refused here (FORBIDDEN); an admin may. The rule binds the
// principals of the in-client doors: a channel or callback answerer holds a delivery the asker
// addressed to them on purpose.
//
// Voters: a `group:<id>` entry allows each of the group's members; each person votes once, under
// their own identity, however many entries name them.

import { DomainError } from '../../domain/errors.ts';
import { addressedGroup } from '../../domain/groups.ts';
import type { QuestionRecord, QuorumSpec } from '../../domain/question.ts';
import type { Directory } from '../people/directory.ts';
import type { Answerer } from './record.ts';

/** Why `by` may not answer a question addressed to a group or a rotation, or null. */
export function audienceRefusal(
  q: Pick<QuestionRecord, 'audience' | 'routedTo'>,
  by: Pick<Answerer, 'id' | 'roles' | 'groups' | 'onBehalfOf'>,
  directory: Directory,
): DomainError | null {
  if (!by.roles || addressedGroup(q.audience) === null) return null;
  if (by.roles.includes('admin') || q.routedTo === by.id) return null;
  // The routed person's delegate answers for them (on-behalf.ts set `onBehalfOf`).
  if (q.routedTo != null && by.onBehalfOf === q.routedTo) return null;
  if (directory.isAddressee(q, by.id, by.groups)) return null;
  return new DomainError('FORBIDDEN', `this question is for the members of ${q.audience}`);
}

/**
 * The quorum the store checks `by`'s vote against: a member of a `group:<id>` entry is allowed as
 * itself (the store compares identities), anyone else meets the list as written.
 */
export function quorumFor(
  quorum: QuorumSpec,
  by: Pick<Answerer, 'id' | 'groups'>,
  directory: Directory,
): QuorumSpec {
  const voters = quorum.voters;
  if (voters === null || voters.includes(by.id)) return quorum;
  return directory.isVoter(voters, by.id, by.groups) ? { ...quorum, voters: [...voters, by.id] } : quorum;
}
