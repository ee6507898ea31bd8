// The audit log over the doors (API.md §17): the auditor role, GraphQL auditLog, the REST
// export with its signed head, and `tai audit export` / `tai audit verify`, which names the
// first broken entry of an altered, shortened or reordered export.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/cli-run.ts';
import { auth, KEYS, PRINCIPALS, startServer, type TestServer, type Who } from '../support/server.ts';

const AUDITOR_KEY = 'test-auditor-key-00000007';
const RESTRICTED_AUDITOR_KEY = 'test-auditor-key-00000008';
const keysEnv = JSON.stringify([
  ...PRINCIPALS,
  { id: 'auditor', key: AUDITOR_KEY, roles: ['auditor'] },
  { id: 'nosy', key: RESTRICTED_AUDITOR_KEY, roles: ['auditor'], restricted: true },
]);

const dir = mkdtempSync(join(tmpdir(), 'tai-audit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Caller = Who | 'auditor' | 'nosy';
const headers = (who: Caller): Record<string, string> =>
  who === 'auditor'
    ? { authorization: `Bearer ${AUDITOR_KEY}` }
    : who === 'nosy'
      ? { authorization: `Bearer ${RESTRICTED_AUDITOR_KEY}` }
      : auth(who);

interface Edge {
  cursor: string;
  node: {
    seq: number;
    type: string;
    actor: string | null;
    detail: Record<string, unknown> | null;
    prev: string | null;
  };
}
/** The fields these tests read. */
interface GqlData {
  auditLog: { edges: Edge[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
  askUser: { question: { id: string } };
  question: { id?: string; status: string };
  questions: { totalCount: number };
}

function gqlOn(t: TestServer) {
  return async (who: Caller, query: string, variables: Record<string, unknown> = {}) => {
    const r = await t.server.inject({
      method: 'POST',
      url: '/graphql',
      headers: { ...headers(who), 'content-type': 'application/json' },
      payload: { query, variables },
    });
    return r.json() as {
      data?: GqlData;
      errors?: { message: string; extensions?: { code?: string } }[];
    };
  };
}

const ASK = `mutation($text: String!) { askUser(input: {text: $text, format: CONFIRM}, holdSeconds: 0) { question { id } } }`;
const ANSWER = `mutation($id: ID!, $a: JSON!) { answer(id: $id, answer: $a) { status } }`;
const CANCEL = `mutation($id: ID!) { cancelQuestion(id: $id) { status } }`;
const LOG = `query($filter: AuditFilter, $first: Int, $after: String) {
  auditLog(filter: $filter, first: $first, after: $after) {
    edges { cursor node { seq at type questionId actor via detail prev hash } }
    pageInfo { hasNextPage endCursor }
  }
}`;

for (const store of ['memory', 'redis'] as const) {
  describe(`the audit log over the doors (${store})`, () => {
    let t: TestServer;
    let gql: ReturnType<typeof gqlOn>;
    const ids: string[] = [];

    beforeAll(async () => {
      t = await startServer({ store, env: { INTERACTIONS_API_KEYS: keysEnv } });
      gql = gqlOn(t);
      for (let i = 0; i < 6; i++) {
        const r = await gql('agent', ASK, { text: `Deploy ${i}?` });
        ids.push(r.data!.askUser.question.id);
      }
      await gql('ops', ANSWER, { id: ids[0], a: true });
      await gql('ops', ANSWER, { id: ids[1], a: false });
      await gql('agent', CANCEL, { id: ids[2] });
    });
    afterAll(async () => {
      await t.close();
    });

    it('admins and auditors page it oldest first; nobody else may', async () => {
      for (const who of ['admin', 'auditor'] as const) {
        const r = await gql(who, LOG, { first: 4 });
        expect(r.errors).toBeUndefined();
        expect(r.data!.auditLog.edges.map((e: Edge) => e.node.seq)).toEqual([1, 2, 3, 4]);
        expect(r.data!.auditLog.pageInfo.hasNextPage).toBe(true);
        const next = await gql(who, LOG, { first: 100, after: r.data!.auditLog.pageInfo.endCursor });
        expect(next.data!.auditLog.edges.map((e: Edge) => e.node.type)).toEqual([
          'ASKED',
          'ASKED',
          'ANSWERED',
          'ANSWERED',
          'CANCELLED',
        ]);
        expect(next.data!.auditLog.pageInfo.hasNextPage).toBe(false);
      }
      for (const who of ['ops', 'agent', 'nosy'] as const) {
        const r = await gql(who, LOG, {});
        expect(r.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      }
    });

    it('filters by question, types and time, and checks its arguments', async () => {
      const mine = await gql('auditor', LOG, { filter: { questionId: ids[0] } });
      const node = mine.data!.auditLog.edges[1]!.node;
      expect(node).toMatchObject({ type: 'ANSWERED', actor: 'ops', via: 'api', questionId: ids[0] });
      expect(node.detail).toMatchObject({ format: 'CONFIRM', decision: 'APPROVED' });
      expect(node.prev).toMatch(/^sha256:[0-9a-f]{64}$/);
      const cancels = await gql('auditor', LOG, { filter: { types: ['CANCELLED'] } });
      expect(cancels.data!.auditLog.edges.map((e: Edge) => e.node.actor)).toEqual(['agent']);
      const future = await gql('auditor', LOG, { filter: { since: '2999-01-01T00:00:00Z' } });
      expect(future.data!.auditLog.edges).toEqual([]);
      for (const first of [0, 1001]) {
        const r = await gql('auditor', LOG, { first });
        expect(r.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      }
      expect((await gql('auditor', LOG, { first: 1000 })).errors).toBeUndefined();
      const bad = await gql('auditor', LOG, { after: 'not-a-cursor' });
      expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    });

    it('an auditor reads every question but cannot ask, answer or cancel', async () => {
      const read = await gql('auditor', 'query($id: ID!) { question(id: $id) { id status } }', {
        id: ids[0],
      });
      expect(read.data!.question).toEqual({ id: ids[0], status: 'ANSWERED' });
      const list = await gql('auditor', '{ questions(first: 50) { totalCount } }');
      expect(list.data!.questions.totalCount).toBe(6);
      expect((await gql('auditor', ASK, { text: 'mine?' })).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect((await gql('auditor', ANSWER, { id: ids[4], a: true })).errors?.[0]?.extensions?.code).toBe(
        'FORBIDDEN',
      );
      expect((await gql('auditor', CANCEL, { id: ids[4] })).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      const still = await gql('admin', 'query($id: ID!) { question(id: $id) { status } }', { id: ids[4] });
      expect(still.data!.question.status).toBe('PENDING');
    });

    it('the REST export streams JSON Lines with a signed head; only admins and auditors get it', async () => {
      const r = await t.server.inject({
        method: 'GET',
        url: '/api/interactions/audit',
        headers: headers('auditor'),
      });
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-type']).toContain('application/jsonl');
      const lines = r.body
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const last = lines.at(-1);
      expect(lines.length).toBe(10);
      expect(last.head).toEqual({ seq: 9, hash: lines[8].hash });
      expect(last.count).toBe(9);
      expect(last.signature).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expect((await t.server.inject({ method: 'GET', url: '/api/interactions/audit' })).statusCode).toBe(401);
      for (const who of ['ops', 'agent', 'nosy'] as const) {
        const refused = await t.server.inject({
          method: 'GET',
          url: '/api/interactions/audit',
          headers: headers(who),
        });
        expect(refused.statusCode).toBe(403);
        expect(refused.json().code).toBe('FORBIDDEN');
      }
      for (const qs of [
        'since=yesterday',
        'until=2026-13-01T00:00:00Z',
        'receipts=maybe',
        `question=${'x'.repeat(201)}`,
        'since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z',
      ]) {
        const bad = await t.server.inject({
          method: 'GET',
          url: `/api/interactions/audit?${qs}`,
          headers: headers('admin'),
        });
        expect(bad.statusCode).toBe(400);
        expect(bad.json().code).toBe('BAD_USER_INPUT');
      }
      const one = await t.server.inject({
        method: 'GET',
        url: `/api/interactions/audit?question=${ids[0]}&receipts=true`,
        headers: headers('admin'),
      });
      const oneLines = one.body
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(oneLines.map((l) => l.type ?? Object.keys(l)[0])).toEqual([
        'ASKED',
        'ANSWERED',
        'receipt',
        'head',
      ]);
      expect(oneLines.at(-1).scope).toEqual({ questionId: ids[0], since: null, until: null });
    });

    it('tai audit export and verify: valid as exported; altering, deleting, reordering or cutting a line is named', async () => {
      const url = await t.listen();
      const env = { TAI_URL: url, TAI_API_KEY: AUDITOR_KEY };
      const out = await runCliInProcess(['audit', 'export'], { env });
      expect(out.stderr).toBe('');
      expect(out.code).toBe(0);
      const jwksPath = join(dir, `${store}-jwks.json`);
      writeFileSync(jwksPath, (await t.server.inject({ method: 'GET', url: '/.well-known/jwks.json' })).body);
      const file = (name: string, text: string): string => {
        const p = join(dir, `${store}-${name}.jsonl`);
        writeFileSync(p, text);
        return p;
      };
      const good = file('good', out.stdout);
      const ok = await runCliInProcess(['audit', 'verify', good, '--jwks', jwksPath], { env: {} });
      expect(ok.stderr).toBe('');
      expect(ok.stdout).toMatch(/^valid: 9 entries up to seq 9 .*, 3 receipts\n$/);
      // Online: the key set from the server itself.
      expect((await runCliInProcess(['audit', 'verify', good], { env })).code).toBe(0);

      const lines = readFileSync(good, 'utf8').trimEnd().split('\n');
      const entryLine = (seq: number) => lines.findIndex((l) => JSON.parse(l).seq === seq);
      const at5 = entryLine(5);
      const altered = [...lines];
      altered[at5] = altered[at5]!.replace('"ASKED"', '"CANCELLED"');
      const deleted = lines.filter((_, i) => i !== at5);
      const reordered = [...lines];
      [reordered[at5], reordered[at5 + 1]] = [reordered[at5 + 1]!, reordered[at5]!];
      const cut = lines.slice(0, -1);
      const cutShort = [...lines.slice(0, entryLine(8)), lines.at(-1)!];
      const cases: [string, string[], RegExp][] = [
        ['altered', altered, new RegExp(`line ${at5 + 1} \\(entry seq 5\\): its hash does not match`)],
        [
          'deleted',
          deleted,
          new RegExp(`line ${at5 + 1} \\(entry seq 6\\): the chain breaks here: entry 5 is missing`),
        ],
        [
          'reordered',
          reordered,
          new RegExp(`line ${at5 + 1} \\(entry seq 6\\): entries out of order: seq 5 comes later`),
        ],
        ['cut', cut, /without its signed head/],
        ['cut-short', cutShort, /the export was cut after seq 7 .*: the signed head names seq 9/],
      ];
      for (const [name, text, message] of cases) {
        const r = await runCliInProcess(
          ['audit', 'verify', file(name, `${text.join('\n')}\n`), '--jwks', jwksPath],
          {
            env: {},
          },
        );
        expect(r.code, name).toBe(1);
        expect(r.stderr, name).toMatch(/^error: AUDIT_BROKEN: /);
        expect(r.stderr, name).toMatch(message);
      }
      // A key set that did not sign it.
      const other = join(dir, 'other-jwks.json');
      writeFileSync(
        other,
        JSON.stringify({
          keys: [
            { kty: 'OKP', crv: 'Ed25519', x: 'l8a2cFoKoFOl5kvaSYAQbv2XlnxWAOW2I6rjpd5gpHE', kid: 'other' },
          ],
        }),
      );
      const wrong = await runCliInProcess(['audit', 'verify', good, '--jwks', other], { env: {} });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toMatch(/signed head does not verify/);
      const refused = await runCliInProcess(['audit', 'export'], {
        env: { TAI_URL: url, TAI_API_KEY: KEYS.ops },
      });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^error: FORBIDDEN: .*auditor or admin role/);
    });
  });
}
