// Quotas through the whole server (both stores): LIMIT_EXCEEDED names the limit and its value
// and stores nothing, a key's own maxPending overrides the server's, answers and cancels give
// the share back, and viewer.quota shows usage and caps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrincipals } from '../../src/auth/api-keys.ts';
import { auth, KEYS, PRINCIPALS, startServer, type TestServer, type Who } from '../support/server.ts';

const PNG = 'data:image/png;base64,';
/** One IMAGE item whose URL is exactly `bytes` long (valid base64 for any length ≢ 1 mod 4). */
const image = (bytes: number) => ({ kind: 'IMAGE', url: PNG + 'A'.repeat(bytes - PNG.length) });

const ASK = 'mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { question { id } } }';
const VIEWER = `{ viewer { quota { pending reserved maxPending pendingMediaBytes maxPendingMediaBytes
  serverPending serverMaxPending serverPendingMediaBytes serverMaxPendingMediaBytes } } }`;

describe('maxPending in INTERACTIONS_API_KEYS', () => {
  it('is kept when a whole number of at least 1, refused otherwise with the field named', () => {
    const [p] = parsePrincipals([{ id: 'a', key: KEYS.agent, roles: ['agent'], maxPending: 1 }]);
    expect(p?.maxPending).toBe(1);
    for (const bad of [0, -1, 1.5, '3', null]) {
      expect(() =>
        parsePrincipals([{ id: 'a', key: KEYS.agent, roles: ['agent'], maxPending: bad }]),
      ).toThrow('[0].maxPending: must be a whole number of at least 1');
    }
  });
});

for (const store of ['memory', 'redis'] as const) {
  describe(`quotas through the server (${store})`, () => {
    let t: TestServer;
    beforeAll(async () => {
      const keys = PRINCIPALS.map((p) => (p.id === 'agent2' ? { ...p, maxPending: 1 } : p));
      t = await startServer({
        store,
        env: {
          INTERACTIONS_API_KEYS: JSON.stringify(keys),
          INTERACTIONS_MAX_PENDING_PER_PRINCIPAL: '3',
          INTERACTIONS_MAX_PENDING_MEDIA_BYTES_PER_PRINCIPAL: '300000',
          INTERACTIONS_MAX_PENDING_MEDIA_BYTES: '500000',
        },
      });
    });
    afterAll(() => t.close());

    async function gql(who: Who, query: string, variables?: object) {
      const r = await t.server.inject({
        method: 'POST',
        url: '/graphql',
        headers: { ...auth(who), 'content-type': 'application/json' },
        payload: { query, variables },
      });
      return r.json();
    }
    const ask = (who: Who, input: object) =>
      gql(who, ASK, { i: { text: 'Ship it?', format: 'CONFIRM', ...input } });
    async function mustAsk(who: Who, input: object = {}): Promise<string> {
      const body = await ask(who, input);
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      return body.data.askUser.question.id;
    }
    const quota = async (who: Who) => (await gql(who, VIEWER)).data.viewer.quota;
    const cancel = (id: string) =>
      gql('admin', 'mutation($id: ID!) { cancelQuestion(id: $id) { id } }', { id });
    async function refused(body: { errors?: { message: string; extensions: { code: string } }[] }) {
      expect(body.errors?.[0]?.extensions.code).toBe('LIMIT_EXCEEDED');
      return body.errors![0]!.message;
    }

    it('pending per key: the third is granted, the fourth refused naming the setting and its value', async () => {
      const ids = [await mustAsk('agent'), await mustAsk('agent'), await mustAsk('agent')];
      const msg = await refused(await ask('agent', { text: 'one too many' }));
      expect(msg).toContain('INTERACTIONS_MAX_PENDING_PER_PRINCIPAL');
      expect(msg).toContain('= 3');
      expect(await quota('agent')).toMatchObject({ pending: 3, maxPending: 3 });
      // Nothing of the refused ask was stored.
      const list = await gql('admin', '{ questions(filter: { status: [PENDING] }) { totalCount } }');
      expect(list.data.questions.totalCount).toBe(3);
      // An answer and a cancel give slots back.
      const a = await t.server.inject({
        method: 'POST',
        url: `/api/interactions/${ids[0]}/answer`,
        headers: { ...auth('ops'), 'content-type': 'application/json' },
        payload: JSON.stringify({ answer: true }),
      });
      expect(a.statusCode).toBe(200);
      expect((await cancel(ids[1]!)).errors).toBeUndefined();
      expect(await quota('agent')).toMatchObject({ pending: 1 });
      await mustAsk('agent');
      await mustAsk('agent');
      await refused(await ask('agent', {}));
      for (const id of [ids[2]!]) await cancel(id);
      for (const q of (
        await gql('admin', '{ questions(filter: { status: [PENDING] }) { edges { node { id } } } }')
      ).data.questions.edges)
        await cancel(q.node.id);
      expect(await quota('agent')).toMatchObject({ pending: 0, serverPending: 0 });
    });

    it('prepareExternal reservations count against the cap: the third fits, the fourth is refused', async () => {
      const PREPARE = 'mutation($s: Int) { prepareExternal(timeoutSeconds: $s) { id } }';
      const first = await mustAsk('agent');
      const prepared: string[] = [];
      for (let i = 0; i < 2; i++) {
        const body = await gql('agent', PREPARE, { s: 600 });
        expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
        prepared.push(body.data.prepareExternal.id);
      }
      expect(await quota('agent')).toMatchObject({ pending: 1, reserved: 2, maxPending: 3 });
      const msg = await refused(await gql('agent', PREPARE, { s: 600 }));
      expect(msg).toContain('prepareExternal reservations');
      expect(msg).toContain('INTERACTIONS_MAX_PENDING_PER_PRINCIPAL');
      expect(msg).toContain('= 3');
      // An ask is refused too: the reservations hold the places.
      await refused(await ask('agent', {}));
      // Asking with a reservation turns it into the question, at the cap.
      const withPrepared = await gql(
        'agent',
        'mutation($i: AskUserInput!, $p: ID) { askUser(input: $i, holdSeconds: 0, preparedId: $p) { question { id } } }',
        { i: { text: 'Pay?', format: 'EXTERNAL', link: 'https://pay.example/x' }, p: prepared[0] },
      );
      expect(withPrepared.errors, JSON.stringify(withPrepared.errors)).toBeUndefined();
      expect(await quota('agent')).toMatchObject({ pending: 2, reserved: 1 });
      await cancel(first);
      await cancel(withPrepared.data.askUser.question.id);
      // The last reservation is asked so the next test starts with nothing held.
      const last = await gql(
        'agent',
        'mutation($i: AskUserInput!, $p: ID) { askUser(input: $i, holdSeconds: 0, preparedId: $p) { question { id } } }',
        { i: { text: 'Pay?', format: 'EXTERNAL', link: 'https://pay.example/x' }, p: prepared[1] },
      );
      await cancel(last.data.askUser.question.id);
      expect(await quota('agent')).toMatchObject({ pending: 0, reserved: 0 });
    });

    it('a reservation lives at most as long as an answer timeout: 31536000 s is granted, one more is refused', async () => {
      const at = await gql(
        'agent2',
        'mutation { prepareExternal(timeoutSeconds: 31536000) { id expiresAt } }',
      );
      expect(at.errors, JSON.stringify(at.errors)).toBeUndefined();
      const past = await gql('agent2', 'mutation { prepareExternal(timeoutSeconds: 31536001) { id } }');
      expect(past.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'timeoutSeconds' });
      expect(past.errors[0].message).toBe('timeoutSeconds must be a whole number from 1 to 31536000');
      const used = await gql(
        'agent2',
        'mutation($i: AskUserInput!, $p: ID) { askUser(input: $i, holdSeconds: 0, preparedId: $p) { question { id } } }',
        {
          i: { text: 'Pay?', format: 'EXTERNAL', link: 'https://pay.example/x' },
          p: at.data.prepareExternal.id,
        },
      );
      expect(used.errors, JSON.stringify(used.errors)).toBeUndefined();
      await cancel(used.data.askUser.question.id);
    });

    it("a key's own maxPending overrides the server's", async () => {
      const id = await mustAsk('agent2');
      const msg = await refused(await ask('agent2', {}));
      expect(msg).toContain('maxPending = 1');
      expect(await quota('agent2')).toMatchObject({ pending: 1, maxPending: 1 });
      await cancel(id);
    });

    it('media bytes per key and the server budget, each at its value and one byte past it', async () => {
      // 300,000 bytes per key: 200,000 + 100,000 fits exactly; one more byte does not.
      const a1 = await mustAsk('agent', { media: [image(200_000)] });
      const a2 = await mustAsk('agent', { media: [image(100_000)] });
      let msg = await refused(await ask('agent', { media: [image(30)] }));
      expect(msg).toContain('INTERACTIONS_MAX_PENDING_MEDIA_BYTES_PER_PRINCIPAL = 300000 bytes');
      expect(await quota('agent')).toMatchObject({
        pendingMediaBytes: 300_000,
        maxPendingMediaBytes: 300_000,
      });
      // 500,000 for the server: admin brings it to exactly 500,000, agent2's byte is one past it.
      const b1 = await mustAsk('admin', { media: [image(200_000)] });
      msg = await refused(await ask('agent2', { media: [image(30)] }));
      expect(msg).toContain('INTERACTIONS_MAX_PENDING_MEDIA_BYTES = 500000 bytes');
      expect(await quota('agent2')).toMatchObject({
        pending: 0,
        serverPendingMediaBytes: 500_000,
        serverMaxPendingMediaBytes: 500_000,
      });
      for (const id of [a1, a2, b1]) await cancel(id);
      expect(await quota('agent2')).toMatchObject({ serverPendingMediaBytes: 0 });
      await mustAsk('agent2', { media: [image(30)] }).then(cancel);
    });
  });
}
