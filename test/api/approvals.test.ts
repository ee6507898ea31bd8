// APPROVAL questions and quorums through GraphQL (API.md §15), on the memory store and on Redis:
// approve, reject, edit (valid, invalid, not editable), the question's decision/edited/votes,
// a receipt that approves exactly the edited arguments, a 2-of-3 quorum with its errors, a held
// asker woken once on the decision, and an undecided approval timing out as TIMED_OUT.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReceiptVerificationError, verifyReceipt } from '../../src/client/index.ts';
import { startServer, type TestServer } from '../support/server.ts';

const PEOPLE = ['ops1', 'ops2', 'ops3', 'outsider'];
const PRINCIPALS = [
  { id: 'agent', key: 'approvals-agent-key-00001', roles: ['agent'] },
  ...PEOPLE.map((id) => ({ id, key: `approvals-key-${id}-0000000000`, roles: ['operator'] })),
];
const keyOf = (who: string) => PRINCIPALS.find((p) => p.id === who)!.key;

interface GqlError {
  message: string;
  extensions?: { code?: string; field?: string };
}

function gqlOn(t: TestServer) {
  return async (who: string, query: string, variables: Record<string, unknown> = {}) => {
    const r = await t.server.inject({
      method: 'POST',
      url: '/graphql',
      headers: { authorization: `Bearer ${keyOf(who)}`, 'content-type': 'application/json' },
      payload: { query, variables },
    });
    // biome-ignore lint/suspicious/noExplicitAny: response data is checked field by field.
    return r.json() as { data?: any; errors?: GqlError[] };
  };
}

const FIELDS = `id status answer answeredBy decision edited receipt
  action { name summary arguments argumentsSchema editable digest }
  quorum { approvals rejections voters } votes { by via decision note at }`;
const ASK = `mutation($i: AskUserInput!, $h: Int) { askUser(input: $i, holdSeconds: $h) { status answer question { ${FIELDS} } } }`;
const ANSWER = `mutation($id: ID!, $a: JSON!) { answer(id: $id, answer: $a) { ${FIELDS} } }`;
const QUESTION = `query($id: ID!) { question(id: $id) { ${FIELDS} } }`;

const schema = {
  type: 'object',
  properties: { charge: { type: 'string' }, amount: { type: 'integer', minimum: 1, maximum: 500 } },
  required: ['charge', 'amount'],
  additionalProperties: false,
};
const refund = (over: Record<string, unknown> = {}) => ({
  text: 'Refund the customer?',
  format: 'APPROVAL',
  action: {
    name: 'payments.refund',
    summary: 'Refund 100 on ch_1',
    arguments: { charge: 'ch_1', amount: 100 },
    argumentsSchema: schema,
    editable: true,
  },
  ...over,
});

for (const store of ['memory', 'redis'] as const) {
  describe(`APPROVAL through GraphQL (${store})`, () => {
    let t: TestServer;
    let gql: ReturnType<typeof gqlOn>;
    let jwks: { keys: unknown[] };

    beforeAll(async () => {
      t = await startServer({ store, env: { INTERACTIONS_API_KEYS: JSON.stringify(PRINCIPALS) } });
      gql = gqlOn(t);
      jwks = (await t.server.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
    });
    afterAll(() => t.close());

    async function ask(input: Record<string, unknown>): Promise<string> {
      const r = await gql('agent', ASK, { i: input, h: 0 });
      expect(r.errors).toBeUndefined();
      return r.data.askUser.question.id as string;
    }

    it('shows the action with its digest, then an edited approval: the agent gets exactly the approved arguments', async () => {
      const asked = await gql('agent', ASK, { i: refund(), h: 0 });
      const q = asked.data.askUser.question;
      expect(q.action).toMatchObject({
        name: 'payments.refund',
        editable: true,
        summary: 'Refund 100 on ch_1',
      });
      expect(q.action.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(q.decision).toBeNull();
      const answered = await gql('ops1', ANSWER, {
        id: q.id,
        a: { decision: 'APPROVED', arguments: { charge: 'ch_1', amount: 40 }, note: 'partial refund' },
      });
      expect(answered.errors).toBeUndefined();
      const done = answered.data.answer;
      expect(done.status).toBe('ANSWERED');
      expect(done.decision).toBe('APPROVED');
      expect(done.edited).toBe(true);
      expect(done.answer).toEqual({
        decision: 'APPROVED',
        arguments: { charge: 'ch_1', amount: 40 },
        note: 'partial refund',
      });
      const awaited = await gql(
        'agent',
        'query($id: ID!) { awaitAnswer(id: $id, holdSeconds: 0) { status answer } }',
        { id: q.id },
      );
      expect(awaited.data.awaitAnswer.answer.arguments).toEqual({ charge: 'ch_1', amount: 40 });
      // The receipt approves the edited arguments, not the proposal.
      const read = (await gql('agent', QUESTION, { id: q.id })).data.question;
      await verifyReceipt(read.receipt, {
        jwks: jwks as never,
        action: { name: 'payments.refund', arguments: { amount: 40, charge: 'ch_1' } },
      });
      await expect(
        verifyReceipt(read.receipt, {
          jwks: jwks as never,
          action: { name: 'payments.refund', arguments: { charge: 'ch_1', amount: 100 } },
        }),
      ).rejects.toBeInstanceOf(ReceiptVerificationError);
    });

    it('an approval without edits carries the proposed arguments and is not edited', async () => {
      const id = await ask(refund());
      const done = (await gql('ops1', ANSWER, { id, a: { decision: 'APPROVED' } })).data.answer;
      expect(done.answer).toEqual({ decision: 'APPROVED', arguments: { charge: 'ch_1', amount: 100 } });
      expect(done.edited).toBe(false);
    });

    it('a rejection with a note', async () => {
      const id = await ask(refund());
      const done = (await gql('ops1', ANSWER, { id, a: { decision: 'REJECTED', note: 'fraud' } })).data
        .answer;
      expect(done.decision).toBe('REJECTED');
      expect(done.answer).toEqual({ decision: 'REJECTED', note: 'fraud' });
      expect(done.edited).toBe(false);
    });

    it('refuses an invalid edit at answer.arguments.<path> and an edit of a non-editable action; the question stays pending', async () => {
      const id = await ask(refund());
      const invalid = await gql('ops1', ANSWER, {
        id,
        a: { decision: 'APPROVED', arguments: { charge: 'ch_1', amount: 9000 } },
      });
      expect(invalid.errors?.[0]?.extensions).toEqual({
        code: 'BAD_USER_INPUT',
        field: 'answer.arguments.amount',
      });
      const fixed = refund();
      fixed.action = { ...fixed.action, editable: false };
      const other = await ask(fixed);
      const notEditable = await gql('ops1', ANSWER, {
        id: other,
        a: { decision: 'APPROVED', arguments: { charge: 'ch_1', amount: 40 } },
      });
      expect(notEditable.errors?.[0]?.extensions).toEqual({
        code: 'BAD_USER_INPUT',
        field: 'answer.arguments',
      });
      expect((await gql('agent', QUESTION, { id })).data.question.status).toBe('PENDING');
      expect((await gql('agent', QUESTION, { id: other })).data.question.status).toBe('PENDING');
    });

    it('refuses an action on another format at input.action', async () => {
      const r = await gql('agent', ASK, { i: { ...refund(), format: 'CONFIRM' }, h: 0 });
      expect(r.errors?.[0]?.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'input.action' });
    });

    it('2 of 3 voters: votes stay pending, a repeat and an outsider are refused, the held asker wakes once on the decision', async () => {
      const input = refund({ quorum: { approvals: 2, rejections: 2, voters: ['ops1', 'ops2', 'ops3'] } });
      input.action = { ...input.action, editable: false };
      const held = gql('agent', ASK, { i: input, h: 60 });
      // The held ask is in flight; find its question through the listing.
      let id: string | undefined;
      while (!id) {
        const list = await gql(
          'ops1',
          '{ questions(filter: { status: [PENDING] }, first: 200) { edges { node { id quorum { approvals } } } } }',
        );
        id = list.data.questions.edges.find(
          (e: { node: { quorum: { approvals: number } | null } }) => e.node.quorum?.approvals === 2,
        )?.node.id;
        if (!id) await new Promise((r) => setImmediate(r));
      }
      const first = (await gql('ops1', ANSWER, { id, a: { decision: 'APPROVED', note: 'fine' } })).data
        .answer;
      expect(first.status).toBe('PENDING');
      expect(first.votes).toEqual([
        expect.objectContaining({ by: 'ops1', via: 'api', decision: 'APPROVED', note: 'fine' }),
      ]);
      const again = await gql('ops1', ANSWER, { id, a: { decision: 'REJECTED' } });
      expect(again.errors?.[0]).toMatchObject({
        message: 'you have already voted',
        extensions: { code: 'ALREADY_ANSWERED' },
      });
      const outsider = await gql('outsider', ANSWER, { id, a: { decision: 'APPROVED' } });
      expect(outsider.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      const second = (await gql('ops2', ANSWER, { id, a: { decision: 'APPROVED' } })).data.answer;
      expect(second.status).toBe('ANSWERED');
      expect(second.decision).toBe('APPROVED');
      expect(second.answeredBy).toBe('ops2');
      expect(second.votes.map((v: { by: string }) => v.by)).toEqual(['ops1', 'ops2']);
      const woke = await held;
      expect(woke.data.askUser.status).toBe('ANSWERED');
      expect(woke.data.askUser.answer).toEqual({
        decision: 'APPROVED',
        arguments: { charge: 'ch_1', amount: 100 },
      });
      const late = await gql('ops3', ANSWER, { id, a: { decision: 'APPROVED' } });
      expect(late.errors?.[0]?.extensions?.code).toBe('ALREADY_ANSWERED');
    });

    it('CONFIRM with a quorum: true and false are votes, and true decides APPROVED', async () => {
      const id = await ask({ text: 'Deploy?', format: 'CONFIRM', quorum: { approvals: 2, rejections: 2 } });
      expect((await gql('ops1', ANSWER, { id, a: false })).data.answer.status).toBe('PENDING');
      expect((await gql('ops2', ANSWER, { id, a: true })).data.answer.status).toBe('PENDING');
      const decided = (await gql('ops3', ANSWER, { id, a: true })).data.answer;
      expect(decided.status).toBe('ANSWERED');
      expect(decided.answer).toBe(true);
      expect(decided.decision).toBe('APPROVED');
      expect(decided.votes.map((v: { decision: string }) => v.decision)).toEqual([
        'REJECTED',
        'APPROVED',
        'APPROVED',
      ]);
    });

    it('an undecided APPROVAL times out as TIMED_OUT, never a rejection', async () => {
      const id = await ask(refund({ timeoutSeconds: 1, quorum: { approvals: 1, rejections: 2 } }));
      await gql('ops1', ANSWER, { id, a: { decision: 'REJECTED' } });
      const r = await gql(
        'agent',
        'query($id: ID!) { awaitAnswer(id: $id, holdSeconds: 5) { status answer question { decision votes { by } } } }',
        { id },
      );
      expect(r.data.awaitAnswer.status).toBe('TIMED_OUT');
      expect(r.data.awaitAnswer.answer).toBeNull();
      expect(r.data.awaitAnswer.question.decision).toBeNull();
      expect(r.data.awaitAnswer.question.votes).toEqual([{ by: 'ops1' }]);
    });
  });
}
