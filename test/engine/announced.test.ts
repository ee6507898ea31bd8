// The announced questions an answer starts from instead of a read: bounded, dropped at the
// resolution, and never trusted for the status (the claim decides, over each real store).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { QuestionRecord } from '../../src/domain/question.ts';
import { recordOf } from '../../src/domain/question.ts';
import { createAnswering } from '../../src/engine/answers/answering.ts';
import { createRecordAnswer } from '../../src/engine/answers/record.ts';
import { createContext } from '../../src/engine/context.ts';
import { silentLogger } from '../../src/engine/logger.ts';
import { NO_CHANNELS, NO_OBSERVER, NO_VERIFIERS } from '../../src/engine/ports.ts';
import { type Announced, createAnnounced, estimatedBytes } from '../../src/engine/waiting/announced.ts';
import { createWaiterRegistry } from '../../src/engine/waiting/waiters.ts';
import { codeOf } from '../support/domain-errors.ts';
import type { Engine, EngineSet, StoreKind } from '../support/engines.ts';
import { AGENT, ALICE, BOB, OPS, SETTINGS, startEngines } from '../support/engines.ts';
import { specOf } from '../support/fixtures.ts';

const pending = (over: Parameters<typeof specOf>[0] = {}): QuestionRecord => recordOf(specOf(over), null);

describe('announced questions', () => {
  it('keeps a question from ASKED until its resolution', () => {
    const a = createAnnounced();
    const q = pending();
    a.observe('ASKED', q);
    expect(a.get(q.id)).toBe(q);
    a.observe('ANSWERED', { ...q, status: 'ANSWERED' });
    expect(a.get(q.id)).toBeUndefined();
    expect(a.size()).toBe(0);
  });

  it('keeps at most maxEntries, dropping the oldest first', () => {
    const a = createAnnounced({ maxEntries: 3, maxBytes: 1 << 30, maxEntryBytes: 1 << 20 });
    const qs = Array.from({ length: 5 }, () => pending());
    for (const q of qs) a.observe('ASKED', q);
    expect(a.size()).toBe(3);
    expect(qs.map((q) => a.get(q.id) !== undefined)).toEqual([false, false, true, true, true]);
  });

  it('keeps the estimated bytes under maxBytes and leaves out a question larger than maxEntryBytes', () => {
    const small = pending();
    const one = estimatedBytes(small);
    const a = createAnnounced({ maxEntries: 100, maxBytes: one * 2, maxEntryBytes: one * 2 });
    const big = pending({ text: 'x'.repeat(one) });
    a.observe('ASKED', big);
    expect(a.get(big.id)).toBeUndefined();
    const qs = Array.from({ length: 3 }, () => pending());
    for (const q of qs) a.observe('ASKED', q);
    expect(qs.map((q) => a.get(q.id) !== undefined)).toEqual([false, true, true]);
  });

  it('counts media, schemas and metadata in the estimate', () => {
    const plain = estimatedBytes(pending());
    expect(
      estimatedBytes(pending({ media: [{ kind: 'LINK', url: `https://x.test/${'a'.repeat(5000)}` }] })),
    ).toBeGreaterThan(plain + 10_000);
    expect(
      estimatedBytes(pending({ format: 'FORM', schema: { description: 'd'.repeat(5000) } })),
    ).toBeGreaterThan(plain + 10_000);
    expect(estimatedBytes(pending({ metadata: { note: 'm'.repeat(3000) } }))).toBeGreaterThan(plain + 6000);
  });

  it('clear() forgets everything', () => {
    const a = createAnnounced();
    const q = pending();
    a.observe('ASKED', q);
    a.clear();
    expect(a.get(q.id)).toBeUndefined();
  });
});

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`answering from an announcement that is out of date, on the ${kind} store`, () => {
    let set: EngineSet;
    let engine: Engine;
    let stale: Announced;
    let late: ReturnType<typeof createAnswering>;

    beforeEach(async () => {
      set = await startEngines(kind);
      engine = set.engines[0]!;
      // A second engine part over the same store whose announcements stopped at ASKED (as if
      // the rest were lost): what it holds says PENDING whatever the store says.
      stale = createAnnounced();
      const ctx = createContext({
        store: set.stores[0]!,
        settings: SETTINGS,
        clock: Date.now,
        logger: silentLogger,
        verifiers: NO_VERIFIERS,
        channels: NO_CHANNELS,
        webhooks: new Set(),
        observer: NO_OBSERVER,
        waiters: createWaiterRegistry(),
        announced: stale,
      });
      late = createAnswering(ctx, createRecordAnswer(ctx).record);
    });
    afterEach(async () => {
      await set.close();
    });

    async function askHeardOnlyAsked(): Promise<QuestionRecord> {
      const r = await engine.ask(AGENT, { text: 'Proceed?', format: 'CONFIRM' }, { holdSeconds: 0 });
      stale.observe('ASKED', r.question);
      return r.question;
    }

    it('an answer to a question answered meanwhile is ALREADY_ANSWERED, valid or not', async () => {
      const q = await askHeardOnlyAsked();
      await engine.answer(OPS, q.id, true);
      expect(await codeOf(late.answer(OPS, q.id, false))).toBe('ALREADY_ANSWERED');
      expect(await codeOf(late.answer(OPS, q.id, 'not a boolean'))).toBe('ALREADY_ANSWERED');
      expect(await codeOf(late.cancel(OPS, q.id, null))).toBe('ALREADY_ANSWERED');
    });

    it('an answer to a question cancelled meanwhile is QUESTION_CLOSED, valid or not', async () => {
      const q = await askHeardOnlyAsked();
      await engine.cancel(OPS, q.id, null);
      expect(await codeOf(late.answer(OPS, q.id, true))).toBe('QUESTION_CLOSED');
      expect(await codeOf(late.answer(OPS, q.id, 7))).toBe('QUESTION_CLOSED');
    });

    it('an invalid answer to a question still pending is BAD_USER_INPUT and leaves it pending', async () => {
      const q = await askHeardOnlyAsked();
      expect(await codeOf(late.answer(OPS, q.id, 'yes'))).toBe('BAD_USER_INPUT');
      expect((await set.stores[0]!.get(q.id))?.status).toBe('PENDING');
      expect((await late.answer(OPS, q.id, true)).status).toBe('ANSWERED');
    });

    it('the part that resolves a question drops its copy at once, won or lost, without the announcement', async () => {
      const mine = await askHeardOnlyAsked();
      expect((await late.answer(OPS, mine.id, true)).status).toBe('ANSWERED');
      expect(stale.get(mine.id)).toBeUndefined();
      const theirs = await askHeardOnlyAsked();
      await engine.cancel(OPS, theirs.id, null);
      expect(stale.get(theirs.id)).toBeDefined();
      expect(await codeOf(late.answer(OPS, theirs.id, true))).toBe('QUESTION_CLOSED');
      expect(stale.get(theirs.id)).toBeUndefined();
    });

    it('a question the caller may not see is NOT_FOUND from the announcement too', async () => {
      const forBob = await engine.ask(BOB, { text: 'Bob only?', format: 'CONFIRM' }, { holdSeconds: 0 });
      stale.observe('ASKED', forBob.question);
      expect(await codeOf(late.answer(ALICE, forBob.question.id, true))).toBe('NOT_FOUND');
      expect(await codeOf(late.cancel(ALICE, forBob.question.id, null))).toBe('NOT_FOUND');
      expect((await late.answer(BOB, forBob.question.id, true)).answeredBy).toBe('bob');
    });

    if (kind === 'redis') {
      it('a question whose record is gone is NOT_FOUND, not answered', async () => {
        const q = await askHeardOnlyAsked();
        await set.redis[0]!.del(`${set.prefix}q:${q.id}`);
        expect(await codeOf(late.answer(OPS, q.id, true))).toBe('NOT_FOUND');
      });
    }
  });
}
