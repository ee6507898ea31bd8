// Groups and on-call as addressees (API.md §22), through the engine on both stores: a question
// for `group:<id>` is seen, listed and answered by its members (restricted ones included), is
// absent for a restricted non-member (NOT_FOUND) and refused to an unrestricted one (FORBIDDEN);
// a quorum's `group:<id>` voters count each member once; `oncall:<id>` is routed to whoever is on
// duty at ask time (a fixed clock).
import { afterEach, describe, expect, it } from 'vitest';
import { isDomainError } from '../../src/domain/errors.ts';
import { parseGroups } from '../../src/domain/groups.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { createDirectory } from '../../src/engine/people/directory.ts';
import { ADMIN, AGENT, type EngineSet, startEngines } from '../support/engines.ts';

const directory = createDirectory(
  parseGroups([
    { id: 'payments', members: ['alice', 'carol', 'dave', 'sms:+15550001'] },
    {
      id: 'sre',
      members: ['erin', 'frank'],
      rotation: {
        every: '1d',
        startsAt: '2026-03-02T09:00:00Z',
        order: ['erin', 'frank'],
        handoverAt: '09:00',
        timeZone: 'UTC',
      },
    },
  ]),
);

// As the doors hand them to the engine: with their configured groups attached.
const member = (p: Principal) => directory.withGroups(p);
const ALICE = member({ id: 'alice', roles: ['operator'], restricted: true });
const CAROL = member({ id: 'carol', roles: ['operator'], restricted: false });
const DAVE = member({ id: 'dave', roles: ['operator'], restricted: false });
const BOB = member({ id: 'bob', roles: ['operator'], restricted: true });
const OPS = member({ id: 'ops', roles: ['operator'], restricted: false });
// Not in the file: a signed-in person whose identity provider says they are in `payments`.
const OIDC = { id: 'oidc:gina', roles: ['operator'] as const, restricted: true, groups: ['payments'] };
const ERIN = member({ id: 'erin', roles: ['operator'], restricted: true });
const FRANK = member({ id: 'frank', roles: ['operator'], restricted: true });

const codeOf = (err: unknown) => (isDomainError(err) ? err.code : `thrown: ${String(err)}`);
const T0 = Date.parse('2026-03-04T10:00:00Z');

for (const kind of ['memory', 'redis'] as const) {
  describe(`groups and on-call as addressees (${kind})`, () => {
    let set: EngineSet;
    let now = T0;
    afterEach(() => set.close());
    const start = async () => {
      set = await startEngines(kind, 1, {}, { directory, clock: () => now });
      return set.engines[0]!;
    };

    it('group:<id> — members see, list and answer it; a restricted non-member gets NOT_FOUND, an unrestricted one FORBIDDEN', async () => {
      const engine = await start();
      const { question: q } = await engine.ask(
        AGENT,
        { text: 'Refund?', format: 'CONFIRM', audience: 'group:payments' },
        { holdSeconds: 0 },
      );
      for (const p of [ALICE, CAROL, OIDC, OPS, ADMIN])
        expect(await engine.get(p, q.id), p.id).not.toBeNull();
      expect(await engine.get(BOB, q.id)).toBeNull();
      // Listing is confined before paging: the restricted member counts it, the non-member does not.
      expect((await engine.list(ALICE, {}, { first: 10 })).totalCount).toBe(1);
      expect((await engine.list(OIDC, { audience: 'group:payments' }, { first: 10 })).totalCount).toBe(1);
      expect((await engine.list(BOB, {}, { first: 10 })).totalCount).toBe(0);
      expect((await engine.pending(ALICE)).map((x) => x.id)).toEqual([q.id]);

      expect(await engine.answer(BOB, q.id, true).catch(codeOf)).toBe('NOT_FOUND');
      expect(await engine.answer(OPS, q.id, true).catch(codeOf)).toBe('FORBIDDEN');
      expect((await engine.get(ADMIN, q.id))!.status).toBe('PENDING');
      expect((await engine.answer(ALICE, q.id, true)).answeredBy).toBe('alice');

      // An unrestricted member and a member known only from the sign-in's claim answer too.
      for (const p of [CAROL, OIDC]) {
        const next = await engine.ask(
          AGENT,
          { text: 'Again?', format: 'TEXT', audience: 'group:payments' },
          { holdSeconds: 0 },
        );
        expect((await engine.answer(p, next.question.id, 'yes')).answeredBy).toBe(p.id);
      }
    });

    it('a restricted member still sees its own audience beside its groups, paged newest first', async () => {
      const engine = await start();
      const ids: string[] = [];
      for (const audience of ['alice', 'group:payments', 'group:sre', 'alice', 'group:payments']) {
        now += 1000;
        ids.push((await engine.ask(AGENT, { text: audience, audience }, { holdSeconds: 0 })).question.id);
      }
      const first = await engine.list(ALICE, {}, { first: 2 });
      expect(first.totalCount).toBe(4);
      expect(first.edges.map((e) => e.node.id)).toEqual([ids[4], ids[3]]);
      expect(first.hasNextPage).toBe(true);
      const rest = await engine.list(ALICE, {}, { first: 10, after: first.endCursor });
      expect(rest.edges.map((e) => e.node.id)).toEqual([ids[1], ids[0]]);
      expect(rest.hasNextPage).toBe(false);
    });

    it('a quorum of group:<id> voters counts each member once, refuses non-members and a quorum the group cannot reach', async () => {
      const engine = await start();
      const { question: q } = await engine.ask(
        AGENT,
        {
          text: 'Refund 500?',
          format: 'APPROVAL',
          action: { name: 'payments.refund', arguments: { amount: 500 } },
          // carol is named twice over (herself and as a member): still one vote.
          quorum: { approvals: 3, voters: ['group:payments', 'carol'] },
        },
        { holdSeconds: 0 },
      );
      expect((await engine.answer(CAROL, q.id, { decision: 'APPROVED' })).votes).toHaveLength(1);
      expect(await engine.answer(CAROL, q.id, { decision: 'APPROVED', note: 'again' }).catch(codeOf)).toBe(
        'ALREADY_ANSWERED',
      );
      expect(await engine.answer(OPS, q.id, { decision: 'APPROVED' }).catch(codeOf)).toBe('FORBIDDEN');
      // A member by the sign-in's claim only votes too.
      const gina = { ...OIDC, restricted: false };
      expect((await engine.answer(gina, q.id, { decision: 'APPROVED' })).status).toBe('PENDING');
      const decided = await engine.answer(DAVE, q.id, { decision: 'APPROVED' });
      expect(decided).toMatchObject({ status: 'ANSWERED', answeredBy: 'dave' });
      expect(decided.votes?.map((v) => v.by)).toEqual(['carol', 'oidc:gina', 'dave']);

      // A restricted member votes on its group's question.
      const mine = await engine.ask(
        AGENT,
        {
          text: 'Ok?',
          format: 'CONFIRM',
          audience: 'group:payments',
          quorum: { approvals: 2, voters: ['group:payments'] },
        },
        { holdSeconds: 0 },
      );
      expect((await engine.answer(ALICE, mine.question.id, true)).votes).toMatchObject([{ by: 'alice' }]);

      // payments has four members: five approvals can never be reached.
      const refused = await engine
        .ask(
          AGENT,
          {
            text: 'x',
            format: 'CONFIRM',
            quorum: { approvals: 5, voters: ['group:payments', 'alice'] },
          },
          { holdSeconds: 0 },
        )
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.quorum.voters' });
      expect(
        await engine
          .ask(
            AGENT,
            { text: 'x', format: 'CONFIRM', quorum: { approvals: 4, voters: ['group:payments'] } },
            { holdSeconds: 0 },
          )
          .then(() => 'ok', codeOf),
      ).toBe('ok');
    });

    it('oncall:<id> is routed to whoever is on duty when asked; the group sees it, the routed person answers', async () => {
      const engine = await start();
      now = Date.parse('2026-03-03T08:59:00Z'); // day 1 before the handover: still erin (day 0's)
      const early = (
        await engine.ask(
          AGENT,
          { text: 'Page?', format: 'CONFIRM', audience: 'oncall:sre' },
          { holdSeconds: 0 },
        )
      ).question;
      expect(early.routedTo).toBe('erin');
      now = Date.parse('2026-03-03T09:00:00Z'); // the handover: frank
      const late = (
        await engine.ask(
          AGENT,
          { text: 'Page?', format: 'CONFIRM', audience: 'oncall:sre' },
          { holdSeconds: 0 },
        )
      ).question;
      expect(late.routedTo).toBe('frank');
      expect(await engine.get(FRANK, late.id)).not.toBeNull();
      expect(await engine.get(BOB, late.id)).toBeNull();
      expect((await engine.answer(FRANK, late.id, true)).answeredBy).toBe('frank');
      expect((await engine.answer(ERIN, early.id, true)).answeredBy).toBe('erin');
      // A group with no rotation cannot be paged.
      expect(
        await engine
          .ask(AGENT, { text: 'x', audience: 'oncall:payments' }, { holdSeconds: 0 })
          .catch((e: unknown) => e),
      ).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.audience' });
    });
  });
}
