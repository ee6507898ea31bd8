// Grants (API.md §20), on both stores: "approve, and allow the same" given through the one
// answer path, bounded at and one past every limit, refused for agents, quorum and sensitive
// questions and SAME_ACTION on hook or schemaless actions; used by later asks of the same asker
// and action (and arguments), counted (maxUses), expiring, revocable at once, audited in a chain
// that still verifies.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AuditEntry, auditHashOf } from '../../src/domain/audit.ts';
import type { Principal } from '../../src/domain/principal.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import {
  ADMIN,
  AGENT,
  AGENT2,
  type EngineSet,
  OPS,
  type StoreKind,
  startEngines,
} from '../support/engines.ts';

const OPS2: Principal = { id: 'ops2', roles: ['operator'], restricted: false };
const CAROL: Principal = { id: 'carol', roles: ['operator'], restricted: true };
const AGENT_OPERATOR: Principal = { id: 'bot', roles: ['agent', 'operator'], restricted: false };
const HOUR = { scope: 'SAME_ARGUMENTS', seconds: 3600 };
const SCHEMA = { type: 'object', properties: { amount: { type: 'number' } } };

const approval = (name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  text: `may I ${name}?`,
  format: 'APPROVAL',
  action: { name, arguments: args },
  ...extra,
});

async function chainVerifies(store: QuestionStore): Promise<void> {
  const entries: AuditEntry[] = [];
  let after: number | undefined;
  for (;;) {
    const page = await store.audit.page({ first: 500, afterSeq: after ?? null });
    entries.push(...page.entries);
    if (page.entries.length < 500) break;
    after = page.entries.at(-1)!.seq;
  }
  expect(entries.length).toBeGreaterThan(0);
  let prev: string | null = entries[0]!.prev;
  for (const e of entries) {
    expect(e.prev).toBe(prev);
    expect(e.hash).toBe(auditHashOf(e));
    prev = e.hash;
  }
}

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`grants (${kind})`, () => {
    let set: EngineSet;
    let now = Date.now();
    beforeAll(async () => {
      set = await startEngines(kind, 1, {}, { clock: () => now });
    });
    afterAll(() => set.close());
    const engine = () => set.engines[0]!;
    const store = () => set.stores[0]!;
    let n = 0;
    /** A fresh action name, so grants of one test never cover another's asks. */
    const fresh = (base = 'payments.refund') => `${base}${++n}`;

    async function pending(input: Record<string, unknown>, who: Principal = AGENT) {
      const r = await engine().ask(who, input, { holdSeconds: 0 });
      expect(r.question.status).toBe('PENDING');
      return r.question.id;
    }
    async function ask(input: Record<string, unknown>, who: Principal = AGENT) {
      return (await engine().ask(who, input, { holdSeconds: 0 })).question;
    }
    async function grant(
      name: string,
      args: Record<string, unknown>,
      g: Record<string, unknown> = HOUR,
      by: Principal = OPS,
      extra: Record<string, unknown> = {},
    ) {
      const id = await pending(approval(name, args, extra));
      const q = await engine().answer(by, id, { decision: 'APPROVED', grant: g });
      expect(q.status).toBe('ANSWERED');
      return q;
    }

    it('a grant decides the same ask again at once (DECIDED_BY_POLICY, GRANT_GIVEN, GRANT_USED); other arguments and another asker are asked', async () => {
      const name = fresh();
      const given = await grant(name, { amount: 10 });
      // The answer is stored without the grant.
      expect(given.answer).toEqual({ decision: 'APPROVED', arguments: { amount: 10 } });
      const mine = await engine().grants.mine(OPS);
      const g = mine.find((x) => x.action === name)!;
      expect(g).toMatchObject({
        scope: 'SAME_ARGUMENTS',
        asker: 'agent',
        createdBy: 'ops',
        uses: 0,
        maxUses: null,
      });
      expect(g.id).toMatch(/^grant-[0-9a-f]{16}$/);

      const used = await ask(approval(name, { amount: 10 }));
      expect(used).toMatchObject({
        status: 'ANSWERED',
        answeredBy: `policy:${g.id}`,
        answer: { decision: 'APPROVED', arguments: { amount: 10 } },
        policy: { ruleId: g.id, effect: 'ALLOW' },
      });
      expect((await ask(approval(name, { amount: 11 }))).status).toBe('PENDING');
      expect((await ask(approval(name, { amount: 10 }), AGENT2)).status).toBe('PENDING');

      const log = (await store().audit.page({ first: 1000 })).entries;
      const givenEntry = log.find((e) => e.type === 'GRANT_GIVEN' && e.detail?.grantId === g.id)!;
      expect(givenEntry).toMatchObject({ questionId: given.id, actor: 'ops', via: 'api' });
      expect(JSON.stringify(givenEntry.detail)).not.toContain('"amount"');
      const usedEntries = log.filter((e) => e.questionId === used.id).map((e) => e.type);
      expect(usedEntries).toEqual(['GRANT_USED', 'ASKED', 'DECIDED_BY_POLICY']);
      expect((await engine().grants.mine(OPS)).find((x) => x.id === g.id)?.uses).toBe(1);
      await chainVerifies(store());
    });

    it('maxUses: exactly that many asks are decided, then the grant is gone', async () => {
      const name = fresh();
      await grant(name, {}, { ...HOUR, maxUses: 2 });
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await ask(approval(name, {}))).status);
      expect(statuses).toEqual(['ANSWERED', 'ANSWERED', 'PENDING']);
      expect((await engine().grants.mine(OPS)).some((g) => g.action === name)).toBe(false);
    });

    it('expires when given: at the last millisecond it decides, at expiry it does not', async () => {
      const name = fresh();
      await grant(name, {}, { scope: 'SAME_ARGUMENTS', seconds: 60 });
      const start = now;
      try {
        now = start + 59_999;
        expect((await ask(approval(name, {}))).status).toBe('ANSWERED');
        now = start + 60_000;
        expect((await ask(approval(name, {}))).status).toBe('PENDING');
        expect((await engine().grants.mine(OPS)).some((g) => g.action === name)).toBe(false);
      } finally {
        now = start;
      }
    });

    it('revoked at once by its giver or an admin; anyone else is refused', async () => {
      const name = fresh();
      await grant(name, {});
      const g = (await engine().grants.mine(OPS)).find((x) => x.action === name)!;
      await expect(engine().grants.revoke(OPS2, g.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
      expect(await engine().grants.revoke(OPS, g.id)).toBe(true);
      expect((await ask(approval(name, {}))).status).toBe('PENDING');
      expect(await engine().grants.revoke(OPS, g.id)).toBe(false);
      const log = (await store().audit.page({ first: 1000, types: ['GRANT_REVOKED'] })).entries;
      expect(log.at(-1)).toMatchObject({ actor: 'ops', detail: { grantId: g.id, createdBy: 'ops' } });

      const other = fresh();
      await grant(other, {});
      const g2 = (await engine().grants.mine(OPS)).find((x) => x.action === other)!;
      expect(await engine().grants.revoke(ADMIN, g2.id)).toBe(true);
      expect((await ask(approval(other, {}))).status).toBe('PENDING');
    });

    it('never covers a later quorum question, a sensitive one, one the giver may not vote on', async () => {
      const name = fresh();
      await grant(name, {});
      expect((await ask(approval(name, {}, { quorum: { approvals: 2 } }))).status).toBe('PENDING');
      expect((await ask(approval(name, {}, { sensitive: true }))).status).toBe('PENDING');
      expect((await ask(approval(name, {}, { quorum: { approvals: 1, voters: ['ops2'] } }))).status).toBe(
        'PENDING',
      );
      // A quorum of one the giver may vote on is covered.
      expect((await ask(approval(name, {}, { quorum: { approvals: 1, voters: ['ops'] } }))).status).toBe(
        'ANSWERED',
      );
    });

    it('a restricted person’s grant covers only questions addressed to them', async () => {
      const name = fresh();
      await grant(name, {}, HOUR, CAROL, { audience: 'carol' });
      expect((await ask(approval(name, {}, { audience: 'bob' }))).status).toBe('PENDING');
      expect((await ask(approval(name, {}, { audience: 'carol' }))).status).toBe('ANSWERED');
    });

    it('SAME_ACTION covers other arguments; refused for hook actions and schemaless actions', async () => {
      const name = fresh();
      const id = await pending({
        ...approval(name, { amount: 1 }),
        action: { name, arguments: { amount: 1 }, argumentsSchema: SCHEMA },
      });
      await engine().answer(OPS, id, { decision: 'APPROVED', grant: { scope: 'SAME_ACTION', seconds: 600 } });
      expect((await ask(approval(name, { amount: 999 }))).status).toBe('ANSWERED');

      for (const action of [
        { name: 'claude-code.Bash', arguments: { command: 'ls' }, argumentsSchema: { type: 'object' } },
        { name: 'codex.exec', arguments: { command: 'ls' }, argumentsSchema: { type: 'object' } },
        { name: fresh('no.schema'), arguments: {} },
      ]) {
        const q = await pending({ text: 'may I?', format: 'APPROVAL', action });
        await expect(
          engine().answer(OPS, q, { decision: 'APPROVED', grant: { scope: 'SAME_ACTION', seconds: 600 } }),
        ).rejects.toMatchObject({ code: 'BAD_USER_INPUT', field: 'answer.grant.scope' });
        expect((await store().get(q))!.status).toBe('PENDING');
        // SAME_ARGUMENTS is the one offered for them.
        const ok = await engine().answer(OPS, q, { decision: 'APPROVED', grant: HOUR });
        expect(ok.status).toBe('ANSWERED');
      }
    });

    it('refused, with nothing recorded, on quorum and sensitive questions, with a rejection, and for agents', async () => {
      const refusals: [Record<string, unknown>, Principal, unknown, string, string][] = [
        [
          { quorum: { approvals: 2 } },
          OPS,
          { decision: 'APPROVED', grant: HOUR },
          'BAD_USER_INPUT',
          'answer.grant',
        ],
        [{ sensitive: true }, OPS, { decision: 'APPROVED', grant: HOUR }, 'BAD_USER_INPUT', 'answer.grant'],
        [{}, OPS, { decision: 'REJECTED', grant: HOUR }, 'BAD_USER_INPUT', 'answer.grant'],
        [{}, AGENT_OPERATOR, { decision: 'APPROVED', grant: HOUR }, 'FORBIDDEN', 'answer.grant'],
      ];
      for (const [extra, by, answer, code, field] of refusals) {
        const id = await pending(approval(fresh(), {}, extra));
        await expect(engine().answer(by, id, answer)).rejects.toMatchObject({ code, field });
        const q = (await store().get(id))!;
        expect(q.status).toBe('PENDING');
        expect(q.votes ?? []).toEqual([]);
      }
      // The asker itself (even an admin key) and its MCP client.
      const own = await pending(approval(fresh(), {}), ADMIN);
      await expect(engine().answer(ADMIN, own, { decision: 'APPROVED', grant: HOUR })).rejects.toMatchObject({
        code: 'FORBIDDEN',
      });
      const viaMcp = await pending(approval(fresh(), {}));
      await expect(
        engine().answerHere(AGENT, viaMcp, { decision: 'APPROVED', grant: HOUR }),
      ).rejects.toMatchObject({
        code: 'FORBIDDEN',
        field: 'answer.grant',
      });
      expect((await store().get(viaMcp))!.status).toBe('PENDING');
    });

    it('every field limit at and one past it, errors naming the field', async () => {
      const bad: [unknown, string][] = [
        [{ scope: 'SAME_ARGUMENTS', seconds: 59 }, 'answer.grant.seconds'],
        [{ scope: 'SAME_ARGUMENTS', seconds: 2_592_001 }, 'answer.grant.seconds'],
        [{ scope: 'SAME_ARGUMENTS', seconds: 60.5 }, 'answer.grant.seconds'],
        [{ scope: 'SAME_ARGUMENTS', seconds: 60, maxUses: 0 }, 'answer.grant.maxUses'],
        [{ scope: 'SAME_ARGUMENTS', seconds: 60, maxUses: 1001 }, 'answer.grant.maxUses'],
        [{ scope: 'EVERYTHING', seconds: 60 }, 'answer.grant.scope'],
        [{ scope: 'SAME_ARGUMENTS', seconds: 60, extra: 1 }, 'answer.grant.extra'],
        ['1h', 'answer.grant'],
      ];
      const id = await pending(approval(fresh(), {}));
      for (const [g, field] of bad) {
        await expect(engine().answer(OPS, id, { decision: 'APPROVED', grant: g })).rejects.toMatchObject({
          code: 'BAD_USER_INPUT',
          field,
        });
      }
      await expect(
        engine().answer(OPS, id, { decision: 'APPROVED', grant: { scope: 'NOPE', seconds: 60 } }),
      ).rejects.toThrow('SAME_ARGUMENTS, SAME_ACTION');
      expect((await store().get(id))!.status).toBe('PENDING');
      for (const g of [
        { scope: 'SAME_ARGUMENTS', seconds: 60, maxUses: 1 },
        { scope: 'SAME_ARGUMENTS', seconds: 2_592_000, maxUses: 1000 },
      ]) {
        const q = await grant(fresh(), {}, g);
        expect(q.status).toBe('ANSWERED');
      }
    });

    it('at most 100 active grants per person: the 100th is kept, the 101st refused with nothing recorded', async () => {
      const giver: Principal = { id: `giver-${kind}`, roles: ['operator'], restricted: false };
      for (let i = 0; i < 100; i++) await grant(fresh('bulk.op'), {}, HOUR, giver);
      expect(await engine().grants.mine(giver)).toHaveLength(100);
      const id = await pending(approval(fresh(), {}));
      await expect(engine().answer(giver, id, { decision: 'APPROVED', grant: HOUR })).rejects.toMatchObject({
        code: 'LIMIT_EXCEEDED',
      });
      expect((await store().get(id))!.status).toBe('PENDING');
      // A revoked one frees its place.
      const first = (await engine().grants.mine(giver))[0]!;
      expect(await engine().grants.revoke(giver, first.id)).toBe(true);
      expect((await engine().answer(giver, id, { decision: 'APPROVED', grant: HOUR })).status).toBe(
        'ANSWERED',
      );
      await chainVerifies(store());
    });

    it('admins see grants in the rule list (source grant)', async () => {
      const name = fresh();
      await grant(name, {});
      const rules = engine()
        .policyRules.list(ADMIN)
        .filter((r) => r.source === 'grant' && r.match.action === name);
      expect(rules).toHaveLength(1);
      expect(rules[0]).toMatchObject({
        effect: 'ALLOW',
        mode: 'ENFORCE',
        createdBy: 'ops',
        match: { askers: ['agent'] },
      });
    });
  });

  describe(`grants under concurrency (${kind}, two instances)`, () => {
    let set: EngineSet;
    beforeAll(async () => {
      set = await startEngines(kind, 2);
    });
    afterAll(() => set.close());

    it('a grant given on one instance decides asks on the other within a second; a revoke there applies at once', async () => {
      const [one, two] = set.engines as [
        NonNullable<EngineSet['engines'][0]>,
        NonNullable<EngineSet['engines'][0]>,
      ];
      const input = approval('cache.flush', { region: 'eu' });
      const first = await one.ask(AGENT, input, { holdSeconds: 0 });
      await one.answer(OPS, first.question.id, { decision: 'APPROVED', grant: HOUR });
      const started = Date.now();
      await vi.waitFor(
        () =>
          expect(
            two.policyRules.list(ADMIN).some((r) => r.source === 'grant' && r.match.action === 'cache.flush'),
          ).toBe(true),
        { timeout: 5000, interval: 10 },
      );
      expect(Date.now() - started).toBeLessThan(1000);
      expect((await two.ask(AGENT, input, { holdSeconds: 0 })).question.status).toBe('ANSWERED');
      const g = (await one.grants.mine(OPS)).find((x) => x.action === 'cache.flush')!;
      expect(await one.grants.revoke(OPS, g.id)).toBe(true);
      // The other instance has not polled yet, but the store refuses the use: asked as written.
      expect((await two.ask(AGENT, input, { holdSeconds: 0 })).question.status).toBe('PENDING');
    });

    it('100 concurrent asks on two instances against maxUses 5: exactly 5 are allowed', async () => {
      const [one, two] = set.engines as [
        NonNullable<EngineSet['engines'][0]>,
        NonNullable<EngineSet['engines'][0]>,
      ];
      const input = approval('deploy.staging', { v: 1 });
      const first = await one.ask(AGENT, input, { holdSeconds: 0 });
      await one.answer(OPS, first.question.id, {
        decision: 'APPROVED',
        grant: { scope: 'SAME_ARGUMENTS', seconds: 3600, maxUses: 5 },
      });
      // The second instance decides with the grant once it has seen it (its poll, or at once here).
      await two.policyRules.refresh();
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => (i % 2 ? one : two).ask(AGENT, input, { holdSeconds: 0 })),
      );
      const statuses = results.map((r) => r.question.status);
      expect(statuses.filter((s) => s === 'ANSWERED')).toHaveLength(5);
      expect(statuses.filter((s) => s === 'PENDING')).toHaveLength(95);
      const used = (await set.stores[0]!.audit.page({ first: 1000, types: ['GRANT_USED'] })).entries.filter(
        (e) => e.detail?.maxUses === 5,
      );
      expect(used).toHaveLength(5);
      expect(used.map((e) => e.detail?.use).sort()).toEqual([1, 2, 3, 4, 5]);
    });
  });
}
