// Separation of duties on the callback page's own wire (API.md §7, §22): the callback door answers
// as its ticket holder, `callback`. An action requested for that identity is never decided there
// — not by the page's form, not by a JSON post, not as a vote — and the question stays pending
// for someone else; the same posts on an action requested for another person are recorded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuestionRecord } from '../../src/domain/question.ts';
import type { ChannelPort } from '../../src/engine/ports.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';

const pager: ChannelPort = { names: () => new Set(['pager']), async deliver(_q: QuestionRecord) {} };
const FORM = { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' };
const JSON_POST = { 'content-type': 'application/json' };

for (const store of ['memory', 'redis'] as const) {
  describe(`the callback page: separation of duties (${store})`, () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startServer({ store, plugins: { channels: pager } });
    });
    afterAll(() => t.close());

    async function gql(query: string, variables: Record<string, unknown>, who: 'agent' | 'ops' = 'agent') {
      const r = await t.server.inject({
        method: 'POST',
        url: '/graphql',
        headers: { ...auth(who), 'content-type': 'application/json' },
        payload: { query, variables },
      });
      return r.json();
    }
    async function ask(requestedBy: string, quorum?: { approvals: number }) {
      const r = await gql(
        'mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { question { id } callbackUrl } }',
        {
          i: {
            text: 'Refund?',
            format: 'APPROVAL',
            channel: 'pager',
            action: { name: 'payments.refund', arguments: { amount: 3 }, requestedBy },
            ...(quorum ? { quorum } : {}),
          },
        },
      );
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      return { id: r.data.askUser.question.id as string, url: new URL(r.data.askUser.callbackUrl).pathname };
    }
    const read = async (id: string) =>
      (await gql('query($id: ID!) { question(id: $id) { status answeredBy votes { by } } }', { id }, 'ops'))
        .data.question;
    const post = (url: string, form: boolean, decision: string) =>
      t.server.inject({
        method: 'POST',
        url,
        headers: form ? FORM : JSON_POST,
        payload: form ? `decision=${decision}` : JSON.stringify({ answer: { decision } }),
      });

    it('the page form and a JSON post never approve or reject an action requested for `callback`', async () => {
      const q = await ask('callback');
      for (const form of [true, false]) {
        for (const decision of ['APPROVED', 'REJECTED']) {
          const r = await post(q.url, form, decision);
          expect(r.statusCode, `${form ? 'form' : 'json'} ${decision}`).toBe(403);
          if (!form) expect(r.json()).toMatchObject({ code: 'FORBIDDEN', error: /separation of duties/ });
          else expect(r.body).toMatch(/separation of duties/);
        }
      }
      expect(await read(q.id)).toMatchObject({ status: 'PENDING', answeredBy: null });
      const voted = await ask('callback', { approvals: 2 });
      expect((await post(voted.url, false, 'APPROVED')).statusCode).toBe(403);
      expect(await read(voted.id)).toMatchObject({ status: 'PENDING', votes: [] });
    });

    it('the same posts on an action requested for someone else are recorded', async () => {
      const q = await ask('oidc:ana');
      expect((await post(q.url, true, 'APPROVED')).statusCode).toBe(200);
      expect(await read(q.id)).toMatchObject({ status: 'ANSWERED', answeredBy: 'callback' });
      const voted = await ask('oidc:ana', { approvals: 2 });
      expect((await post(voted.url, false, 'APPROVED')).statusCode).toBe(200);
      expect(await read(voted.id)).toMatchObject({ status: 'PENDING', votes: [{ by: 'callback' }] });
    });
  });
}
