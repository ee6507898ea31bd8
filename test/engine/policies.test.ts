// Policy rules at ask time (API.md §20), on both stores: ALLOW and DENY decide at once with
// DECIDED_BY_POLICY in place of ANSWERED, ASK adds scrutiny only, SHADOW records and decides
// nothing, and formats other than APPROVAL are never decided by a rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiptClaimsOf } from '../../src/domain/decision-receipt.ts';
import { manifestPolicyRule, type PolicyRule } from '../../src/domain/policy/rule.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { createInteractions } from '../../src/engine/interactions.ts';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import {
  AGENT,
  AGENT2,
  type EngineSet,
  OPS,
  SETTINGS,
  type StoreKind,
  startEngines,
} from '../support/engines.ts';

const rules: PolicyRule[] = [
  {
    id: 'small-refunds',
    effect: 'ALLOW',
    match: {
      action: 'payments.refund',
      askers: ['agent'],
      arguments: {
        type: 'object',
        properties: { amount: { type: 'number', maximum: 50 } },
        required: ['amount'],
      },
    },
  },
  { id: 'no-github-deletes', effect: 'DENY', match: { action: 'github.*.delete' } },
  {
    id: 'prod-deploys',
    effect: 'ASK',
    match: { action: 'deploy.production' },
    ask: { quorum: { approvals: 2 } },
  },
  { id: 'try-deploys', effect: 'ALLOW', mode: 'SHADOW', match: { action: 'deploy.*' } },
  { id: 'watch-restarts', effect: 'DENY', mode: 'SHADOW', match: { action: 'ops.restart' } },
].map((r, i) => manifestPolicyRule(r, `policies[${i}]`));

const OPS_AUDITOR: Principal = { id: 'aud', roles: ['auditor'], restricted: false };

const approval = (name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  text: `may I ${name}?`,
  format: 'APPROVAL',
  action: { name, arguments: args, ...extra },
});

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`policies at ask time (${kind})`, () => {
    let set: EngineSet;
    beforeAll(async () => {
      set = await startEngines(kind, 1, {}, { policies: rules });
    });
    afterAll(() => set.close());
    const engine = () => set.engines[0]!;
    const log = async (id: string) =>
      (await set.stores[0]!.audit.page({ first: 10, questionId: id })).entries;

    it('ALLOW approves a refund of 50 at once, audited as DECIDED_BY_POLICY with no ANSWERED entry', async () => {
      const r = await engine().ask(AGENT, approval('payments.refund', { amount: 50 }), { holdSeconds: 0 });
      expect(r.status).toBe('ANSWERED');
      expect(r.answer).toEqual({ decision: 'APPROVED', arguments: { amount: 50 } });
      expect(r.question).toMatchObject({
        answeredBy: 'policy:small-refunds',
        policy: { ruleId: 'small-refunds', version: rules[0]!.version, effect: 'ALLOW' },
      });
      const entries = await log(r.question.id);
      expect(entries.map((e) => e.type)).toEqual(['ASKED', 'DECIDED_BY_POLICY']);
      expect(entries[1]).toMatchObject({
        actor: 'policy:small-refunds',
        via: 'policy',
        detail: {
          ruleId: 'small-refunds',
          version: rules[0]!.version,
          effect: 'ALLOW',
          actionDigest: r.question.action!.digest,
          decision: 'APPROVED',
        },
      });
      const claims = receiptClaimsOf(r.question, 'https://hitl.example');
      expect(claims?.outcome).toMatchObject({
        decision: 'APPROVED',
        answeredBy: 'policy:small-refunds',
        via: 'policy',
        policy: { id: 'small-refunds', version: rules[0]!.version },
      });
    });

    it('asks a person for a refund of 150, or for another asker', async () => {
      const big = await engine().ask(AGENT, approval('payments.refund', { amount: 150 }), { holdSeconds: 0 });
      expect(big.status).toBe('PENDING');
      expect(big.question.policy).toBeUndefined();
      const other = await engine().ask(AGENT2, approval('payments.refund', { amount: 5 }), {
        holdSeconds: 0,
      });
      expect(other.status).toBe('PENDING');
      expect((await log(big.question.id)).map((e) => e.type)).toEqual(['ASKED']);
    });

    it('DENY rejects a github delete at once; the stored question is answered, nobody else can', async () => {
      const r = await engine().ask(AGENT, approval('github.repos.delete', { repo: 'x' }), { holdSeconds: 0 });
      expect(r.status).toBe('ANSWERED');
      expect(r.answer).toEqual({ decision: 'REJECTED' });
      expect(r.question.answeredBy).toBe('policy:no-github-deletes');
      expect((await log(r.question.id)).map((e) => e.type)).toEqual(['ASKED', 'DECIDED_BY_POLICY']);
      await expect(engine().answer(OPS, r.question.id, { decision: 'APPROVED' })).rejects.toMatchObject({
        code: 'ALREADY_ANSWERED',
      });
    });

    it('ASK raises the quorum to two and makes an editable action non-editable; a higher agent quorum stands', async () => {
      const schema = { type: 'object', properties: { tag: { type: 'string' } } };
      const r = await engine().ask(
        AGENT,
        approval('deploy.production', { tag: 'v1' }, { editable: true, argumentsSchema: schema }),
        { holdSeconds: 0 },
      );
      expect(r.status).toBe('PENDING');
      expect(r.question.quorum).toMatchObject({ approvals: 2 });
      expect(r.question.action?.editable).toBe(false);
      expect(r.question.policy).toMatchObject({ ruleId: 'prod-deploys', effect: 'ASK' });
      const three = await engine().ask(
        AGENT,
        { ...approval('deploy.production', { tag: 'v1' }), quorum: { approvals: 3 } },
        { holdSeconds: 0 },
      );
      expect(three.question.quorum).toMatchObject({ approvals: 3 });
    });

    it('SHADOW only records what it would have done', async () => {
      const r = await engine().ask(AGENT, approval('deploy.staging', {}), { holdSeconds: 0 });
      expect(r.status).toBe('PENDING');
      expect(r.question.policyShadow).toEqual([
        { ruleId: 'try-deploys', version: rules[3]!.version, effect: 'ALLOW' },
      ]);
      const both = await engine().ask(AGENT, approval('deploy.production', {}), { holdSeconds: 0 });
      expect(both.question.policyShadow?.map((s) => s.ruleId)).toEqual(['try-deploys']);
    });

    it('never decides another format', async () => {
      const r = await engine().ask(AGENT, { text: 'delete github?', format: 'CONFIRM' }, { holdSeconds: 0 });
      expect(r.status).toBe('PENDING');
      expect(r.question.policy).toBeUndefined();
    });

    it('policyShadowReport counts agreements, disagreements, pending and undecided', async () => {
      const restart = async () =>
        (await engine().ask(AGENT, approval('ops.restart', {}), { holdSeconds: 0 })).question.id;
      const [agree, disagree, cancelled] = [await restart(), await restart(), await restart()];
      await restart();
      await engine().answer(OPS, agree, { decision: 'REJECTED' });
      await engine().answer(OPS, disagree, { decision: 'APPROVED' });
      await engine().cancel(AGENT, cancelled);
      expect(await engine().policyShadowReport(OPS_AUDITOR, 'watch-restarts')).toEqual({
        ruleId: 'watch-restarts',
        agreements: 1,
        disagreements: 1,
        pending: 1,
        undecided: 1,
      });
      await expect(engine().policyShadowReport(OPS, 'watch-restarts')).rejects.toMatchObject({
        code: 'FORBIDDEN',
      });
    });

    it('an edited approval disagrees with a SHADOW ALLOW, an unedited one agrees', async () => {
      const before = await engine().policyShadowReport(OPS_AUDITOR, 'try-deploys');
      const schema = { type: 'object', properties: { tag: { type: 'string' } } };
      const ask = async () =>
        (
          await engine().ask(
            AGENT,
            approval('deploy.dev', { tag: 'v1' }, { editable: true, argumentsSchema: schema }),
            {
              holdSeconds: 0,
            },
          )
        ).question.id;
      const [edited, plain] = [await ask(), await ask()];
      await engine().answer(OPS, edited, { decision: 'APPROVED', arguments: { tag: 'v2' } });
      await engine().answer(OPS, plain, { decision: 'APPROVED' });
      const after = await engine().policyShadowReport(OPS_AUDITOR, 'try-deploys');
      expect(after.disagreements - before.disagreements).toBe(1);
      expect(after.agreements - before.agreements).toBe(1);
    });
  });
}

describe('a question a rule decided is pushed to nobody', () => {
  it('enqueues no push for it, while a question asked of a person gets one', async () => {
    const store = createMemoryStore();
    const engine = createInteractions({
      store,
      settings: SETTINGS,
      policies: rules,
      askFollowUps: async () => ['push'],
    });
    await engine.start();
    try {
      const now = () => Date.now() + 60_000;
      await engine.ask(AGENT, approval('payments.refund', { amount: 5 }), { holdSeconds: 0 });
      expect((await store.outbox.stats(now())).items).toBe(0);
      await engine.ask(AGENT, approval('payments.refund', { amount: 500 }), { holdSeconds: 0 });
      expect((await store.outbox.stats(now())).items).toBe(1);
    } finally {
      await engine.stop();
    }
  });
});
