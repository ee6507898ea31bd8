// Who is looking at a pending question (API.md §22), on its card. Claims are read once when the
// card appears (they are not part of the live feed, whose questions are executed once and kept),
// so a claim made later shows at the next visit or reconnect; a failed read shows nothing.
import { createContext, useContext, useEffect, useState } from 'react';
import { PeopleQuestionClaimDocument } from '../../client/generated/graphql.ts';
import type { Transport } from '../lib/api.ts';

/** The signed-in transport, for the few card parts that read on their own. */
export const InboxApi = createContext<Transport | null>(null);

export function ClaimBadge({ questionId, viewerId }: { questionId: string; viewerId: string }) {
  const api = useContext(InboxApi);
  const [by, setBy] = useState<string | null>(null);
  useEffect(() => {
    if (!api) return;
    let live = true;
    api
      .request(PeopleQuestionClaimDocument, { id: questionId })
      .then((r) => {
        if (live) setBy(r.question?.claimedBy ?? null);
      })
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [api, questionId]);
  if (by === null) return null;
  return (
    <li className="badge badge-claim" data-testid="claimed-by">
      {by === viewerId ? 'claimed by you' : `claimed by ${by}`}
    </li>
  );
}
