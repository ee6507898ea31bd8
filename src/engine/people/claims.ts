// Claims (API.md §22): "I am looking at this one". A claim marks a pending question with who
// claimed it and when, shown to everyone who sees the question; it stops no one from answering,
// lapses after CLAIM_MS without an answer, and is replaced by another person's claim. Kept in
// the store's people table under the question id with that expiry, so every instance sees it
// and nothing needs sweeping. Ending a claim early is for the claimer or an operator. Claiming
// and ending early are audited (CLAIMED, UNCLAIMED) in the same store step; a lapse is not.
import { canAnswer } from '../../domain/access.ts';
import { DomainError } from '../../domain/errors.ts';
import { hasRole, type Principal } from '../../domain/principal.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import type { PeopleStore } from '../../store/people.ts';
import { refusal } from '../context.ts';

export const CLAIM_MS = 15 * 60 * 1000;

export interface Claim {
  by: string;
  /** Epoch ms. */
  at: number;
}

export interface Claims {
  /** Claims `q` (already found visible to `p`) for `p`, replacing anyone else's claim. */
  claim(p: Principal, q: QuestionRecord): Promise<Claim>;
  /** Ends the claim on `q`: the claimer's own, or any as an operator; false when there was none. */
  unclaim(p: Principal, q: QuestionRecord): Promise<boolean>;
  /** The live claim on a pending question, or null (an answered question has none). */
  of(q: Pick<QuestionRecord, 'id' | 'status'>): Promise<Claim | null>;
}

const claimKey = (id: string): string => `claim:${id}`;

function parseClaim(text: string | null, now: number): Claim | null {
  if (!text) return null;
  try {
    const c = JSON.parse(text) as Claim;
    return typeof c.by === 'string' && typeof c.at === 'number' && c.at + CLAIM_MS > now ? c : null;
  } catch {
    return null;
  }
}

export function createClaims(people: PeopleStore, clock: () => number): Claims {
  return {
    async claim(p, q) {
      if (!canAnswer(p))
        throw new DomainError('FORBIDDEN', 'this key may not answer questions, nor claim them');
      if (q.status !== 'PENDING') throw refusal(q);
      const claim: Claim = { by: p.id, at: clock() };
      const until = claim.at + CLAIM_MS;
      await people.putAudited(claimKey(q.id), JSON.stringify(claim), until, {
        type: 'CLAIMED',
        questionId: q.id,
        actor: p.id,
        via: 'api',
        detail: { until: new Date(until).toISOString() },
        at: claim.at,
      });
      return claim;
    },
    async unclaim(p, q) {
      const now = clock();
      const text = await people.get(claimKey(q.id), now);
      const cur = parseClaim(text, now);
      if (!cur || text === null) return false;
      // An operator who sees every question may clear anyone's claim; others only their own.
      if (cur.by !== p.id && !(hasRole(p, 'operator') && !p.restricted)) {
        throw new DomainError('FORBIDDEN', 'only the claimer or an operator may end this claim');
      }
      // Only the claim checked here: one replaced meanwhile by someone else's stays.
      return await people.deleteAudited(claimKey(q.id), text, {
        type: 'UNCLAIMED',
        questionId: q.id,
        actor: p.id,
        via: 'api',
        detail: { claimedBy: cur.by },
        at: now,
      });
    },
    async of(q) {
      if (q.status !== 'PENDING') return null;
      const now = clock();
      return parseClaim(await people.get(claimKey(q.id), now), now);
    },
  };
}
