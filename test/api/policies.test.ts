// Policy rules through GraphQL (API.md §20), from the manifest, on both stores: an ALLOW rule
// approves a refund of 50 at once with a receipt naming the rule, 150 is asked of a person, a
// SHADOW rule shows on Question.policyShadow, and auditors see DECIDED_BY_POLICY.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadManifestSettings } from '../../src/app/config.ts';
import { verifyAuditExport } from '../../src/client/index.ts';
import { auth, startServer, type TestServer, type Who } from '../support/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'policies-api-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const manifest = join(dir, 'interactions.json');
writeFileSync(
  manifest,
  JSON.stringify({
    policies: [
      {
        id: 'small-refunds',
        effect: 'ALLOW',
        match: {
          action: 'payments.refund',
          askers: ['agent'],
          arguments: { type: 'object', properties: { amount: { type: 'number', maximum: 50 } } },
        },
      },
      { id: 'watch-refunds', effect: 'DENY', mode: 'SHADOW', match: { action: 'payments.*' } },
    ],
  }),
);

interface GqlResponse {
  // biome-ignore lint/suspicious/noExplicitAny: checked field by field.
  data?: any;
  errors?: { message: string; extensions?: { code?: string; field?: string } }[];
}

const FIELDS = `id status answer answeredBy decision receipt
  policy { ruleId version effect } policyShadow { ruleId version effect }`;
const ASK = `mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { status answer question { ${FIELDS} } } }`;
const refund = (amount: number) => ({
  text: 'Refund?',
  format: 'APPROVAL',
  action: { name: 'payments.refund', arguments: { amount } },
});

for (const store of ['memory', 'redis'] as const) {
  describe(`policies through GraphQL (${store})`, () => {
    let t: TestServer;
    beforeAll(async () => {
      const settings = await loadManifestSettings({ INTERACTIONS_MANIFEST: manifest }, dir);
      t = await startServer({ store, plugins: { manifest: settings, metrics: true } });
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

    it('approves a refund of 50 at once, with a receipt naming the rule; the shadow rule is recorded', async () => {
      const r = await gql('agent', ASK, { i: refund(50) });
      expect(r.errors).toBeUndefined();
      const { status, answer, question } = r.data.askUser;
      expect(status).toBe('ANSWERED');
      expect(answer).toEqual({ decision: 'APPROVED', arguments: { amount: 50 } });
      expect(question).toMatchObject({
        answeredBy: 'policy:small-refunds',
        decision: 'APPROVED',
        policy: { ruleId: 'small-refunds', effect: 'ALLOW' },
        policyShadow: [{ ruleId: 'watch-refunds', effect: 'DENY' }],
      });
      expect(question.policy.version).toMatch(/^sha256:[0-9a-f]{64}$/);
      const payload = JSON.parse(Buffer.from(question.receipt.split('.')[1], 'base64url').toString('utf8'));
      expect(payload.outcome).toMatchObject({
        decision: 'APPROVED',
        via: 'policy',
        policy: { id: 'small-refunds', version: question.policy.version },
      });

      const log = await gql(
        'admin',
        `query($id: ID!) { auditLog(filter: { questionId: $id }) { edges { node { type actor via detail } } } }`,
        { id: question.id },
      );
      expect(log.errors).toBeUndefined();
      const nodes = log.data.auditLog.edges.map((e: { node: unknown }) => e.node);
      expect(nodes.map((n: { type: string }) => n.type)).toEqual(['ASKED', 'DECIDED_BY_POLICY']);
      expect(nodes[1]).toMatchObject({
        actor: 'policy:small-refunds',
        via: 'policy',
        detail: { ruleId: 'small-refunds' },
      });
    });

    it('asks a person for 150', async () => {
      const r = await gql('agent', ASK, { i: refund(150) });
      expect(r.data.askUser.status).toBe('PENDING');
      expect(r.data.askUser.question.policy).toBeNull();
      expect(r.data.askUser.question.policyShadow).toHaveLength(1);
    });

    it('admins put and delete store rules through GraphQL; manifest rules stay; others are refused', async () => {
      const PUT = `mutation($i: PolicyRuleInput!) { putPolicyRule(input: $i) { id version source mode match { action arguments } createdBy } }`;
      const put = await gql('admin', PUT, {
        i: {
          id: 'deny-big',
          effect: 'DENY',
          match: {
            action: 'payments.refund',
            arguments: { type: 'object', properties: { amount: { minimum: 1000 } } },
          },
        },
      });
      expect(put.errors).toBeUndefined();
      expect(put.data.putPolicyRule).toMatchObject({
        id: 'deny-big',
        version: '1',
        source: 'store',
        mode: 'ENFORCE',
        createdBy: 'admin',
      });
      const r = await gql('agent', ASK, { i: refund(5000) });
      expect(r.data.askUser).toMatchObject({
        status: 'ANSWERED',
        question: { answeredBy: 'policy:deny-big', decision: 'REJECTED' },
      });

      const list = await gql('admin', '{ policies { id source version } }');
      expect(list.data.policies.map((p: { id: string }) => p.id).sort()).toEqual([
        'deny-big',
        'small-refunds',
        'watch-refunds',
      ]);
      expect((await gql('agent', '{ policies { id } }')).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect(
        (await gql('ops', PUT, { i: { id: 'x', effect: 'ALLOW', match: { action: 'x' } } })).errors?.[0]
          ?.extensions?.code,
      ).toBe('FORBIDDEN');

      const bad = await gql('admin', PUT, {
        i: { id: 'broken', effect: 'ALLOW', match: { action: 'x', arguments: { type: 'nope' } } },
      });
      expect(bad.errors?.[0]?.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'input.match.arguments',
      });
      const DELETE = 'mutation($id: ID!) { deletePolicyRule(id: $id) }';
      const manifestDelete = await gql('admin', DELETE, { id: 'small-refunds' });
      expect(manifestDelete.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect((await gql('admin', DELETE, { id: 'deny-big' })).data.deletePolicyRule).toBe(true);
      expect((await gql('admin', DELETE, { id: 'deny-big' })).data.deletePolicyRule).toBe(false);
    });

    it('policyShadowReport through GraphQL (admin), refused for agents', async () => {
      const REPORT =
        'query($id: ID!) { policyShadowReport(ruleId: $id) { ruleId agreements disagreements pending undecided } }';
      const r = await gql('admin', REPORT, { id: 'watch-refunds' });
      expect(r.errors).toBeUndefined();
      expect(r.data.policyShadowReport).toMatchObject({ ruleId: 'watch-refunds' });
      expect(r.data.policyShadowReport.pending).toBeGreaterThanOrEqual(1);
      expect((await gql('agent', REPORT, { id: 'watch-refunds' })).errors?.[0]?.extensions?.code).toBe(
        'FORBIDDEN',
      );
    });

    it('counts rule decisions by effect and mode in the metrics, without rule ids', async () => {
      await gql('agent', ASK, { i: refund(10) });
      const r = await t.server.inject({ method: 'GET', url: '/metrics', headers: auth('ops') });
      expect(r.body).toMatch(
        /tai_interactions_policy_decisions_total\{effect="allow",mode="enforce"\} [1-9]/,
      );
      expect(r.body).toMatch(/tai_interactions_policy_decisions_total\{effect="deny",mode="shadow"\} [1-9]/);
      expect(r.body).not.toContain('small-refunds');
    });

    it('the audit export with rule decisions and rule changes still verifies, receipts included', async () => {
      const r = await t.server.inject({
        method: 'GET',
        url: '/api/interactions/audit?receipts=true',
        headers: auth('admin'),
      });
      expect(r.statusCode).toBe(200);
      const lines = r.body.trimEnd().split('\n');
      expect(r.body).toContain('DECIDED_BY_POLICY');
      expect(r.body).toContain('POLICY_CHANGED');
      const jwks = (await t.server.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
      const summary = await verifyAuditExport(lines, { jwks });
      expect(summary.receipts).toBeGreaterThanOrEqual(3);
      expect(summary.count).toBe(lines.filter((l) => l.includes('"hash"') && !l.includes('"head"')).length);
    });
  });
}
