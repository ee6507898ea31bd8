// The policy metric counts the effect that took place (docs/policies.md): an enforced ALLOW that
// a step-up overrides — the action asks for `assurance: HIGH`, or a matching ASK rule makes it
// HIGH (API.md §23) — goes to a person, so it counts as `ask`, never as `allow`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, startServer, type TestServer, type Who } from '../support/server.ts';

const ASK =
  'mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { status question { status } } }';
const PUT = 'mutation($i: PolicyRuleInput!) { putPolicyRule(input: $i) { id } }';
const approval = (name: string, assurance?: string) => ({
  text: 'Go?',
  format: 'APPROVAL',
  action: { name, arguments: {}, ...(assurance ? { assurance } : {}) },
});

/** The counter's value for one effect and mode; 0 when the line is absent. */
function count(body: string, effect: string, mode: string): number {
  const m = new RegExp(
    `tai_interactions_policy_decisions_total\\{effect="${effect}",mode="${mode}"\\} (\\d+)`,
  ).exec(body);
  return m ? Number(m[1]) : 0;
}

for (const store of ['memory', 'redis'] as const)
  describe(`the policy metric and step-up (${store})`, () => {
    let t: TestServer;
    async function gql(who: Who, query: string, variables: Record<string, unknown>) {
      const r = await t.server.inject({
        method: 'POST',
        url: '/graphql',
        headers: { ...auth(who), 'content-type': 'application/json' },
        payload: { query, variables },
      });
      const body = r.json() as { data?: { askUser?: { question: { status: string } } }; errors?: unknown[] };
      expect(body.errors).toBeUndefined();
      return body.data;
    }
    const metrics = async () =>
      (await t.server.inject({ method: 'GET', url: '/metrics', headers: auth('ops') })).body;

    beforeAll(async () => {
      t = await startServer({ store, plugins: { metrics: true } });
      await gql('admin', PUT, { i: { id: 'allow-deploys', effect: 'ALLOW', match: { action: 'deploy.*' } } });
      await gql('admin', PUT, {
        i: { id: 'prod-high', effect: 'ASK', match: { action: 'deploy.prod' }, ask: { assurance: 'HIGH' } },
      });
    });
    afterAll(() => t?.close());

    const cases = [
      {
        name: 'an ALLOW decides a plain action: allow',
        action: 'deploy.staging',
        status: 'ANSWERED',
        counted: 'allow',
        not: 'ask',
      },
      {
        name: 'an ALLOW overridden by an ASK rule with assurance HIGH is asked: ask',
        action: 'deploy.prod',
        status: 'PENDING',
        counted: 'ask',
        not: 'allow',
      },
      {
        name: 'an ALLOW for an action that asks for assurance HIGH itself is asked: ask',
        action: 'deploy.staging',
        assurance: 'HIGH',
        status: 'PENDING',
        counted: 'ask',
        not: 'allow',
      },
    ];
    for (const c of cases)
      it(c.name, async () => {
        const before = await metrics();
        const r = await gql('agent', ASK, { i: approval(c.action, c.assurance) });
        expect(r?.askUser?.question.status).toBe(c.status);
        const after = await metrics();
        expect(count(after, c.counted, 'enforce')).toBe(count(before, c.counted, 'enforce') + 1);
        expect(count(after, c.not, 'enforce')).toBe(count(before, c.not, 'enforce'));
      });
  });
