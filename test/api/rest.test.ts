// The REST doors through the real HTTP layer: health, the answer door and its body rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, startServer, type TestServer, type Who } from '../support/server.ts';

for (const store of ['memory', 'redis'] as const) {
  describe(`REST doors (${store})`, () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startServer({ store });
    });
    afterAll(async () => {
      await t.close();
    });

    async function ask(input: Record<string, unknown>, who: Who = 'agent'): Promise<string> {
      const r = await t.server.inject({
        method: 'POST',
        url: '/graphql',
        headers: { ...auth(who), 'content-type': 'application/json' },
        payload: {
          query: 'mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { question { id } } }',
          variables: { i: input },
        },
      });
      const body = r.json();
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      return body.data.askUser.question.id;
    }

    function answer(
      id: string,
      payload: string | object,
      who: Who | null = 'ops',
      type = 'application/json',
    ) {
      return t.server.inject({
        method: 'POST',
        url: `/api/interactions/${id}/answer`,
        headers: { ...(who ? auth(who) : {}), 'content-type': type },
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      });
    }

    it('GET /health and /ready answer 200 without a key', async () => {
      expect((await t.server.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      expect((await t.server.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
    });

    it('records an answer and returns the question', async () => {
      const id = await ask({ text: 'Name?' });
      const r = await answer(id, { answer: 'Ada' });
      expect(r.statusCode).toBe(200);
      expect(r.json().data).toMatchObject({ id, status: 'ANSWERED', answer: 'Ada', answeredBy: 'ops' });
      expect(r.json().data.answeredAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(r.json().data.escalations).toEqual([]);
    });

    it('the answered question shows its escalation ladder (API.md §18)', async () => {
      const id = await ask({
        text: 'Name?',
        timeoutSeconds: 600,
        escalation: [{ afterSeconds: 30, action: 'REMIND' }],
      });
      const r = await answer(id, { answer: 'Ada' });
      expect(r.json().data.escalations).toEqual([
        { afterSeconds: 30, action: 'REMIND', channel: null, recipient: null, firedAt: null, outcome: null },
      ]);
    });

    it('401 without a key or with an unknown one', async () => {
      const id = await ask({ text: 'x' });
      const none = await answer(id, { answer: 'a' }, null);
      expect(none.statusCode).toBe(401);
      expect(none.json()).toEqual({ error: 'missing or unknown API key', code: 'UNAUTHENTICATED' });
      const wrong = await t.server.inject({
        method: 'POST',
        url: `/api/interactions/${id}/answer`,
        headers: { 'x-api-key': 'not-a-key-at-all-000', 'content-type': 'application/json' },
        payload: '{"answer":"a"}',
      });
      expect(wrong.statusCode).toBe(401);
    });

    it('maps every domain outcome to its status and code', async () => {
      const id = await ask({ text: 'x', format: 'CONFIRM' });
      expect((await answer(id, { answer: true }, 'agent')).json()).toMatchObject({ code: 'FORBIDDEN' });
      expect((await answer(id, { answer: true }, 'agent')).statusCode).toBe(403);
      // Another agent cannot see the question: absent, not forbidden (API.md §2).
      const asOtherAgent = await answer(id, { answer: true }, 'agent2');
      expect([asOtherAgent.statusCode, asOtherAgent.json()]).toEqual([
        404,
        { error: 'question not found', code: 'NOT_FOUND' },
      ]);
      const bad = await answer(id, { answer: 'true' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ code: 'BAD_USER_INPUT', field: 'answer' });
      expect((await answer(id, { answer: true })).statusCode).toBe(200);
      const again = await answer(id, { answer: false });
      expect([again.statusCode, again.json().code]).toEqual([409, 'ALREADY_ANSWERED']);
      const missing = await answer('no-such-question', { answer: true });
      expect([missing.statusCode, missing.json().code]).toEqual([404, 'NOT_FOUND']);
      const hidden = await ask({ text: 'for bob', audience: 'bob' });
      const asAlice = await answer(hidden, { answer: 'x' }, 'alice');
      expect([asAlice.statusCode, asAlice.json()]).toEqual([404, missing.json()]);
      const ext = await ask({
        text: 'sign',
        format: 'EXTERNAL',
        link: 'https://sign.example/?cb={callback_url}',
      });
      const door = await answer(ext, { answer: { ok: true } });
      expect([door.statusCode, door.json().code]).toEqual([400, 'WRONG_DOOR']);
      const closing = await ask({ text: 'close me' });
      await t.server.inject({
        method: 'POST',
        url: '/graphql',
        headers: { ...auth('ops'), 'content-type': 'application/json' },
        payload: { query: `mutation { cancelQuestion(id: "${closing}") { id } }` },
      });
      const late = await answer(closing, { answer: 'late' });
      expect([late.statusCode, late.json().code]).toEqual([409, 'QUESTION_CLOSED']);
    });

    it('refuses invalid bodies with 400, never 500', async () => {
      const id = await ask({ text: 'x' });
      const cases: [string, string][] = [
        ['not json', '{"answer": '],
        ['not an object', '["answer"]'],
        ['a string', '"answer"'],
        ['null', 'null'],
        ['no answer', '{"reply": "x"}'],
        ['empty', ''],
        ['65 levels deep', `{"answer":${'['.repeat(64)}${']'.repeat(64)}}`],
        ['30000 levels deep', `${'['.repeat(30_000)}${']'.repeat(30_000)}`],
      ];
      for (const [what, body] of cases) {
        const r = await answer(id, body);
        expect(r.statusCode, what).toBe(400);
        expect(r.json().code, what).toBe('BAD_USER_INPUT');
      }
      const textPlain = await answer(id, 'hello', 'ops', 'text/plain');
      expect(textPlain.statusCode).toBe(400);
      // 64 levels is within the body rule (the TEXT answer itself is then refused by its format)
      const deep64 = await answer(id, `{"answer":${'['.repeat(63)}${']'.repeat(63)}}`);
      expect(deep64.json()).toMatchObject({ code: 'BAD_USER_INPUT', field: 'answer' });
      const q = await t.server.inject({
        method: 'POST',
        url: '/graphql',
        headers: { ...auth('ops'), 'content-type': 'application/json' },
        payload: { query: `{ question(id: "${id}") { status } }` },
      });
      expect(q.json().data.question.status).toBe('PENDING');
    });

    it('caps the body at INTERACTIONS_CALLBACK_MAX_BODY_BYTES: at the cap accepted, one past it 413', async () => {
      const cap = t.config.callbackMaxBodyBytes;
      const id = await ask({ text: 'long answer' });
      const wrap = (n: number) => `{"answer":"${'a'.repeat(n - 13)}"}`;
      expect(Buffer.byteLength(wrap(cap))).toBe(cap);
      const over = await answer(id, wrap(cap + 1));
      expect([over.statusCode, over.json().code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
      const at = await answer(id, wrap(cap));
      expect(at.statusCode).toBe(200);
    });
  });
}
