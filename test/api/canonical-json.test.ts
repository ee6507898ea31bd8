// Values the server digests as RFC 8785 (JCS) JSON (API.md §5, §15–§16): a lone surrogate in a
// string or a key, and a number that overflows a double (1e400 in a JSON body parses as
// Infinity), have no canonical form, so they are refused at their path through GraphQL and the
// REST answer door, and nothing is stored. The bodies are written as raw JSON text so the
// escapes and the overflowing number reach the server exactly as a client would send them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, startServer, type TestServer } from '../support/server.ts';

const ASK = 'mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { question { id status } } }';
const COUNT = '{ questions(first: 1) { totalCount } }';

interface GqlReply {
  // biome-ignore lint/suspicious/noExplicitAny: read field by field in assertions
  data?: any;
  errors?: { message: string; extensions?: { code?: string; field?: string } }[];
}

describe('values without a canonical JSON form are refused at their path', () => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startServer({ store: 'memory' });
  });
  afterAll(() => t.close());

  /** POST /graphql with `variablesJson` spliced in as raw JSON text. */
  async function gqlRaw(
    who: 'agent' | 'ops' | 'admin',
    query: string,
    variablesJson = '{}',
  ): Promise<GqlReply> {
    const r = await t.server.inject({
      method: 'POST',
      url: '/graphql',
      headers: { ...auth(who), 'content-type': 'application/json' },
      payload: `{"query": ${JSON.stringify(query)}, "variables": ${variablesJson}}`,
    });
    expect(r.statusCode).toBeLessThan(500);
    return r.json() as GqlReply;
  }

  const approval = (argumentsJson: string, extra = '') =>
    `{"i": {"text": "Refund?", "format": "APPROVAL", "action": {"name": "payments.refund", "arguments": ${argumentsJson}${extra}}}}`;

  async function count(): Promise<number> {
    return (await gqlRaw('admin', COUNT)).data.questions.totalCount as number;
  }

  it('GraphQL askUser: a lone surrogate in an argument, in a key, deep in a list; an overflowing number', async () => {
    const before = await count();
    const cases: Array<[string, string, RegExp]> = [
      ['{"foo": "a\\ud800b"}', 'input.action.arguments.foo', /strings must be well-formed Unicode/],
      ['{"foo": "\\udc00"}', 'input.action.arguments.foo', /lone surrogate/],
      ['{"k\\ud800": 1}', 'input.action.arguments["k\\ud800"]', /keys must be well-formed Unicode/],
      [
        '{"list": [1, {"deep": ["ok", "\\ud83d"]}]}',
        'input.action.arguments.list[1].deep[1]',
        /strings must be well-formed Unicode/,
      ],
      ['{"amount": 1e400}', 'input.action.arguments.amount', /numbers must be finite/],
      ['{"amount": -1e400}', 'input.action.arguments.amount', /numbers must be finite/],
    ];
    for (const [args, field, message] of cases) {
      const r = await gqlRaw('agent', ASK, approval(args));
      expect(r.errors?.[0]?.extensions, args).toMatchObject({ code: 'BAD_USER_INPUT', field });
      expect(r.errors?.[0]?.message, args).toMatch(message);
      expect(r.errors?.[0]?.message, args).not.toContain('must be a JSON object');
    }
    // A well-formed pair (an astral character) and the largest finite double are fine.
    const ok = await gqlRaw(
      'agent',
      ASK,
      approval('{"emoji": "\\ud83d\\ude00", "big": 1.7976931348623157e308}'),
    );
    expect(ok.errors).toBeUndefined();
    expect(ok.data.askUser.question.status).toBe('PENDING');
    expect(await count()).toBe(before + 1);
  });

  it('GraphQL askUser: the question text and metadata are checked the same way', async () => {
    const before = await count();
    const text = await gqlRaw('agent', ASK, '{"i": {"text": "Deploy \\ud800?"}}');
    expect(text.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.text' });
    const meta = await gqlRaw('agent', ASK, '{"i": {"text": "Deploy?", "metadata": {"run": {"n": 1e400}}}}');
    expect(meta.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.metadata.run.n',
    });
    expect(meta.errors?.[0]?.message).toMatch(/numbers must be finite/);
    expect(await count()).toBe(before);
  });

  it('REST answer door and GraphQL answer: edited arguments and answers are checked, the question stays pending', async () => {
    const schema = '{"type": "object", "properties": {"note": {"type": "string"}, "n": {"type": "number"}}}';
    const asked = await gqlRaw(
      'agent',
      ASK,
      approval('{"note": "x", "n": 1}', `, "argumentsSchema": ${schema}, "editable": true`),
    );
    expect(asked.errors).toBeUndefined();
    const id = asked.data.askUser.question.id as string;
    const rest = (body: string) =>
      t.server.inject({
        method: 'POST',
        url: `/api/interactions/${id}/answer`,
        headers: { ...auth('ops'), 'content-type': 'application/json' },
        payload: body,
      });
    const surrogate = await rest('{"answer": {"decision": "APPROVED", "arguments": {"note": "\\udfff"}}}');
    expect(surrogate.statusCode).toBe(400);
    expect(surrogate.json()).toMatchObject({ code: 'BAD_USER_INPUT', field: 'answer.arguments.note' });
    const overflow = await rest(
      '{"answer": {"decision": "APPROVED", "arguments": {"note": "x", "n": 1e400}}}',
    );
    expect(overflow.statusCode).toBe(400);
    expect(overflow.json()).toMatchObject({ code: 'BAD_USER_INPUT', field: 'answer.arguments.n' });
    expect(overflow.json().error).toMatch(/numbers must be finite/);
    const note = await rest('{"answer": {"decision": "REJECTED", "note": "no \\ud800"}}');
    expect(note.json()).toMatchObject({ code: 'BAD_USER_INPUT', field: 'answer.note' });
    const viaGql = await gqlRaw(
      'ops',
      'mutation($id: ID!, $a: JSON!) { answer(id: $id, answer: $a) { status } }',
      `{"id": ${JSON.stringify(id)}, "a": {"decision": "APPROVED", "arguments": {"\\ud800": "x"}}}`,
    );
    expect(viaGql.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'answer.arguments["\\ud800"]',
    });
    const still = await gqlRaw(
      'ops',
      'query($id: ID!) { question(id: $id) { status } }',
      `{"id": ${JSON.stringify(id)}}`,
    );
    expect(still.data.question.status).toBe('PENDING');
  });
});
