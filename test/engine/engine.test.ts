// The Interactions engine over each real store: asking, waiting, answering, races, access.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.ts';
import type { Principal } from '../../src/domain/principal.ts';
import type { QuestionRecord } from '../../src/domain/question.ts';
import { createInteractions } from '../../src/engine/interactions.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { codeOf } from '../support/domain-errors.ts';
import type { Engine, EngineSet, StoreKind } from '../support/engines.ts';
import {
  ADMIN,
  AGENT,
  AGENT2,
  ALICE,
  BOB,
  OPS,
  SETTINGS,
  startEngines,
  subscriberName,
} from '../support/engines.ts';
import { killSubscribers } from '../support/fixtures.ts';

async function fieldOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DomainError) return err.field;
    throw err;
  }
  throw new Error('expected a DomainError');
}

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`engine on the ${kind} store`, () => {
    let set: EngineSet;
    let engine: Engine;
    let store: QuestionStore;

    beforeEach(async () => {
      set = await startEngines(kind);
      engine = set.engines[0]!;
      store = set.stores[0]!;
    });
    afterEach(async () => {
      await set.close();
    });

    const ask = (input: Record<string, unknown>, p: Principal = AGENT, holdSeconds = 0) =>
      engine.ask(p, { text: 'Proceed?', format: 'CONFIRM', ...input }, { holdSeconds });

    async function storeIsEmpty(): Promise<void> {
      expect(await store.pending({})).toEqual([]);
      expect((await store.list({}, { first: 10 })).totalCount).toBe(0);
    }

    it('holdSeconds 0 returns PENDING at once; awaitAnswer then returns the answer', async () => {
      const r = await ask({});
      expect(r.status).toBe('PENDING');
      expect(r.question).toMatchObject({
        text: 'Proceed?',
        format: 'CONFIRM',
        askedBy: 'agent',
        status: 'PENDING',
      });
      await engine.answer(OPS, r.question.id, true);
      const again = await engine.awaitAnswer(AGENT, r.question.id, { holdSeconds: 5 });
      expect(again).toMatchObject({ status: 'ANSWERED', answer: true, question: { answeredBy: 'ops' } });
    });

    it('a held ask wakes when the answer lands', async () => {
      const asked = nextAsked(engine);
      const held = engine.ask(AGENT, { text: 'Name?', format: 'TEXT' }, { holdSeconds: 60 });
      const q = await asked;
      await engine.answer(OPS, q.id, 'Ada');
      const r = await held;
      expect(r).toMatchObject({ status: 'ANSWERED', answer: 'Ada' });
    });

    it('rejected asks leave the store unchanged', async () => {
      const bad: Record<string, unknown>[] = [
        { text: '' },
        { text: 'x'.repeat(8193) },
        { format: 'SELECT', options: [] },
        { format: 'FORM', schema: { properties: {} } },
        { media: [] },
        { media: [{ kind: 'IMAGE', url: 'http://insecure.example/a.png' }] },
        { timeoutSeconds: 0 },
        { format: 'EXTERNAL', link: 'https://sign.example/no-placeholder' },
        { channel: 'nowhere' },
      ];
      for (const input of bad) {
        expect(await codeOf(ask(input)), JSON.stringify(input).slice(0, 80)).toBe('BAD_USER_INPUT');
      }
      expect(await codeOf(engine.ask(AGENT, 'not an object'))).toBe('BAD_USER_INPUT');
      expect(await codeOf(engine.ask(AGENT, null))).toBe('BAD_USER_INPUT');
      expect(await codeOf(ask({}, AGENT, -1))).toBe('BAD_USER_INPUT');
      await storeIsEmpty();
    });

    it('EXTERNAL without a public base URL is NOT_CONFIGURED and stores nothing', async () => {
      const bare = await startEngines(kind, 1, { publicBaseUrl: null });
      try {
        const input = { text: 'Sign', format: 'EXTERNAL', link: 'https://sign.example/?cb={callback_url}' };
        expect(await codeOf(bare.engines[0]!.ask(AGENT, input, { holdSeconds: 0 }))).toBe('NOT_CONFIGURED');
        expect(await bare.stores[0]!.pending({})).toEqual([]);
      } finally {
        await bare.close();
      }
    });

    it('EXTERNAL mints a 43-character ticket, substitutes every placeholder, and refuses the in-client door', async () => {
      const r = await ask({
        format: 'EXTERNAL',
        link: 'https://sign.example/?cb={callback_url}&again={callback_url}',
      });
      const url = r.callbackUrl!;
      expect(url).toMatch(/^https:\/\/hitl\.example\/api\/interactions\/callback\/[A-Za-z0-9_-]{43}$/);
      expect(r.question.link).toBe(`https://sign.example/?cb=${url}&again=${url}`);
      // The ticket rides only inside the link (the page the person visits), nowhere else.
      const { link, ...rest } = (await store.get(r.question.id))!;
      expect(link).toContain(url);
      expect(JSON.stringify(rest)).not.toContain(url.split('/').at(-1));
      expect(await codeOf(engine.answer(OPS, r.question.id, { ok: true }))).toBe('WRONG_DOOR');
    });

    it('validates answers by format and leaves the question pending on a bad one', async () => {
      const r = await ask({
        format: 'FORM',
        schema: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] },
      });
      expect(await fieldOf(engine.answer(OPS, r.question.id, {}))).toBe('answer.email');
      expect(await codeOf(engine.answer(OPS, r.question.id, { email: 3 }))).toBe('BAD_USER_INPUT');
      expect((await store.get(r.question.id))?.status).toBe('PENDING');
      const c = await ask({});
      expect(await codeOf(engine.answer(OPS, c.question.id, 'true'))).toBe('BAD_USER_INPUT');
      expect(await codeOf(engine.answer(OPS, c.question.id, 1))).toBe('BAD_USER_INPUT');
      const s = await ask({ format: 'SELECT', options: ['red', 'green'] });
      expect(await codeOf(engine.answer(OPS, s.question.id, 'blue'))).toBe('BAD_USER_INPUT');
      expect((await engine.answer(OPS, s.question.id, 'green')).answer).toBe('green');
    });

    it('100 concurrent answers: exactly one ANSWERED, 99 ALREADY_ANSWERED', async () => {
      const r = await ask({ format: 'TEXT' });
      const codes = await Promise.all(
        Array.from({ length: 100 }, (_, i) => codeOf(engine.answer(OPS, r.question.id, `answer ${i}`))),
      );
      expect(codes.filter((c) => c === 'OK')).toHaveLength(1);
      expect(codes.filter((c) => c === 'ALREADY_ANSWERED')).toHaveLength(99);
    });

    it('answer, cancel and timeout racing: one outcome, and the losers learn why', async () => {
      for (let i = 0; i < 10; i++) {
        const r = await ask({ timeoutSeconds: 1 });
        const id = r.question.id;
        const results = await Promise.all([
          codeOf(engine.answer(OPS, id, true)),
          codeOf(engine.cancel(AGENT, id, 'race')),
          store.expireDue(r.question.timeoutAt, 3_600_000, 10),
          codeOf(engine.answer(ADMIN, id, false)),
        ]);
        const final = (await store.get(id))!;
        const oks = results.filter((x) => x === 'OK').length + (results[2] as number);
        expect(oks).toBe(1);
        for (const c of [results[0], results[1], results[3]]) {
          if (c !== 'OK')
            expect(c).toBe(final.status === 'ANSWERED' ? 'ALREADY_ANSWERED' : 'QUESTION_CLOSED');
        }
      }
    });

    it('cancel wakes the waiter with CANCELLED; later answers get QUESTION_CLOSED', async () => {
      const asked = nextAsked(engine);
      const held = engine.ask(AGENT, { text: 'Go?', format: 'CONFIRM' }, { holdSeconds: 60 });
      const q = await asked;
      const closed = await engine.cancel(AGENT, q.id, 'plans changed');
      expect(closed).toMatchObject({ status: 'CANCELLED', cancelReason: 'plans changed' });
      expect((await held).status).toBe('CANCELLED');
      expect(await codeOf(engine.answer(OPS, q.id, true))).toBe('QUESTION_CLOSED');
      expect(await codeOf(engine.cancel(OPS, q.id))).toBe('QUESTION_CLOSED');
    });

    it('the local timer times a held question out without waiting for the reaper', async () => {
      const r = await ask({ timeoutSeconds: 1 }, AGENT, 30);
      expect(r.status).toBe('TIMED_OUT');
      expect(r.question.closedAt).toBeGreaterThanOrEqual(r.question.timeoutAt);
      expect(await codeOf(engine.answer(OPS, r.question.id, true))).toBe('QUESTION_CLOSED');
    });

    it('the reaper times out a question nobody waits on, exactly once', async () => {
      const r = await ask({ timeoutSeconds: 1 });
      const seen: string[] = [];
      const stop = engine.watch(OPS, { event: (e) => seen.push(e.type), resync() {} });
      await Promise.all([
        store.expireDue(r.question.timeoutAt, 3_600_000, 10),
        store.expireDue(r.question.timeoutAt + 1, 3_600_000, 10),
      ]);
      const after = await engine.awaitAnswer(AGENT, r.question.id, { holdSeconds: 0 });
      expect(after.status).toBe('TIMED_OUT');
      await waitUntil(() => seen.includes('TIMED_OUT'));
      expect(seen.filter((t) => t === 'TIMED_OUT')).toHaveLength(1);
      stop();
    });

    it('a sensitive answer reaches the asker once and is never stored', async () => {
      const asked = nextAsked(engine);
      const held = engine.ask(
        AGENT,
        { text: 'Password?', format: 'TEXT', sensitive: true },
        { holdSeconds: 60 },
      );
      const q = await asked;
      const answered = await engine.answer(OPS, q.id, 'hunter2');
      expect(answered.answer).toBeNull();
      expect((await held).answer).toBe('hunter2');
      expect((await store.get(q.id))?.answer).toBeNull();
      expect(JSON.stringify(await store.list({}, { first: 10 }))).not.toContain('hunter2');
      // A re-read within the reply grace gets it again (the first response may have been lost).
      const second = await engine.awaitAnswer(AGENT, q.id, { holdSeconds: 0 });
      expect(second).toMatchObject({ status: 'ANSWERED', answer: 'hunter2' });
    });

    it('an operator awaiting a sensitive question never gets the answer', async () => {
      const r = await ask({ format: 'TEXT', sensitive: true });
      await engine.answer(OPS, r.question.id, 'secret');
      expect((await engine.awaitAnswer(OPS, r.question.id, { holdSeconds: 0 })).answer).toBeNull();
      expect((await engine.awaitAnswer(AGENT, r.question.id, { holdSeconds: 0 })).answer).toBe('secret');
    });

    it('an idempotency key returns the same question, even after it timed out', async () => {
      const a = await ask({ idempotencyKey: 'deploy-42' });
      const b = await ask({ idempotencyKey: 'deploy-42', text: 'different text' });
      expect(b.question.id).toBe(a.question.id);
      const other = await ask({ idempotencyKey: 'deploy-42' }, AGENT2);
      expect(other.question.id).not.toBe(a.question.id);
      await store.claim(a.question.id, { status: 'TIMED_OUT', now: Date.now(), retentionMs: 60_000 });
      const c = await ask({ idempotencyKey: 'deploy-42' });
      expect(c).toMatchObject({ status: 'TIMED_OUT', question: { id: a.question.id } });
    });

    it('refuses past MAX_PENDING with LIMIT_EXCEEDED and stores nothing more', async () => {
      const small = await startEngines(kind, 1, { maxPending: 2 });
      try {
        const e = small.engines[0]!;
        await e.ask(AGENT, { text: 'a' }, { holdSeconds: 0 });
        await e.ask(AGENT, { text: 'b' }, { holdSeconds: 0 });
        expect(await codeOf(e.ask(AGENT, { text: 'c' }, { holdSeconds: 0 }))).toBe('LIMIT_EXCEEDED');
        expect(await small.stores[0]!.pending({})).toHaveLength(2);
      } finally {
        await small.close();
      }
    });

    it('an aborted wait returns at once and leaves the question pending', async () => {
      const ctl = new AbortController();
      const asked = nextAsked(engine);
      const held = engine.ask(
        AGENT,
        { text: 'Wait', format: 'TEXT' },
        { holdSeconds: 60, signal: ctl.signal },
      );
      const q = await asked;
      ctl.abort();
      expect((await held).status).toBe('PENDING');
      expect((await store.get(q.id))?.status).toBe('PENDING');
    });

    it('restricted keys: audience forced to themselves, others hidden, no existence oracle', async () => {
      const mine = await ask({}, ALICE);
      expect(mine.question.audience).toBe('alice');
      expect(await codeOf(ask({ audience: 'bob' }, ALICE))).toBe('FORBIDDEN');
      const forBob = await ask({ audience: 'bob' }, AGENT);
      const unaddressed = await ask({}, AGENT);
      for (const id of [forBob.question.id, unaddressed.question.id, 'no-such-id']) {
        expect(await engine.get(ALICE, id)).toBeNull();
        expect(await codeOf(engine.answer(ALICE, id, true))).toBe('NOT_FOUND');
        expect(await codeOf(engine.cancel(ALICE, id))).toBe('NOT_FOUND');
        expect(await codeOf(engine.awaitAnswer(ALICE, id, { holdSeconds: 0 }))).toBe('NOT_FOUND');
      }
      const page = await engine.list(ALICE, {}, { first: 1 });
      expect(page.totalCount).toBe(1);
      expect(page.edges.map((e) => e.node.id)).toEqual([mine.question.id]);
      expect((await engine.list(ALICE, { audience: 'bob' }, { first: 5 })).totalCount).toBe(0);
      expect((await engine.pending(BOB)).map((q) => q.id)).toEqual([forBob.question.id]);
      expect((await engine.answer(BOB, forBob.question.id, true)).answeredBy).toBe('bob');
    });

    it('roles: agents see and cancel only their own questions and never answer', async () => {
      const mine = await ask({}, AGENT);
      const theirs = await ask({}, AGENT2);
      expect(await engine.get(AGENT, theirs.question.id)).toBeNull();
      expect(await codeOf(engine.cancel(AGENT, theirs.question.id))).toBe('NOT_FOUND');
      expect(await codeOf(engine.answer(AGENT, mine.question.id, true))).toBe('FORBIDDEN');
      expect(await codeOf(engine.ask(OPS, { text: 'x' }))).toBe('FORBIDDEN');
      expect((await engine.list(AGENT, {}, { first: 10 })).edges.map((e) => e.node.id)).toEqual([
        mine.question.id,
      ]);
      expect((await engine.list(OPS, {}, { first: 10 })).totalCount).toBe(2);
      expect(await codeOf(engine.list(OPS, {}, { first: 0 }))).toBe('BAD_USER_INPUT');
      expect(await codeOf(engine.list(OPS, {}, { first: 201 }))).toBe('BAD_USER_INPUT');
      expect((await engine.list(OPS, {}, { first: 200 })).totalCount).toBe(2);
      const nobody: Principal = { id: 'anonymous', roles: [], restricted: false };
      expect((await engine.list(nobody, {}, { first: 10 })).totalCount).toBe(0);
      expect(await engine.pending(nobody)).toEqual([]);
    });

    it('a waiter that registers just before the answer lands never misses it', async () => {
      // Too large to be kept as announced (100 options of 500 characters), so the wait reads it.
      const options = Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(500, '.'));
      const r = await ask({ format: 'SELECT', options });
      const id = r.question.id;
      // The read that follows registration returns PENDING, and the answer lands right
      // after it: only the registration made before the read can deliver it.
      const realGet = store.get.bind(store);
      let raced = false;
      store.get = async (qid: string) => {
        const seen = await realGet(qid);
        if (!raced && qid === id) {
          raced = true;
          await engine.answer(OPS, id, options[7]);
        }
        return seen;
      };
      try {
        const res = await engine.awaitAnswer(AGENT, id, { holdSeconds: 3600 });
        expect(raced).toBe(true);
        expect(res).toMatchObject({ status: 'ANSWERED', answer: options[7] });
      } finally {
        store.get = realGet;
      }
    }, 10_000);

    it('a hold on a question heard asked needs no read, and the answer that follows wakes it', async () => {
      const asked = nextAsked(engine, 'Heard?');
      await ask({ text: 'Heard?' });
      const q = await asked;
      const realGet = store.get.bind(store);
      const reads: string[] = [];
      store.get = async (qid: string) => {
        reads.push(qid);
        return realGet(qid);
      };
      try {
        const held = engine.awaitAnswer(AGENT, q.id, { holdSeconds: 3600 });
        // Lands while the waiter's first step may still be running.
        await engine.answer(OPS, q.id, true);
        expect(await held).toMatchObject({ status: 'ANSWERED', answer: true });
        expect(reads).not.toContain(q.id);
      } finally {
        store.get = realGet;
      }
      // A call that does not wait still reads.
      expect((await engine.awaitAnswer(AGENT, q.id, { holdSeconds: 0 })).status).toBe('ANSWERED');
    }, 10_000);

    it('10,000 concurrent waiters in one process are all woken', async () => {
      const n = 10_000;
      const ids: string[] = [];
      for (let i = 0; i < n; i += 500) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(500, n - i) }, (_, j) =>
            engine.ask(AGENT, { text: `q${i + j}`, format: 'TEXT' }, { holdSeconds: 0 }),
          ),
        );
        ids.push(...batch.map((b) => b.question.id));
      }
      const waits = ids.map((id) => engine.awaitAnswer(AGENT, id, { holdSeconds: 600 }));
      await waitUntil(() => engine.waiterCount() === n);
      for (let i = 0; i < n; i += 500) {
        await Promise.all(ids.slice(i, i + 500).map((id, j) => engine.answer(OPS, id, `a${i + j}`)));
      }
      const results = await Promise.all(waits);
      expect(results.every((r, i) => r.status === 'ANSWERED' && r.answer === `a${i}`)).toBe(true);
      expect(engine.waiterCount()).toBe(0);
    }, 120_000);
  });
}

describe('engines sharing one Redis', () => {
  let set: EngineSet;
  afterEach(async () => {
    await set.close();
  });

  it('an answer through engine B wakes a waiter on engine A', async () => {
    set = await startEngines('redis', 2);
    const [a, b] = set.engines as [Engine, Engine];
    const asked = nextAsked(b);
    const held = a.ask(AGENT, { text: 'Cross?', format: 'CONFIRM' }, { holdSeconds: 60 });
    const q = await asked;
    await b.answer(OPS, q.id, true);
    expect(await held).toMatchObject({ status: 'ANSWERED', answer: true });
  });

  it('a due question is timed out once across both reapers', async () => {
    set = await startEngines('redis', 2, { reaperIntervalMs: 50 });
    const [a, b] = set.engines as [Engine, Engine];
    const types: string[] = [];
    for (const e of [a, b]) e.watch(OPS, { event: (ev) => types.push(`${ev.type}`), resync() {} });
    const r = await a.ask(AGENT, { text: 'Soon', timeoutSeconds: 1 }, { holdSeconds: 0 });
    await waitUntil(() => types.filter((t) => t === 'TIMED_OUT').length === 2);
    const q = await a.get(OPS, r.question.id);
    expect(q?.status).toBe('TIMED_OUT');
    // each engine's feed saw the one TIMED_OUT announcement once
    expect(types.filter((t) => t === 'TIMED_OUT')).toHaveLength(2);
    expect(types.filter((t) => t === 'ASKED')).toHaveLength(2);
  });

  it('no answer is lost when the subscriber connection is killed mid-wait', async () => {
    set = await startEngines('redis', 2);
    const [a, b] = set.engines as [Engine, Engine];
    for (let round = 0; round < 5; round++) {
      const text = `Kill ${round}`;
      const asked = nextAsked(b, text);
      const held = a.ask(AGENT, { text, format: 'TEXT' }, { holdSeconds: 3600 });
      const q = await asked;
      await waitUntil(() => a.waiterCount() === 1);
      // Both subscribers are back (resubscribed and resynced) before the next round kills them.
      const back = Promise.all([nextResync(a), nextResync(b)]);
      expect(await killSubscribers(set.redis[1]!, subscriberName(set.prefix))).toBe(2);
      await b.answer(OPS, q.id, `after kill ${round}`);
      expect(await held).toMatchObject({ status: 'ANSWERED', answer: `after kill ${round}` });
      await back;
    }
  }, 20_000);
});

describe('a question whose record vanished (Redis restarted without persistence)', () => {
  let set: EngineSet;
  afterEach(async () => {
    await set.close();
  });

  /** Asks, holds on it with awaitAnswer, then deletes its record under the held wait. */
  async function heldThenDeleted(): Promise<{ engine: Engine; held: Promise<unknown> }> {
    const engine = set.engines[0]!;
    const r = await engine.ask(AGENT, { text: 'Still there?' }, { holdSeconds: 0 });
    const held = engine.awaitAnswer(AGENT, r.question.id, { holdSeconds: 3600 });
    await waitUntil(() => engine.waiterCount() === 1);
    // Same connection as the engine's read of the record, so Redis runs that read first.
    expect(await set.redis[0]!.del(`${set.prefix}q:${r.question.id}`)).toBe(1);
    return { engine, held };
  }

  it('the resync after the subscriber reconnects ends its held waiters with NOT_FOUND', async () => {
    set = await startEngines('redis', 1);
    const { engine, held } = await heldThenDeleted();
    const resynced = nextResync(engine);
    expect(await killSubscribers(set.redis[0]!, subscriberName(set.prefix))).toBe(1);
    expect(await codeOf(held)).toBe('NOT_FOUND');
    await resynced;
    expect(engine.waiterCount()).toBe(0);
  });

  it('the periodic sweep ends them with NOT_FOUND too, without a reconnect', async () => {
    set = await startEngines('redis', 1, { reaperIntervalMs: 20, sweepIntervalMs: 20 });
    const { engine, held } = await heldThenDeleted();
    expect(await codeOf(held)).toBe('NOT_FOUND');
    expect(engine.waiterCount()).toBe(0);
  });
});

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`the periodic sweep of held questions (${kind})`, () => {
    let set: EngineSet;
    afterEach(async () => {
      await set.close();
    });

    it('wakes a held wait whose resolution announcement was lost, with the resolved question', async () => {
      set = await startEngines(kind, 1);
      const [answering] = set.engines as [Engine];
      const store = set.stores[0]!;
      // An engine that never hears a resolution: only its sweep can learn of the answer.
      const deaf: QuestionStore = {
        ...store,
        listen: (l) =>
          store.listen({
            event: (e) => {
              if (e.type === 'ASKED' || e.type === 'UPDATED') l.event(e);
            },
            resync: () => l.resync(),
          }),
      };
      const engine = createInteractions({
        store: deaf,
        settings: { ...SETTINGS, reaperIntervalMs: 20, sweepIntervalMs: 20 },
      });
      await engine.start();
      try {
        const r = await engine.ask(AGENT, { text: 'Heard?' }, { holdSeconds: 0 });
        const other = await engine.ask(AGENT, { text: 'Still waiting' }, { holdSeconds: 0 });
        const held = engine.awaitAnswer(AGENT, r.question.id, { holdSeconds: 3600 });
        const stays = engine.awaitAnswer(AGENT, other.question.id, { holdSeconds: 3600 });
        await waitUntil(() => engine.waiterCount() === 2);
        await answering.answer(OPS, r.question.id, 'swept');
        const bound = new Promise<string>((res) => setTimeout(() => res('never woken'), 5000).unref());
        expect(await Promise.race([held, bound])).toMatchObject({ status: 'ANSWERED', answer: 'swept' });
        // The pending one is left waiting.
        expect(engine.waiterCount()).toBe(1);
        await answering.cancel(OPS, other.question.id);
        expect((await stays).status).toBe('CANCELLED');
      } finally {
        await engine.stop();
      }
    });
  });
}

/** Polls a cheap in-process condition (no store round trips); fails the test if it never holds. */
async function waitUntil(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition never held');
    await new Promise((r) => setImmediate(r));
  }
}

/**
 * The next question asked (with this text, when given) as this engine sees it: from its ASKED
 * announcement, or, when the feed resyncs because announcements were lost, from the backlog.
 */
function nextAsked(engine: Engine, text?: string): Promise<QuestionRecord> {
  const matches = (q: QuestionRecord): boolean => text === undefined || q.text === text;
  return new Promise((resolve, reject) => {
    const found = (q: QuestionRecord): void => {
      stop();
      resolve(q);
    };
    const stop = engine.watch(OPS, {
      event(e) {
        if (e.type === 'ASKED' && matches(e.question)) found(e.question);
      },
      resync() {
        if (text === undefined) return;
        engine.pending(OPS).then((qs) => {
          const q = qs.find(matches);
          if (q) found(q);
        }, reject);
      },
    });
  });
}

/** Resolves at this engine's next resync: its subscriber reconnected and subscribed again. */
function nextResync(engine: Engine): Promise<void> {
  return new Promise((resolve) => {
    const stop = engine.watch(OPS, {
      event() {},
      resync() {
        stop();
        resolve();
      },
    });
  });
}
