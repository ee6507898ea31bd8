// Grants are re-checked when used (API.md §20, §22), on both stores: a grant decides a later ask
// only while its giver could answer that question at that instant. A giver who left the group the
// question is addressed to (or that its voters name), a grant given as a delegate whose delegation
// has since ended or expired, and a giver who has since become the requester's delegate: each time
// the question is asked instead, nothing is counted or audited, and the grant decides again once
// the giver could answer again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Group, parseGroups } from '../../src/domain/groups.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { createDirectory, type Directory } from '../../src/engine/people/directory.ts';
import { AGENT, type EngineSet, type StoreKind, startEngines } from '../support/engines.ts';

const HOUR = { scope: 'SAME_ARGUMENTS', seconds: 3600 };
const OPS: Principal = { id: 'ops', roles: ['operator'], restricted: false };
const OPS2: Principal = { id: 'ops2', roles: ['operator'], restricted: false };
const ALICE: Principal = { id: 'alice', roles: ['operator'], restricted: true };
const BOB: Principal = { id: 'bob', roles: ['operator'], restricted: true };

const groupsWith = (members: string[]): Group[] =>
  parseGroups([
    { id: 'payments', members },
    { id: 'other', members: ['zed'] },
  ]);

/**
 * A directory whose groups a test replaces, as a new groups file at a restart would: every call
 * reads the groups of the moment, as an instance started with them would.
 */
function swappableDirectory(initial: Group[]): { directory: Directory; use(groups: Group[]): void } {
  let current = createDirectory(initial);
  const directory: Directory = {
    get groups() {
      return current.groups;
    },
    groupsOf: (identity) => current.groupsOf(identity),
    withGroups: (p) => current.withGroups(p),
    onCall: (id, at) => current.onCall(id, at),
    isAddressee: (q, identity, extra) => current.isAddressee(q, identity, extra),
    isVoter: (voters, identity, extra) => current.isVoter(voters, identity, extra),
    voterCount: (voters) => current.voterCount(voters),
  };
  return { directory, use: (groups) => (current = createDirectory(groups)) };
}

const approval = (name: string, extra: Record<string, unknown> = {}) => ({
  text: `may I ${name}?`,
  format: 'APPROVAL',
  action: { name, arguments: { amount: 10 } },
  ...extra,
});

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`grants are re-checked against groups and delegations when used (${kind})`, () => {
    let set: EngineSet;
    let now = Date.parse('2026-05-04T10:00:00Z');
    const groups = swappableDirectory(groupsWith(['ops', 'bob']));
    beforeAll(async () => {
      set = await startEngines(kind, 1, {}, { clock: () => now, directory: groups.directory });
    });
    afterAll(() => set.close());
    const engine = () => set.engines[0]!;
    let n = 0;
    const fresh = () => `payments.refund-recheck${++n}`;

    async function ask(input: Record<string, unknown>) {
      return (await engine().ask(AGENT, input, { holdSeconds: 0 })).question;
    }
    async function grant(by: Principal, input: Record<string, unknown>) {
      const q = await ask(input);
      expect(q.status).toBe('PENDING');
      const answered = await engine().answer(by, q.id, { decision: 'APPROVED', grant: HOUR });
      expect(answered.status).toBe('ANSWERED');
      const given = (await engine().grants.mine(by)).find((g) => g.questionId === q.id);
      expect(given).toBeDefined();
      return given!;
    }
    async function usesOf(by: Principal, id: string): Promise<number | undefined> {
      return (await engine().grants.mine(by)).find((g) => g.id === id)?.uses;
    }
    async function grantUsedEntries(grantId: string): Promise<number> {
      const log = (await set.stores[0]!.audit.page({ first: 5000 })).entries;
      return log.filter((e) => e.type === 'GRANT_USED' && e.detail?.grantId === grantId).length;
    }

    it('a member’s grant on a group’s question stops deciding when they leave the group, and resumes when they rejoin', async () => {
      const name = fresh();
      const input = approval(name, { audience: 'group:payments' });
      const g = await grant(OPS, input);
      expect((await ask(input)).status).toBe('ANSWERED');
      expect(await usesOf(OPS, g.id)).toBe(1);

      groups.use(groupsWith(['bob']));
      try {
        const asked = await ask(input);
        expect(asked.status).toBe('PENDING');
        expect(asked.answeredBy ?? null).toBeNull();
        // Refused before the store step: not counted, not audited.
        expect(await usesOf(OPS, g.id)).toBe(1);
        expect(await grantUsedEntries(g.id)).toBe(1);
        // A question addressed to someone else than a group is still covered (ops is unrestricted).
        expect((await ask(approval(name, { audience: 'carol' }))).status).toBe('ANSWERED');
      } finally {
        groups.use(groupsWith(['ops', 'bob']));
      }
      expect((await ask(input)).status).toBe('ANSWERED');
      expect(await grantUsedEntries(g.id)).toBe(3);
    });

    it('a grant never covers a question for a group its giver is not in (an unrestricted giver included)', async () => {
      const name = fresh();
      const g = await grant(OPS, approval(name, { audience: 'group:payments' }));
      expect((await ask(approval(name, { audience: 'group:other' }))).status).toBe('PENDING');
      expect(await usesOf(OPS, g.id)).toBe(0);
      expect((await ask(approval(name, { audience: 'group:payments' }))).status).toBe('ANSWERED');
    });

    it('a voters list naming a group: covered for a member, not once they left', async () => {
      const name = fresh();
      const input = approval(name, { quorum: { approvals: 1, voters: ['group:payments'] } });
      const g = await grant(OPS, input);
      expect((await ask(input)).status).toBe('ANSWERED');
      groups.use(groupsWith(['bob']));
      try {
        expect((await ask(input)).status).toBe('PENDING');
        expect(await usesOf(OPS, g.id)).toBe(1);
      } finally {
        groups.use(groupsWith(['ops', 'bob']));
      }
      // A voters list that names neither the giver nor a group of theirs is never covered.
      expect((await ask(approval(name, { quorum: { approvals: 1, voters: ['group:other'] } }))).status).toBe(
        'PENDING',
      );
    });

    it('a grant given as a delegate decides while the delegation holds, and nothing once it has ended or expired', async () => {
      const name = fresh();
      const input = approval(name, { audience: 'alice' });
      await engine().presence.delegations.set(ALICE, { to: 'bob', until: now + 1800_000 });
      const g = await grant(BOB, input);
      expect(g.onBehalfOf).toBe('alice');
      const log = (await set.stores[0]!.audit.page({ first: 5000 })).entries;
      expect(log.find((e) => e.type === 'GRANT_GIVEN' && e.detail?.grantId === g.id)).toMatchObject({
        actor: 'bob',
        detail: { onBehalfOf: 'alice' },
      });
      expect((await ask(input)).status).toBe('ANSWERED');
      // Ended early: asked.
      expect(await engine().presence.delegations.end(ALICE)).toBe(true);
      expect((await ask(input)).status).toBe('PENDING');
      expect(await usesOf(BOB, g.id)).toBe(1);
      // Set again, then expired (the grant, an hour, outlives the half hour; the clock only moves on).
      const start = now;
      await engine().presence.delegations.set(ALICE, { to: 'bob', until: start + 1800_000 });
      now = start + 1800_000 - 1;
      expect((await ask(input)).status).toBe('ANSWERED');
      now = start + 1800_000;
      expect((await ask(input)).status).toBe('PENDING');
      expect(await usesOf(BOB, g.id)).toBe(2);
      expect(await grantUsedEntries(g.id)).toBe(2);
    });

    it('a restricted delegate’s grant on their own question does not reach the person they act for once that ends', async () => {
      const name = fresh();
      await engine().presence.delegations.set(ALICE, { to: 'bob', until: now + 3600_000 });
      const g = await grant(BOB, approval(name, { audience: 'bob' }));
      expect(g.onBehalfOf).toBeUndefined();
      // While bob acts for alice, alice’s question is one bob could answer: covered.
      expect((await ask(approval(name, { audience: 'alice' }))).status).toBe('ANSWERED');
      expect(await engine().presence.delegations.end(ALICE)).toBe(true);
      expect((await ask(approval(name, { audience: 'alice' }))).status).toBe('PENDING');
      expect((await ask(approval(name, { audience: 'bob' }))).status).toBe('ANSWERED');
      expect(await usesOf(BOB, g.id)).toBe(2);
    });

    it('a giver who has since become the requester’s delegate no longer decides the request', async () => {
      const name = fresh();
      const input = {
        ...approval(name),
        action: { name, arguments: { amount: 10 }, requestedBy: 'alice' },
      };
      const g = await grant(OPS2, input);
      expect((await ask(input)).status).toBe('ANSWERED');
      await engine().presence.delegations.set(ALICE, { to: 'ops2', until: now + 3600_000 });
      try {
        expect((await ask(input)).status).toBe('PENDING');
        expect(await usesOf(OPS2, g.id)).toBe(1);
      } finally {
        await engine().presence.delegations.end(ALICE);
      }
      expect((await ask(input)).status).toBe('ANSWERED');
    });
  });
}
