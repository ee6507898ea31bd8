// Groups and separation of duties through the real doors (API.md §2, §22), on both stores: the
// GraphQL door (the inbox's), the REST answer door and the CLI, with keys from
// INTERACTIONS_API_KEYS and groups from INTERACTIONS_GROUPS_FILE. The engine's contract suite
// (test/engine/answer-contract.test.ts) covers MCP, callback and channel doors.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/domain/principal.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { KEYS, PRINCIPALS, startServer, type TestServer } from '../support/server.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'tai-people-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const groupsFile = path.join(dir, 'groups.yaml');
writeFileSync(
  groupsFile,
  '- id: payments\n  members: [alice, rita]\n' +
    '- id: sre\n  members: [alice, bob]\n  rotation: { every: 1d, startsAt: "2026-01-01T09:00:00Z", order: [alice, bob] }\n',
);

const MORE = {
  rita: 'test-rita-key-00000000007',
  botops: 'test-botops-key-000000008',
};
const principals = [
  ...PRINCIPALS,
  { id: 'rita', key: MORE.rita, roles: ['operator'] },
  { id: 'bot-ops', key: MORE.botops, roles: ['agent', 'operator'] },
];
const BOT_OPS: Principal = { id: 'bot-ops', roles: ['agent', 'operator'], restricted: false };
const AGENT: Principal = { id: 'agent', roles: ['agent'], restricted: false };

for (const store of ['memory', 'redis'] as const) {
  describe(`groups and separation of duties at the doors (${store})`, () => {
    let t: TestServer;
    let url: string;
    beforeAll(async () => {
      t = await startServer({
        store,
        env: { INTERACTIONS_API_KEYS: JSON.stringify(principals), INTERACTIONS_GROUPS_FILE: groupsFile },
      });
      url = await t.listen();
    });
    afterAll(() => t.close());

    const ask = async (p: Principal, input: Record<string, unknown>) =>
      (await t.server.engine.ask(p, { text: 'Refund?', ...input }, { holdSeconds: 0 })).question.id;
    const refund = (extra: Record<string, unknown> = {}) => ({
      format: 'APPROVAL',
      action: { name: 'payments.refund', arguments: { amount: 5 }, ...extra },
    });
    const status = async (id: string) => (await t.server.store.get(id))!.status;

    const graphql = async (key: string, id: string, answer: unknown) => {
      const r = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'mutation($id: ID!, $a: JSON!) { answer(id: $id, answer: $a) { status } }',
          variables: { id, a: answer },
        }),
      });
      const body = (await r.json()) as { errors?: { extensions: { code: string } }[] };
      return body.errors?.[0]?.extensions.code ?? 'ok';
    };
    const rest = async (key: string, id: string, answer: unknown) => {
      const r = await fetch(`${url}/api/interactions/${id}/answer`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ answer }),
      });
      return r.status === 200 ? 'ok' : ((await r.json()) as { code: string }).code;
    };
    const cli = async (key: string, id: string) => {
      const r = await runCliInProcess(['interactions', 'answer', id, '--approve'], {
        env: { TAI_URL: url, TAI_API_KEY: key },
      });
      return r.code === 0 ? 'ok' : (/error: (\w+)/.exec(r.stderr)?.[1] ?? r.stderr);
    };
    const doors = [
      { name: 'GraphQL', answer: (key: string, id: string) => graphql(key, id, { decision: 'APPROVED' }) },
      { name: 'REST', answer: (key: string, id: string) => rest(key, id, { decision: 'APPROVED' }) },
      { name: 'CLI', answer: cli },
    ];

    for (const door of doors) {
      it(`${door.name}: the requester never approves, nor an asker with operator rights; someone else does`, async () => {
        const requested = await ask(AGENT, refund({ requestedBy: 'rita' }));
        expect(await door.answer(MORE.rita, requested)).toBe('FORBIDDEN');
        const own = await ask(BOT_OPS, refund());
        expect(await door.answer(MORE.botops, own)).toBe('FORBIDDEN');
        const voted = await ask(BOT_OPS, { ...refund(), quorum: { approvals: 2 } });
        expect(await door.answer(MORE.botops, voted)).toBe('FORBIDDEN');
        expect([await status(requested), await status(own), await status(voted)]).toEqual([
          'PENDING',
          'PENDING',
          'PENDING',
        ]);
        expect(await door.answer(KEYS.ops, requested)).toBe('ok');
        expect(await door.answer(KEYS.ops, own)).toBe('ok');
        expect(await status(own)).toBe('ANSWERED');
      });
    }

    it('a group question: a restricted member answers, a restricted non-member gets NOT_FOUND, an operator outside FORBIDDEN', async () => {
      const id = await ask(AGENT, { format: 'CONFIRM', audience: 'group:payments' });
      expect(await rest(KEYS.bob, id, true)).toBe('NOT_FOUND');
      expect(await graphql(KEYS.bob, id, true)).toBe('NOT_FOUND');
      expect(await rest(KEYS.ops, id, true)).toBe('FORBIDDEN');
      expect(await graphql(KEYS.ops, id, true)).toBe('FORBIDDEN');
      expect(await status(id)).toBe('PENDING');
      expect(await graphql(KEYS.alice, id, true)).toBe('ok');
      expect((await t.server.store.get(id))!.answeredBy).toBe('alice');
      const viewer = async (key: string) => {
        const r = await fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ viewer { groups } }' }),
        });
        return ((await r.json()) as { data: { viewer: { groups: string[] } } }).data.viewer.groups;
      };
      expect(await viewer(KEYS.alice)).toEqual(['payments', 'sre']);
      expect(await viewer(KEYS.bob)).toEqual(['sre']);
    });

    it('an on-call question shows whom it was routed to (Question.routedTo), to the group only', async () => {
      const id = await ask(AGENT, { format: 'CONFIRM', audience: 'oncall:sre' });
      const routed = (await t.server.store.get(id))!.routedTo;
      expect(['alice', 'bob']).toContain(routed);
      const read = async (key: string) => {
        const r = await fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            query: 'query($id: ID!) { question(id: $id) { audience routedTo } }',
            variables: { id },
          }),
        });
        return ((await r.json()) as { data: { question: unknown } }).data.question;
      };
      expect(await read(KEYS.bob)).toEqual({ audience: 'oncall:sre', routedTo: routed });
      expect(await read(KEYS.ops)).toEqual({ audience: 'oncall:sre', routedTo: routed });
      expect(await read(MORE.rita)).toEqual({ audience: 'oncall:sre', routedTo: routed });
    });
  });
}
