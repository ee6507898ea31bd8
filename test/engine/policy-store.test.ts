// Store policy rules (API.md §20), on both stores: admins put and delete them (POLICY_CHANGED
// on the audit log, a version counter per rule), auditors read them, manifest rules cannot be
// deleted or shadowed, the store's cap holds, and a change made on one instance decides asks
// on another sharing the same store.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { manifestPolicyRule } from '../../src/domain/policy/rule.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { ADMIN, AGENT, type EngineSet, OPS, type StoreKind, startEngines } from '../support/engines.ts';

const AUDITOR: Principal = { id: 'auditor', roles: ['auditor'], restricted: false };
const manifest = [
  manifestPolicyRule({ id: 'from-manifest', effect: 'DENY', match: { action: 'x.y' } }, 'policies[0]'),
];
const deploys = { id: 'deploys', effect: 'ALLOW', match: { action: 'deploy.staging' } };
const ask = { text: 'deploy?', format: 'APPROVAL', action: { name: 'deploy.staging', arguments: {} } };

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`store policy rules (${kind})`, () => {
    let set: EngineSet;
    beforeAll(async () => {
      set = await startEngines(kind, 2, {}, { policies: manifest });
    });
    afterAll(() => set.close());
    const [one, two] = [() => set.engines[0]!, () => set.engines[1]!];

    it('puts a rule (version 1, then 2), audited as POLICY_CHANGED, and applies it at once here', async () => {
      const r = await one().policyRules.put(ADMIN, { ...deploys, mode: 'SHADOW' });
      expect(r).toMatchObject({
        id: 'deploys',
        source: 'store',
        version: '1',
        mode: 'SHADOW',
        createdBy: 'admin',
      });
      const enforced = await one().policyRules.put(ADMIN, deploys);
      expect(enforced.version).toBe('2');
      const decided = await one().ask(AGENT, ask, { holdSeconds: 0 });
      expect(decided.question).toMatchObject({ status: 'ANSWERED', answeredBy: 'policy:deploys' });
      expect(decided.question.policy).toMatchObject({ ruleId: 'deploys', version: '2' });
      const log = (await set.stores[0]!.audit.page({ first: 100, types: ['POLICY_CHANGED'] })).entries;
      expect(
        log.slice(-2).map((e) => [e.actor, e.detail?.ruleId, e.detail?.mode, e.detail?.version]),
      ).toEqual([
        ['admin', 'deploys', 'SHADOW', '1'],
        ['admin', 'deploys', 'ENFORCE', '2'],
      ]);
      expect(log.at(-1)?.detail?.ruleDigest).toMatch(/^sha256:/);
    });

    it('a change on one instance decides asks on the other within a second', async () => {
      await one().policyRules.put(ADMIN, {
        id: 'other-instance',
        effect: 'DENY',
        match: { action: 'db.drop' },
      });
      const started = Date.now();
      await vi.waitFor(
        () =>
          expect(
            two()
              .policyRules.list(ADMIN)
              .some((r) => r.id === 'other-instance'),
          ).toBe(true),
        { timeout: 5000, interval: 10 },
      );
      expect(Date.now() - started).toBeLessThan(1000);
      const r = await two().ask(
        AGENT,
        { ...ask, action: { name: 'db.drop', arguments: {} } },
        { holdSeconds: 0 },
      );
      expect(r.question.answeredBy).toBe('policy:other-instance');
      expect(await one().policyRules.delete(ADMIN, 'other-instance')).toBe(true);
      await vi.waitFor(
        () =>
          expect(
            two()
              .policyRules.list(ADMIN)
              .some((r) => r.id === 'other-instance'),
          ).toBe(false),
        { timeout: 5000, interval: 10 },
      );
      expect(await one().policyRules.delete(ADMIN, 'other-instance')).toBe(false);
    });

    it('lists for admins and auditors only, changes for admins only', async () => {
      expect(
        one()
          .policyRules.list(AUDITOR)
          .map((r) => r.id),
      ).toContain('from-manifest');
      expect(() => one().policyRules.list(OPS)).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
      await expect(one().policyRules.put(AUDITOR, deploys)).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(one().policyRules.put(AGENT, deploys)).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(one().policyRules.delete(OPS, 'deploys')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    });

    it('refuses deleting or replacing a manifest rule, and a rule that does not compile, changing nothing', async () => {
      await expect(one().policyRules.delete(ADMIN, 'from-manifest')).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'id',
      });
      await expect(one().policyRules.put(ADMIN, { ...deploys, id: 'from-manifest' })).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'input.id',
      });
      const before = await set.stores[0]!.policies.generation();
      await expect(
        one().policyRules.put(ADMIN, {
          ...deploys,
          id: 'broken',
          match: { action: 'a', arguments: { type: 'nope' } },
        }),
      ).rejects.toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.match.arguments' });
      expect(await set.stores[0]!.policies.generation()).toBe(before);
    });

    it('keeps at most the cap of rules: replacing one at the cap works, a new one does not', async () => {
      const store = set.stores[0]!.policies;
      const change = { actor: 'admin', at: Date.now(), detail: {} };
      const count = (await store.list()).length;
      expect(await store.put('cap-a', '{}', count + 1, change)).toEqual({ version: 1 });
      expect(await store.put('cap-b', '{}', count + 1, change)).toBe('limit');
      expect(await store.put('cap-a', '{}', count + 1, change)).toEqual({ version: 2 });
      expect(await store.delete('cap-a', change)).toBe(true);
    });
  });
}
