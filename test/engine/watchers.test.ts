// engine.watch groups its feeds by what their principal may see (engine/views/watchers.ts): one
// visibility check per group and announcement. Over each real store: every watcher gets
// exactly the questions its principal may see, several watchers of one group each get them,
// one leaving its group (even from inside its own event) leaves the others watching, and
// a principal's key stands for canSee for every kind of principal.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canSee, visibilityKey } from '../../src/domain/access.ts';
import type { Principal } from '../../src/domain/principal.ts';
import type { QuestionRecord } from '../../src/domain/question.ts';
import type { FeedListener } from '../../src/engine/types.ts';
import {
  ADMIN,
  AGENT,
  AGENT2,
  ALICE,
  BOB,
  type Engine,
  type EngineSet,
  OPS,
  type StoreKind,
  startEngines,
} from '../support/engines.ts';

const NOBODY: Principal = { id: 'nobody', roles: [], restricted: false };
const AUDITOR: Principal = { id: 'auditor', roles: ['auditor'], restricted: false };
/** A second principal object with the same visibility as OPS (another operator key). */
const OPS2: Principal = { id: 'ops2', roles: ['operator'], restricted: false };

/** A watcher that records the ids of the ASKED events it is told of. */
function recorder() {
  const ids: string[] = [];
  const waiters: { id: string; done: () => void }[] = [];
  const listener: FeedListener = {
    event(e) {
      if (e.type !== 'ASKED') return;
      ids.push(e.question.id);
      for (const w of waiters.filter((x) => x.id === e.question.id)) w.done();
    },
    resync() {},
  };
  return {
    ids,
    listener,
    /** Resolves once this watcher was told of `id`. */
    got: (id: string) =>
      ids.includes(id) ? Promise.resolve() : new Promise<void>((done) => waiters.push({ id, done })),
  };
}

describe('visibilityKey', () => {
  it('principals with the same key see the same questions', () => {
    const principals = [OPS, OPS2, ADMIN, AUDITOR, ALICE, BOB, AGENT, AGENT2, NOBODY];
    const restrictedAgent: Principal = { id: 'alice', roles: ['agent'], restricted: true };
    principals.push(restrictedAgent);
    const who = ['agent', 'agent2', 'alice', 'bob', 'ops', 'nobody'];
    const questions = who.flatMap((askedBy) => [null, ...who].map((audience) => ({ askedBy, audience })));
    for (const a of principals) {
      for (const b of principals) {
        if (visibilityKey(a) !== visibilityKey(b)) continue;
        for (const q of questions) expect(canSee(a, q), `${a.id} / ${b.id}`).toBe(canSee(b, q));
      }
    }
    // And distinct visibilities have distinct keys.
    expect(new Set([OPS, ALICE, BOB, AGENT, AGENT2, NOBODY].map(visibilityKey)).size).toBe(6);
    expect(visibilityKey(OPS2)).toBe(visibilityKey(OPS));
    expect(visibilityKey(restrictedAgent)).toBe(visibilityKey(ALICE));
  });
});

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`engine.watch on the ${kind} store, grouped by visibility`, () => {
    let set: EngineSet;
    let engine: Engine;

    beforeEach(async () => {
      set = await startEngines(kind);
      engine = set.engines[0]!;
    });
    afterEach(async () => {
      await set.close();
    });

    const ask = (p: Principal, text: string, audience?: string): Promise<QuestionRecord> =>
      engine
        .ask(p, { text, format: 'TEXT', ...(audience ? { audience } : {}) }, { holdSeconds: 0 })
        .then((r) => r.question);

    it('each watcher gets exactly what its principal may see, several of one group each get it', async () => {
      const watchers = {
        ops: recorder(),
        ops2: recorder(),
        opsAgain: recorder(),
        admin: recorder(),
        alice: recorder(),
        alice2: recorder(),
        bob: recorder(),
        agent: recorder(),
        agent2: recorder(),
        nobody: recorder(),
      };
      const principal: Record<keyof typeof watchers, Principal> = {
        ops: OPS,
        ops2: OPS2,
        opsAgain: OPS,
        admin: ADMIN,
        alice: ALICE,
        alice2: ALICE,
        bob: BOB,
        agent: AGENT,
        agent2: AGENT2,
        nobody: NOBODY,
      };
      const stops = Object.entries(watchers).map(([name, w]) =>
        engine.watch(principal[name as keyof typeof watchers], w.listener),
      );
      expect(engine.feedCount()).toBe(10);
      const forAlice = await ask(AGENT, 'for alice', 'alice');
      const open = await ask(AGENT2, 'for anyone');
      const bobs = await ask(BOB, 'bob asks');
      // One announcement reaches every watcher in one call: once ops has the last, all have theirs.
      await watchers.ops.got(bobs.id);
      const all = [forAlice.id, open.id, bobs.id];
      expect(watchers.ops.ids).toEqual(all);
      expect(watchers.ops2.ids).toEqual(all);
      expect(watchers.opsAgain.ids).toEqual(all);
      expect(watchers.admin.ids).toEqual(all);
      expect(watchers.alice.ids).toEqual([forAlice.id]);
      expect(watchers.alice2.ids).toEqual([forAlice.id]);
      expect(watchers.bob.ids).toEqual([bobs.id]);
      expect(watchers.agent.ids).toEqual([forAlice.id]);
      expect(watchers.agent2.ids).toEqual([open.id]);
      expect(watchers.nobody.ids).toEqual([]);
      for (const stop of stops) stop();
      expect(engine.feedCount()).toBe(0);
    });

    it('a watcher leaving its group, even from inside its event, leaves the others of the group watching', async () => {
      const first = recorder();
      const second = recorder();
      const third = recorder();
      const ops = recorder();
      let stopFirst = (): void => {};
      // The first alice watcher stops itself when it hears of its first question.
      const leaving: FeedListener = {
        event(e) {
          first.listener.event(e);
          stopFirst();
        },
        resync() {},
      };
      stopFirst = engine.watch(ALICE, leaving);
      const stopSecond = engine.watch(ALICE, second.listener);
      const stopThird = engine.watch(ALICE, third.listener);
      const stopOps = engine.watch(OPS, ops.listener);
      const q1 = await ask(AGENT, 'one', 'alice');
      await ops.got(q1.id);
      stopSecond();
      stopSecond(); // idempotent: the count falls once
      expect(engine.feedCount()).toBe(2);
      const q2 = await ask(AGENT, 'two', 'alice');
      await ops.got(q2.id);
      expect(first.ids).toEqual([q1.id]);
      expect(second.ids).toEqual([q1.id]);
      expect(third.ids).toEqual([q1.id, q2.id]);
      // The group empties and comes back: a new alice watcher is told again.
      stopThird();
      const again = recorder();
      const stopAgain = engine.watch(ALICE, again.listener);
      const q3 = await ask(AGENT, 'three', 'alice');
      await ops.got(q3.id);
      expect(again.ids).toEqual([q3.id]);
      expect(third.ids).toEqual([q1.id, q2.id]);
      stopAgain();
      stopOps();
      expect(engine.feedCount()).toBe(0);
    });

    it('stopping the engine closes every watcher of every group', async () => {
      let closes = 0;
      const listener = (): FeedListener => ({
        event() {},
        resync() {},
        close: () => {
          closes++;
        },
      });
      for (const p of [OPS, OPS, ALICE, AGENT, NOBODY]) engine.watch(p, listener());
      await engine.stop();
      expect(closes).toBe(5);
      expect(engine.feedCount()).toBe(0);
    });
  });
}
