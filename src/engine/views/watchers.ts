// The live feeds of this process, grouped by what their principal may see (visibilityKey):
// an announcement is checked against each group once, not against each feed, which matters
// when thousands of operators watch (one check instead of thousands).
import { canSee, visibilityKey } from '../../domain/access.ts';
import type { Principal } from '../../domain/principal.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import type { StoreEventType } from '../../store/types.ts';
import type { FeedListener } from '../types.ts';

interface Group {
  /** Any one principal of the group: canSee answers the same for all of them. */
  principal: Principal;
  /** One entry per watch, so the same listener watching twice is told twice, as before. */
  entries: Set<{ listener: FeedListener }>;
}

export interface Watchers {
  /** Adds a feed; returns its removal (idempotent). */
  add(principal: Principal, listener: FeedListener): () => void;
  /** One change: to every feed whose principal may see the question. */
  event(e: { type: StoreEventType; question: QuestionRecord }): void;
  resync(): void;
  /** The engine stops: every feed is told, and forgotten. */
  close(): void;
  size(): number;
}

export function createWatchers(): Watchers {
  const groups = new Map<string, Group>();
  let size = 0;
  return {
    add(principal, listener) {
      const key = visibilityKey(principal);
      let group = groups.get(key);
      if (!group) {
        group = { principal, entries: new Set() };
        groups.set(key, group);
      }
      const entry = { listener };
      group.entries.add(entry);
      size++;
      const g = group;
      return () => {
        if (!g.entries.delete(entry)) return;
        size--;
        if (g.entries.size === 0 && groups.get(key) === g) groups.delete(key);
      };
    },
    event(e) {
      // A listener may remove itself or others meanwhile: a Set skips the removed ones.
      for (const g of groups.values()) {
        if (!canSee(g.principal, e.question)) continue;
        for (const { listener } of g.entries) listener.event(e);
      }
    },
    resync() {
      for (const g of groups.values()) for (const { listener } of g.entries) listener.resync();
    },
    close() {
      const all = [...groups.values()];
      groups.clear();
      size = 0;
      for (const g of all) for (const { listener } of g.entries) listener.close?.();
    },
    size: () => size,
  };
}
