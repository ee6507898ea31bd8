// Grants and suggestions through GraphQL (API.md §20), on both stores: an operator approves with
// `grant` in the answer, the same ask is then decided by the grant with a receipt naming it,
// myGrants lists it, admins see it in `policies`, revokeGrant ends it; suggestions and their
// adoption; the audit export still verifies with the grant entries in it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAuditExport } from '../../src/client/index.ts';
import { auth, startServer, type TestServer, type Who } from '../support/server.ts';

interface GqlResponse {
  // biome-ignore lint/suspicious/noExplicitAny: checked field by field.
  data?: any;
  errors?: { message: string; extensions?: { code?: string; field?: string } }[];
}

const ASK = `mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { status question { id status answeredBy receipt policy { ruleId effect } } } }`;
const ANSWER = `mutation($id: ID!, $a: JSON!) { answer(id: $id, answer: $a) { id status answer } }`;
const deploy = {
  text: 'Deploy?',
  format: 'APPROVAL',
  action: { name: 'deploy.staging', arguments: { ref: 'v1' } },
};

for (const store of ['memory', 'redis'] as const) {
  describe(`grants through GraphQL (${store})`, () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startServer({ store });
    });
    afterAll(() => t.close());

    async function gql(who: Who, query: string, variables: Record<string, unknown> = {}) {
      const r = await t.server.inject({
        method: 'POST',
        url: '/graphql',
        headers: { ...auth(who), 'content-type': 'application/json' },
        payload: { query, variables },
      });
      return r.json() as GqlResponse;
    }

    it('approve and allow for an hour: the next same ask is decided by the grant, until revoked', async () => {
      const first = await gql('agent', ASK, { i: deploy });
      const id = first.data.askUser.question.id;
      const bad = await gql('ops', ANSWER, {
        id,
        a: { decision: 'APPROVED', grant: { scope: 'SAME_ARGUMENTS', seconds: 59 } },
      });
      expect(bad.errors?.[0]?.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'answer.grant.seconds',
      });
      const ok = await gql('ops', ANSWER, {
        id,
        a: { decision: 'APPROVED', grant: { scope: 'SAME_ARGUMENTS', seconds: 3600 } },
      });
      expect(ok.errors).toBeUndefined();
      expect(ok.data.answer.answer).toEqual({ decision: 'APPROVED', arguments: { ref: 'v1' } });

      const mine = await gql(
        'ops',
        `{ myGrants { id scope asker action uses maxUses createdBy expiresAt questionId } }`,
      );
      expect(mine.errors).toBeUndefined();
      const [g] = mine.data.myGrants;
      expect(g).toMatchObject({
        scope: 'SAME_ARGUMENTS',
        asker: 'agent',
        action: 'deploy.staging',
        uses: 0,
        questionId: id,
      });

      const second = await gql('agent', ASK, { i: deploy });
      expect(second.data.askUser.question).toMatchObject({
        status: 'ANSWERED',
        answeredBy: `policy:${g.id}`,
        policy: { ruleId: g.id, effect: 'ALLOW' },
      });
      const payload = JSON.parse(
        Buffer.from(second.data.askUser.question.receipt.split('.')[1], 'base64url').toString('utf8'),
      );
      expect(payload.outcome).toMatchObject({ via: 'policy', policy: { id: g.id, version: '1' } });

      const rules = await gql('admin', `{ policies { id source effect createdBy } }`);
      expect(rules.data.policies).toContainEqual({
        id: g.id,
        source: 'grant',
        effect: 'ALLOW',
        createdBy: 'ops',
      });

      const notHers = await gql('agent2', `mutation($id: ID!) { revokeGrant(id: $id) }`, { id: g.id });
      expect(notHers.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      const revoked = await gql('ops', `mutation($id: ID!) { revokeGrant(id: $id) }`, { id: g.id });
      expect(revoked.data.revokeGrant).toBe(true);
      expect((await gql('agent', ASK, { i: deploy })).data.askUser.status).toBe('PENDING');

      const types = await gql(
        'admin',
        `{ auditLog(filter: { types: [GRANT_GIVEN, GRANT_USED, GRANT_REVOKED] }) { edges { node { type } } } }`,
      );
      expect(types.data.auditLog.edges.map((e: { node: { type: string } }) => e.node.type)).toEqual([
        'GRANT_GIVEN',
        'GRANT_USED',
        'GRANT_REVOKED',
      ]);
      const exported = await t.server.inject({
        method: 'GET',
        url: '/api/interactions/audit',
        headers: auth('admin'),
      });
      const summary = await verifyAuditExport(exported.body.split('\n').filter(Boolean), {
        jwks: (await t.server.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json(),
      });
      expect(summary.count).toBeGreaterThanOrEqual(8);
    });

    it('suggestions and adoption, admins only', async () => {
      const forbidden = await gql('ops', `{ policySuggestions { key } }`);
      expect(forbidden.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      const input = {
        text: 'Close?',
        format: 'APPROVAL',
        action: { name: 'tickets.close', arguments: { queue: 'q1' } },
      };
      for (const who of ['ops', 'admin'] as const) {
        const asked = await gql('agent', ASK, { i: input });
        await gql(who, ANSWER, { id: asked.data.askUser.question.id, a: { decision: 'APPROVED' } });
      }
      const list = await gql(
        'admin',
        `{ policySuggestions(minDecisions: 2) { key action decisions reviewers arguments rule } }`,
      );
      expect(list.errors).toBeUndefined();
      const s = list.data.policySuggestions.find((x: { action: string }) => x.action === 'tickets.close');
      expect(s).toMatchObject({ decisions: 2, reviewers: ['admin', 'ops'] });
      expect(s.arguments.properties.queue).toEqual({ type: 'string', enum: ['q1'] });
      const adopted = await gql(
        'admin',
        `mutation($k: String!) { adoptPolicySuggestion(key: $k) { id mode source } }`,
        {
          k: s.key,
        },
      );
      expect(adopted.data.adoptPolicySuggestion).toMatchObject({ mode: 'SHADOW', source: 'store' });
    });
  });
}
