// Delegation and out-of-office (API.md §22), on both stores and across two instances sharing
// one: a delegate sees and answers the person's questions (recorded `onBehalfOf`, in the audit
// entry and the receipt's claims too), the bounds hold (90 days at and one past, not to oneself,
// not to a group), a delegate's own delegation is not followed, an ended or expired delegation
// stops at once, and a delegate votes at most once per question while the person keeps one vote.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiptClaimsOf } from '../../src/domain/decision-receipt.ts';
import { DELEGATION_MAX_MS } from '../../src/domain/delegation.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { AGENT, type EngineSet, type StoreKind, startEngines } from '../support/engines.ts';

const person = (id: string): Principal => ({ id, roles: ['operator'], restricted: true });
const ALICE = person('alice');
const BOB = person('bob');
const CAROL = person('carol');
const DAVE = person('dave');

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'OK';
  } catch (err) {
    return (err as { code?: string }).code ?? 'THROWN';
  }
}

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`delegation (${kind}, two instances)`, () => {
    let set: EngineSet;
    // A fixed clock both instances read: expiry is a step of it, never a sleep.
    let now = Date.now();
    beforeAll(async () => {
      set = await startEngines(kind, 2, {}, { clock: () => now });
    });
    afterAll(() => set.close());
    const one = () => set.engines[0]!;
    const two = () => set.engines[1]!;
    const ask = async (input: Record<string, unknown>): Promise<string> =>
      (await one().ask(AGENT, { text: 'ok?', format: 'TEXT', ...input }, { holdSeconds: 0 })).question.id;

    it('a delegate sees and answers the person’s questions on another instance, for them', async () => {
      const id = await ask({ audience: 'alice' });
      expect(await two().get(BOB, id)).toBeNull();
      const d = await one().presence.delegations.set(ALICE, {
        to: 'bob',
        until: now + 3600_000,
        reason: 'holiday',
      });
      expect(d).toMatchObject({ from: 'alice', to: 'bob', reason: 'holiday' });
      expect(await two().presence.delegations.get(ALICE)).toMatchObject({ to: 'bob' });
      expect(await two().presence.delegations.actingFor('bob')).toEqual(['alice']);
      expect((await two().get(BOB, id))?.id).toBe(id);
      const acting = await two().presence.acting(BOB);
      expect(acting.actsFor).toEqual(['alice']);
      expect((await two().pending(acting)).map((q) => q.id)).toContain(id);
      const answered = await two().answer(BOB, id, 'done');
      expect(answered).toMatchObject({ answeredBy: 'bob', onBehalfOf: 'alice', answer: 'done' });
      expect((await one().get(ALICE, id))?.onBehalfOf).toBe('alice');
      expect(receiptClaimsOf(answered, 'https://hitl.example')?.outcome).toMatchObject({
        answeredBy: 'bob',
        onBehalfOf: 'alice',
      });
      const log = (await set.stores[0]!.audit.page({ first: 1000 })).entries;
      const setEntry = log.filter((e) => e.type === 'DELEGATION_SET').at(-1);
      expect(setEntry).toMatchObject({ actor: 'alice', questionId: null, detail: { to: 'bob' } });
      expect(JSON.stringify(setEntry)).not.toContain('holiday');
      const answerEntry = log.find((e) => e.type === 'ANSWERED' && e.questionId === id);
      expect(answerEntry).toMatchObject({ actor: 'bob', detail: { onBehalfOf: 'alice' } });
    });

    it('someone not delegated to sees nothing, and the person still answers their own', async () => {
      const id = await ask({ audience: 'alice' });
      expect(await codeOf(two().answer(CAROL, id, 'x'))).toBe('NOT_FOUND');
      const own = await two().answer(ALICE, id, 'mine');
      expect(own.answeredBy).toBe('alice');
      expect(own.onBehalfOf).toBeUndefined();
    });

    it('no chains: the delegate’s own delegation is not followed', async () => {
      await one().presence.delegations.set(BOB, { to: 'carol', until: now + 3600_000 });
      const id = await ask({ audience: 'alice' });
      expect(await two().get(CAROL, id)).toBeNull();
      expect(await codeOf(two().answer(CAROL, id, 'x'))).toBe('NOT_FOUND');
      // carol acts for bob only, bob (away himself) still acts for alice.
      expect(await one().presence.delegations.actingFor('carol')).toEqual(['bob']);
      expect((await two().answer(BOB, id, 'y')).onBehalfOf).toBe('alice');
      await one().presence.delegations.end(BOB);
    });

    it('bounds: 90 days at and one past, not to oneself, not to a group, not in the past; nothing changes', async () => {
      const before = await one().presence.delegations.get(ALICE);
      const refused = async (input: Record<string, unknown>, field: string, msg: RegExp) => {
        const p = one().presence.delegations.set(ALICE, { to: 'dave', until: now + 1000, ...input });
        await expect(p).rejects.toMatchObject({
          code: 'BAD_USER_INPUT',
          field,
          message: expect.stringMatching(msg),
        });
      };
      await refused({ until: now + DELEGATION_MAX_MS + 1 }, 'until', /at most 90 days/);
      await refused({ to: 'alice' }, 'to', /yourself/);
      await refused({ to: 'group:payments' }, 'to', /not people/);
      await refused({ until: now }, 'until', /future/);
      await refused({ to: '' }, 'to', /name the identity/);
      await refused({ to: 'x'.repeat(129) }, 'to', /128/);
      await refused({ reason: 'r'.repeat(201) }, 'reason', /200/);
      expect(await one().presence.delegations.get(ALICE)).toEqual(before);
      const atLimit = await one().presence.delegations.set(DAVE, {
        to: 'x'.repeat(128),
        until: now + DELEGATION_MAX_MS,
      });
      expect(atLimit.until).toBe(now + DELEGATION_MAX_MS);
      expect(await codeOf(one().presence.delegations.set(AGENT, { to: 'bob', until: now + 1000 }))).toBe(
        'FORBIDDEN',
      );
      await one().presence.delegations.end(DAVE);
    });

    it('a delegate votes at most once per question; the person keeps one vote, whoever casts it', async () => {
      // Voters are operators who see every question (a restricted key sees only its audience, §2).
      const [ALICE, BOB, DAVE] = ['alice', 'bob', 'dave'].map((id) => ({ ...person(id), restricted: false }));
      await one().presence.delegations.set(DAVE!, { to: 'bob', until: now + 3600_000 });
      const id = (
        await one().ask(
          AGENT,
          {
            text: 'deploy?',
            format: 'APPROVAL',
            action: { name: 'deploy', arguments: {} },
            quorum: { approvals: 3, voters: ['alice', 'dave', 'erin'] },
          },
          { holdSeconds: 0 },
        )
      ).question.id;
      const voted = await two().answer(BOB!, id, { decision: 'APPROVED' });
      expect(voted.votes).toEqual([
        expect.objectContaining({ by: 'bob', onBehalfOf: 'alice', decision: 'APPROVED' }),
      ]);
      // bob acts for dave too, but has cast his one vote on this question.
      expect(await codeOf(one().answer(BOB!, id, { decision: 'REJECTED' }))).toBe('ALREADY_ANSWERED');
      // alice's one vote was cast for her.
      const aliceTries = one().answer(ALICE!, id, { decision: 'APPROVED' });
      await expect(aliceTries).rejects.toMatchObject({
        code: 'ALREADY_ANSWERED',
        message: 'you have already voted',
      });
      // The same vote again is a retry: success, nothing counted.
      expect((await two().answer(BOB!, id, { decision: 'APPROVED' })).votes).toHaveLength(1);
      const daveVotes = await two().answer(DAVE!, id, { decision: 'APPROVED' });
      expect(daveVotes.votes).toHaveLength(2);
      const entries = (await set.stores[0]!.audit.page({ first: 1000, questionId: id, types: ['VOTED'] }))
        .entries;
      expect(entries.map((e) => [e.actor, e.detail?.onBehalfOf ?? null])).toEqual([
        ['bob', 'alice'],
        ['dave', null],
      ]);
      await one().presence.delegations.end(DAVE!);
    });

    it('a person and their delegate racing on two instances: exactly one vote counts for the person', async () => {
      const [ALICE, BOB] = ['alice', 'bob'].map((id) => ({ ...person(id), restricted: false }));
      await one().presence.delegations.set(ALICE!, { to: 'bob', until: now + 3600_000 });
      for (let round = 0; round < 10; round++) {
        const id = (
          await one().ask(
            AGENT,
            {
              text: `race ${round}?`,
              format: 'APPROVAL',
              action: { name: 'deploy', arguments: {} },
              quorum: { approvals: 2, voters: ['alice', 'erin'] },
            },
            { holdSeconds: 0 },
          )
        ).question.id;
        const codes = await Promise.all([
          codeOf(one().answer(ALICE!, id, { decision: 'APPROVED' })),
          codeOf(two().answer(BOB!, id, { decision: 'REJECTED' })),
        ]);
        expect(codes.sort()).toEqual(['ALREADY_ANSWERED', 'OK']);
        const q = await one().get(ALICE!, id);
        expect(q?.votes).toHaveLength(1);
        expect(q?.votes?.[0]?.onBehalfOf ?? q?.votes?.[0]?.by).toBe('alice');
      }
      // alice's delegation to bob stays in force for the next test, as the first one set it.
    });

    it('ended early (DELEGATION_ENDED) or expired, the delegate sees the questions no more', async () => {
      const id = await ask({ audience: 'alice' });
      expect((await two().get(BOB, id))?.id).toBe(id);
      expect(await two().presence.delegations.end(ALICE)).toBe(true);
      expect(await two().presence.delegations.end(ALICE)).toBe(false);
      expect(await one().get(BOB, id)).toBeNull();
      const ended = (await set.stores[0]!.audit.page({ first: 1000, types: ['DELEGATION_ENDED'] })).entries;
      expect(ended.at(-1)).toMatchObject({ actor: 'alice', detail: { to: 'bob' } });

      await one().presence.delegations.set(ALICE, { to: 'bob', until: now + 60_000 });
      expect((await two().get(BOB, id))?.id).toBe(id);
      now += 60_000;
      expect(await two().get(BOB, id)).toBeNull();
      expect(await codeOf(two().answer(BOB, id, 'late'))).toBe('NOT_FOUND');
      expect(await one().presence.delegations.get(ALICE)).toBeNull();
      expect(await one().presence.delegations.actingFor('bob')).toEqual([]);
    });
  });
}
