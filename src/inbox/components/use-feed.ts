// The signed-in key's live feed, as React state: its connection status and the last problem it
// reported; its events fill the session's inbox store. Sign-in may have opened the feed already
// (beside the viewer check); this keeps it open while the inbox is on screen and closes it after.
import { useEffect, useSyncExternalStore } from 'react';
import type { FeedSession, FeedView } from '../lib/feed-session.ts';

export function useFeed(feed: FeedSession, refused: () => void): FeedView {
  useEffect(() => {
    feed.open();
    const off = feed.onRefused(refused);
    return () => {
      off();
      feed.close();
    };
  }, [feed, refused]);
  return useSyncExternalStore(feed.subscribe, feed.view);
}
