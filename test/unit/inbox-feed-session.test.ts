// Sign-in opens the key's feed beside the viewer check (src/inbox/lib/feed-session.ts): the
// session keeps the feed's events, status and problem until the inbox mounts, closes when told,
// and a feed refused on its own stays closed and tells the inbox, even one that mounts later.
import { describe, expect, it } from 'vitest';
import { createInboxApi } from '../../src/inbox/lib/api.ts';
import type { FeedHandlers } from '../../src/inbox/lib/feed.ts';
import { createFeedSession } from '../../src/inbox/lib/feed-session.ts';
import { createInboxStore } from '../../src/inbox/lib/inbox-store.ts';
import { questionBuilder } from '../support/inbox-question.ts';

const q = questionBuilder({
  id: (n) => `f${n}`,
  timeoutAt: (n) => new Date(Date.UTC(2025, 0, 1, 13, 0, 0, n)).toISOString(),
});

/** A feed opener that records each opening and lets the test speak for the feed. */
function fakeFeeds() {
  const opened: { handlers: FeedHandlers; closed: boolean }[] = [];
  return {
    opened,
    open: (_api: unknown, handlers: FeedHandlers) => {
      const feed = { handlers, closed: false };
      opened.push(feed);
      handlers.status('connecting');
      return () => {
        feed.closed = true;
      };
    },
  };
}

function session() {
  const feeds = fakeFeeds();
  const api = createInboxApi({ key: 'k', origin: 'http://127.0.0.1:1', fetch: async () => new Response() });
  // Shown at once: this test looks at the state, not at frames.
  const store = createInboxStore((flush) => {
    flush();
    return () => {};
  });
  return { feeds, feed: createFeedSession(api, { open: feeds.open, store }) };
}

describe('the feed session sign-in opens', () => {
  it('keeps what the feed sent before the inbox mounts, and opens once until closed', () => {
    const { feeds, feed } = session();
    feed.open();
    feed.open();
    expect(feeds.opened).toHaveLength(1);
    const h = feeds.opened[0]!.handlers;
    h.status('live');
    h.event({ type: 'SNAPSHOT', questions: [q(), q()], more: false });
    h.problem('slow down');
    expect(feed.view()).toEqual({ status: 'live', problem: 'slow down' });
    expect(feed.store.getState().pending.size).toBe(2);
    let told = 0;
    feed.subscribe(() => told++);
    h.problem(null);
    expect(told).toBe(1);

    feed.close();
    expect(feeds.opened[0]!.closed).toBe(true);
    expect(feed.isOpen()).toBe(false);
    feed.open();
    expect(feeds.opened).toHaveLength(2);
    expect(feed.isOpen()).toBe(true);
  });

  it('a refused feed stays closed and tells the inbox, at once if it mounts after', () => {
    const { feeds, feed } = session();
    feed.open();
    feeds.opened[0]!.handlers.unauthorized();
    expect(feed.isOpen()).toBe(false);
    let refused = 0;
    feed.onRefused(() => refused++);
    expect(refused).toBe(1);
    feed.open();
    expect(feeds.opened).toHaveLength(1);
  });

  it('tells a mounted inbox when the key is refused, and no one after it unmounts', () => {
    const { feeds, feed } = session();
    feed.open();
    let refused = 0;
    const off = feed.onRefused(() => refused++);
    off();
    feeds.opened[0]!.handlers.unauthorized();
    expect(refused).toBe(0);
    feed.onRefused(() => refused++);
    expect(refused).toBe(1);
  });
});
