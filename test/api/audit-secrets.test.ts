// Nothing secret in the proof (API.md §16–§17): after a run that asks and answers every format
// — a sensitive question among them, an EXTERNAL one answered through its callback URL — the
// audit export (with its receipts, their payloads decoded) holds no answer value, no question
// text, no callback ticket and no API key: digests and small facts only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, KEYS, startServer, type TestServer, type Who } from '../support/server.ts';

const ASK = `mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) { question { id } callbackUrl } }`;
const ANSWER = `mutation($id: ID!, $a: JSON!) { answer(id: $id, answer: $a) { status } }`;

for (const store of ['memory', 'redis'] as const) {
  describe(`secrets stay out of the audit log and receipts (${store})`, () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startServer({ store });
    });
    afterAll(async () => {
      await t.close();
    });

    const gql = async (who: Who, query: string, variables: Record<string, unknown>) => {
      const r = await t.server.inject({
        method: 'POST',
        url: '/graphql',
        headers: { ...auth(who), 'content-type': 'application/json' },
        payload: { query, variables },
      });
      const body = r.json() as {
        data?: { askUser?: { question: { id: string }; callbackUrl: string | null } };
        errors?: unknown[];
      };
      expect(body.errors).toBeUndefined();
      return body.data!;
    };

    it('no answer value, question text, ticket or key in any entry or receipt', async () => {
      const secrets: string[] = [...Object.values(KEYS)];
      const ask = async (input: Record<string, unknown>) => {
        secrets.push(String(input.text));
        return (await gql('agent', ASK, { input })).askUser!;
      };
      const text = await ask({ text: 'text-question-marker', format: 'TEXT' });
      const sensitive = await ask({ text: 'sensitive-question-marker', format: 'TEXT', sensitive: true });
      const confirm = await ask({ text: 'confirm-question-marker', format: 'CONFIRM' });
      const select = await ask({
        text: 'select-question-marker',
        format: 'SELECT',
        options: ['opt-a-marker', 'opt-b-marker'],
      });
      const form = await ask({
        text: 'form-question-marker',
        format: 'FORM',
        schema: { type: 'object', properties: { pin: { type: 'string' } }, required: ['pin'] },
      });
      const external = await ask({
        text: 'external-question-marker',
        format: 'EXTERNAL',
        link: 'https://sign.example/?cb={callback_url}',
      });
      const ticket = external.callbackUrl!.split('/').at(-1)!;
      secrets.push(ticket, 'opt-a-marker', 'opt-b-marker');
      const answers: [string, unknown][] = [
        [text.question.id, 'text-answer-marker'],
        [sensitive.question.id, 'sensitive-answer-marker'],
        [confirm.question.id, true],
        [select.question.id, 'opt-b-marker'],
        [form.question.id, { pin: 'form-answer-marker-4242' }],
      ];
      for (const [id, a] of answers) await gql('ops', ANSWER, { id, a });
      secrets.push('text-answer-marker', 'sensitive-answer-marker', 'form-answer-marker-4242');
      const cb = await t.server.inject({
        method: 'POST',
        url: new URL(external.callbackUrl!).pathname,
        headers: { 'content-type': 'application/json' },
        payload: { signed: 'external-answer-marker' },
      });
      expect(cb.statusCode).toBe(200);
      secrets.push('external-answer-marker');

      const r = await t.server.inject({
        method: 'GET',
        url: '/api/interactions/audit?receipts=true',
        headers: auth('admin'),
      });
      const lines = r.body.trim().split('\n');
      const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      // 6 asks, 6 resolutions, their 6 receipts and the head.
      expect(parsed.filter((l) => 'seq' in l)).toHaveLength(12);
      const receipts = parsed.filter((l) => 'receipt' in l).map((l) => (l.receipt as { jws: string }).jws);
      expect(receipts).toHaveLength(6);
      const decoded = receipts.map((jws) => Buffer.from(jws.split('.')[1]!, 'base64url').toString('utf8'));
      const haystack = [r.body, ...decoded].join('\n');
      for (const s of secrets) expect(haystack, s).not.toContain(s);
      // The sensitive answer is not even digested (a digest of a short answer gives it away).
      const sensitiveEntry = parsed.find(
        (l) => l.questionId === sensitive.question.id && l.type === 'ANSWERED',
      );
      expect(sensitiveEntry?.detail).toEqual({ format: 'TEXT' });
    });
  });
}
