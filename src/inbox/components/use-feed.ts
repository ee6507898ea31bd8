// The live feed for the signed-in key, as React state: its connection status and the last
// problem it reported; events go to the inbox's reducer.
import { type Dispatch, useEffect, useState } from 'react';
import type { Transport } from '../lib/api.ts';
import { type FeedStatus, openFeed } from '../lib/feed.ts';
import type { InboxAction } from '../lib/inbox-state.ts';

export function useFeed({
  api,
  dispatch,
  refused,
}: {
  api: Transport;
  dispatch: Dispatch<InboxAction>;
  refused(): void;
}): { status: FeedStatus; problem: string | null } {
  const [status, setStatus] = useState<FeedStatus>('connecting');
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(
    () =>
      openFeed(api, {
        event: (event) => dispatch({ type: 'feed', event }),
        status: setStatus,
        unauthorized: refused,
        problem: setProblem,
      }),
    [api, dispatch, refused],
  );
  return { status, problem };
}
