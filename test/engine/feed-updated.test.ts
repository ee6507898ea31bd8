// UPDATED in the inbox feed (API.md §15) on each real store: a vote on a quorum question is one
// UPDATED event carrying the vote, the decision is one ANSWERED, and the held asker wakes once,
// on the decision, with the answer.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FeedEvent } from '../../src/engine/types.ts';
import { type Feed, openFeed } from '../../src/engine/views/feed.ts';
import {
  ADMIN,
  AGENT,
  type Engine,
  type EngineSet,
  OPS,
  type StoreKind,
  startEngines,
} from '../support/engines.ts';

async function next(feed: Feed): Promise<FeedEvent> {
  const r = await feed.next();
  if (r.done) throw new Error('the feed ended');
  return r.value;
}

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`UPDATED on the ${kind} store`, () => {
    let set: EngineSet;
    let engine: Engine;

    beforeEach(async () => {
      set = await startEngines(kind);
      engine = set.engines[0]!;
    });
    afterEach(async () => {
      await set.close();
    });

    it('a vote is one UPDATED with the vote, the decision one ANSWERED; the held asker wakes once', async () => {
      const feed = openFeed(engine, OPS);
      try {
        expect((await next(feed)).type).toBe('SNAPSHOT');
        const input = {
          text: 'Rotate?',
          format: 'APPROVAL',
          action: { name: 'keys.rotate', arguments: { scope: 'all' } },
          quorum: { approvals: 2, voters: ['ops', 'admin'] },
        };
        const held = engine.ask(AGENT, input, { holdSeconds: 60 });
        const asked = await next(feed);
        expect(asked.type).toBe('ASKED');
        const id = asked.questions[0]!.id;
        const afterFirst = await engine.answer(OPS, id, { decision: 'APPROVED' });
        expect(afterFirst.status).toBe('PENDING');
        const updated = await next(feed);
        expect(updated.type).toBe('UPDATED');
        expect(updated.questions[0]).toMatchObject({ id, status: 'PENDING' });
        expect(updated.questions[0]!.votes?.map((v) => v.by)).toEqual(['ops']);
        await engine.answer(ADMIN, id, { decision: 'APPROVED' });
        const answered = await next(feed);
        expect(answered.type).toBe('ANSWERED');
        expect(answered.questions[0]!.votes?.map((v) => v.by)).toEqual(['ops', 'admin']);
        const result = await held;
        expect(result.status).toBe('ANSWERED');
        expect(result.answer).toEqual({ decision: 'APPROVED', arguments: { scope: 'all' } });
        expect(engine.waiterCount()).toBe(0);
      } finally {
        await feed.return();
      }
    });
  });
}
