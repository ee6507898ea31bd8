// A held askUser/awaitAnswer on /graphql waits between two executions of its request (see
// src/graphql/held-calls.ts). Over real sockets: the question is asked once, the reply is the
// one a single execution gives (the callback URL minted by the first pass included), a
// sensitive answer reaches the asker once, and an operation with more than the one field
// keeps its hold inside its single execution.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Engine, OPS } from '../support/engines.ts';
import { gqlAt, httpRequest } from '../support/processes.ts';
import { auth, KEYS, startServer, type TestServer } from '../support/server.ts';

const ASK = /* GraphQL */ `
  mutation Ask($input: AskUserInput!, $hold: Int) {
    askUser(input: $input, holdSeconds: $hold) { status answer callbackUrl question { id status text } }
  }
`;
const ASK_TWICE = /* GraphQL */ `
  mutation AskTwice($hold: Int) {
    first: askUser(input: { text: "One?", format: CONFIRM }, holdSeconds: $hold) { status question { id } }
    second: askUser(input: { text: "Two?", format: CONFIRM }, holdSeconds: $hold) { status question { id } }
  }
`;
const CANCEL = /* GraphQL */ `mutation Cancel($id: ID!) { cancelQuestion(id: $id) { status } }`;
const AWAIT = /* GraphQL */ `
  query Await($id: ID!, $hold: Int) { awaitAnswer(id: $id, holdSeconds: $hold) { status answer callbackUrl } }
`;

/** Polls a cheap in-process condition (no I/O); fails if it never holds. */
async function until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

for (const store of ['memory', 'redis'] as const) {
  describe(`held calls between two executions (${store})`, () => {
    let t: TestServer;
    let url: string;
    let engine: Engine;

    beforeEach(async () => {
      t = await startServer({ store });
      url = await t.listen();
      engine = t.server.engine as Engine;
    });
    afterEach(async () => {
      await t.close();
    });

    const pendingIds = async (): Promise<string[]> => (await engine.pending(OPS)).map((q) => q.id);

    async function answer(id: string, value: unknown): Promise<void> {
      const res = await httpRequest(`${url}/api/interactions/${id}/answer`, {
        method: 'POST',
        headers: { ...auth('ops'), 'content-type': 'application/json' },
        body: JSON.stringify({ answer: value }),
      });
      expect(res.status).toBe(200);
    }

    it('a held askUser asks once and returns its outcome with the callback URL its ask minted', async () => {
      const held = gqlAt(url, KEYS.agent, ASK, {
        input: { text: 'Signed?', format: 'EXTERNAL', link: 'https://sign.example/doc?cb={callback_url}' },
        hold: 60,
      });
      await until(() => engine.heldCount() === 1, 'the ask is held');
      const ids = await pendingIds();
      expect(ids).toHaveLength(1);
      // EXTERNAL questions are answered through their callback URL, which only the reply shows.
      const cancelled = await gqlAt(url, KEYS.ops, CANCEL, { id: ids[0] });
      expect(cancelled.errors).toBeUndefined();
      const r = await held;
      expect(r.errors).toBeUndefined();
      expect(r.data.askUser).toMatchObject({
        status: 'CANCELLED',
        answer: null,
        question: { id: ids[0], status: 'CANCELLED', text: 'Signed?' },
      });
      expect(r.data.askUser.callbackUrl).toMatch(
        /^http:\/\/127\.0\.0\.1:4000\/api\/interactions\/callback\//,
      );
      // Nothing was asked again by the second execution.
      expect(await pendingIds()).toEqual([]);
      expect(engine.heldCount()).toBe(0);
    });

    it('a hold that ends first returns PENDING, and awaitAnswer then holds the same way', async () => {
      const r = await gqlAt(url, KEYS.agent, ASK, { input: { text: 'Later?' }, hold: 1 });
      expect(r.data.askUser).toMatchObject({ status: 'PENDING', answer: null, callbackUrl: null });
      const id = r.data.askUser.question.id as string;
      const waiting = gqlAt(url, KEYS.agent, AWAIT, { id, hold: 60 });
      await until(() => engine.heldCount() === 1, 'awaitAnswer is held');
      await answer(id, 'now');
      expect((await waiting).data.awaitAnswer).toEqual({
        status: 'ANSWERED',
        answer: 'now',
        callbackUrl: null,
      });
    });

    it('a resumed reply has the bytes and headers of a single execution, for either JSON type', async () => {
      const raw = async (accept: string, variables: Record<string, unknown>) => {
        const res = await httpRequest(`${url}/graphql`, {
          method: 'POST',
          headers: { ...auth('agent'), 'content-type': 'application/json', accept },
          body: JSON.stringify({ query: AWAIT, variables }),
        });
        const headers = [...res.headers].filter(([name]) => name !== 'date');
        return { status: res.status, headers, body: await res.text() };
      };
      for (const accept of ['application/json', 'application/graphql-response+json']) {
        const r = await gqlAt(url, KEYS.agent, ASK, { input: { text: `Bytes as ${accept}?` }, hold: 0 });
        const id = r.data.askUser.question.id as string;
        const held = raw(accept, { id, hold: 60 });
        await until(() => engine.heldCount() === 1, 'awaitAnswer is held');
        await answer(id, 'yes, "quoted" and é');
        const resumed = await held;
        const single = await raw(accept, { id, hold: 0 });
        expect(resumed.body).toContain('"ANSWERED"');
        expect(resumed).toEqual(single);
      }
    });

    it('a sensitive answer reaches the held asker, and only the asker', async () => {
      const held = gqlAt(url, KEYS.agent, ASK, { input: { text: 'Your PIN?', sensitive: true }, hold: 60 });
      await until(() => engine.heldCount() === 1, 'the ask is held');
      const [id] = await pendingIds();
      await answer(id!, '4321');
      expect((await held).data.askUser).toMatchObject({ status: 'ANSWERED', answer: '4321' });
      // Another principal never sees it.
      const other = await gqlAt(url, KEYS.ops, AWAIT, { id, hold: 0 });
      expect(other.data.awaitAnswer).toMatchObject({ status: 'ANSWERED', answer: null });
    });

    it('an operation with two askUser fields holds inside its one execution and asks each once', async () => {
      const held = gqlAt(url, KEYS.agent, ASK_TWICE, { hold: 60 });
      // Mutations run one after the other: the first is held while the second is not asked yet.
      await until(() => engine.heldCount() === 1, 'the first ask is held');
      const [first] = await pendingIds();
      await answer(first!, true);
      let ids: string[] = [];
      for (const start = Date.now(); ids.length === 0; ) {
        if (Date.now() - start > 10_000) throw new Error('the second question was never asked');
        ids = (await pendingIds()).filter((id) => id !== first);
      }
      await until(() => engine.heldCount() === 1, 'the second ask is held');
      await answer(ids[0]!, false);
      const r = await held;
      expect(r.data).toEqual({
        first: { status: 'ANSWERED', question: { id: first } },
        second: { status: 'ANSWERED', question: { id: ids[0] } },
      });
      expect(await pendingIds()).toEqual([]);
    });
  });
}
