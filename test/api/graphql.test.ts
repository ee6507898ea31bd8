// The GraphQL surface end to end, in process: Yoga's fetch over a real engine on the memory
// store and the real authenticator. No port, no sleeps: waits end on events and stream chunks.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring, parsePrincipals } from '../../src/auth/api-keys.ts';
import { createAuthenticator } from '../../src/auth/authenticate.ts';
import { DEFAULT_DOOR_POLICY } from '../../src/auth/door-policy.ts';
import type { QuestionRecord } from '../../src/domain/question.ts';
import type { Interactions } from '../../src/engine/types.ts';
import { openFeed } from '../../src/engine/views/feed.ts';
import { parseDateTime, serializeDateTime } from '../../src/graphql/scalars.ts';
import { createGraphQLServer, GRAPHQL_MAX_BODY_BYTES, type GraphQLServer } from '../../src/graphql/yoga.ts';
import { type EngineSet, OPS, startEngines } from '../support/engines.ts';

const KEYS = {
  agent: 'agent-key-0123456789abcdef',
  agent2: 'agent2-key-0123456789abcdef',
  ops: 'ops-key-0123456789abcdef',
  admin: 'admin-key-0123456789abcdef',
  alice: 'alice-key-0123456789abcdef',
  bob: 'bob-key-0123456789abcdef',
} as const;

const authenticator = createAuthenticator({
  accessControl: true,
  policy: DEFAULT_DOOR_POLICY,
  keyring: createKeyring(
    parsePrincipals([
      { id: 'agent', key: KEYS.agent, roles: ['agent'] },
      { id: 'agent2', key: KEYS.agent2, roles: ['agent'] },
      { id: 'ops', key: KEYS.ops, roles: ['operator'] },
      { id: 'admin', key: KEYS.admin, roles: ['admin'] },
      { id: 'alice', key: KEYS.alice, roles: ['operator', 'agent'], restricted: true },
      { id: 'bob', key: KEYS.bob, roles: ['operator', 'agent'], restricted: true },
    ]),
  ),
});

/** A pino logger whose lines are kept for assertions. */
function capturingLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

interface GqlError {
  message: string;
  extensions?: { code?: string; field?: string; [k: string]: unknown };
  path?: (string | number)[];
}

interface GqlResponse {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: response data is checked field by field.
  data: any;
  errors: GqlError[] | undefined;
}

type Key = keyof typeof KEYS;

function headersFor(key: Key | null, extra: Record<string, string> = {}): Record<string, string> {
  return key === null ? extra : { authorization: `Bearer ${KEYS[key]}`, ...extra };
}

async function gql(
  yoga: GraphQLServer,
  key: Key | null,
  query: string,
  variables?: Record<string, unknown>,
  init: RequestInit = {},
): Promise<GqlResponse> {
  const res = await yoga.fetch('http://test/graphql', {
    method: 'POST',
    headers: headersFor(key, { 'content-type': 'application/json', accept: 'application/json' }),
    body: JSON.stringify({ query, variables }),
    ...init,
  });
  const body = (await res.json()) as { data?: unknown; errors?: GqlError[] };
  return { status: res.status, data: body.data, errors: body.errors };
}

/** The single error of a response, with its code. */
function onlyError(r: GqlResponse): GqlError {
  expect(r.errors, JSON.stringify(r)).toHaveLength(1);
  return r.errors![0]!;
}

const ASK = /* GraphQL */ `
  mutation Ask($input: AskUserInput!, $hold: Int, $preparedId: ID) {
    askUser(input: $input, holdSeconds: $hold, preparedId: $preparedId) {
      status
      answer
      callbackUrl
      question { id text format status sensitive answer link serverVerified audience createdAt timeoutAt }
    }
  }
`;

const ANSWER = /* GraphQL */ `
  mutation Answer($id: ID!, $answer: JSON!) {
    answer(id: $id, answer: $answer) { id status answer answeredBy answeredAt }
  }
`;

const AWAIT = /* GraphQL */ `
  query Await($id: ID!, $hold: Int) {
    awaitAnswer(id: $id, holdSeconds: $hold) { status answer question { id status answer } }
  }
`;

const QUESTION = /* GraphQL */ `
  query Q($id: ID!) {
    question(id: $id) { id text status answer sensitive createdAt timeoutAt answeredAt closedAt cancelReason }
  }
`;

async function ask(
  yoga: GraphQLServer,
  key: Key,
  input: Record<string, unknown>,
  hold = 0,
): Promise<{ id: string; r: GqlResponse }> {
  const r = await gql(yoga, key, ASK, { input, hold });
  return { id: r.data?.askUser?.question?.id as string, r };
}

/** Reads `event:`/`data:` frames from a text/event-stream body. */
function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    async next(): Promise<{ event: string; data: string } | null> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of frame.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
          }
          if (data.length === 0 && event === 'message') continue; // a keep-alive comment
          return { event, data: data.join('\n') };
        }
        const chunk = await reader.read();
        if (chunk.done) return null;
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    },
    cancel: () => reader.cancel(),
  };
}

async function subscribe(
  yoga: GraphQLServer,
  key: Key | null,
  query: string,
  variables?: Record<string, unknown>,
) {
  const res = await yoga.fetch('http://test/graphql', {
    method: 'POST',
    headers: headersFor(key, { 'content-type': 'application/json', accept: 'text/event-stream' }),
    body: JSON.stringify({ query, variables }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  return sseReader(res.body!);
}

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('GraphQL over the memory store', () => {
  let set: EngineSet;
  let engine: Interactions;
  let yoga: GraphQLServer;
  let lines: Record<string, unknown>[];

  beforeAll(async () => {
    set = await startEngines('memory');
    engine = set.engines[0]!;
    const captured = capturingLogger();
    lines = captured.lines;
    yoga = createGraphQLServer({ engine, authenticator, logger: captured.logger });
  });

  afterAll(async () => {
    await set.close();
  });

  describe('authentication', () => {
    it('refuses a request with no key: 401 UNAUTHENTICATED', async () => {
      const res = await yoga.fetch('http://test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ viewer { id } }' }),
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        errors: [{ message: 'missing or unknown API key', extensions: { code: 'UNAUTHENTICATED' } }],
      });
    });

    it('refuses an unknown key, on POST, GET and the graphql-sse endpoint alike', async () => {
      const bad = { authorization: 'Bearer not-a-known-key-0000000000' };
      const requests: [string, RequestInit][] = [
        [
          'http://test/graphql',
          { method: 'POST', headers: { ...bad, 'content-type': 'application/json' }, body: '{}' },
        ],
        ['http://test/graphql?query=%7Bviewer%7Bid%7D%7D', { method: 'GET', headers: bad }],
        ['http://test/graphql?query=%7Bviewer%7Bid%7D%7D', { method: 'GET' }],
        ['http://test/graphql/stream', { method: 'PUT', headers: bad }],
        ['http://test/graphql/stream', { method: 'GET', headers: { accept: 'text/event-stream' } }],
      ];
      for (const [url, init] of requests) {
        const res = await yoga.fetch(url, init);
        expect(res.status, `${init.method} ${url}`).toBe(401);
        const body = (await res.json()) as { errors: GqlError[] };
        expect(body.errors[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      }
    });

    it('accepts X-Api-Key as well as a Bearer token, and GET queries', async () => {
      const res = await yoga.fetch('http://test/graphql?query=%7Bviewer%7Bid%7D%7D', {
        headers: { 'x-api-key': KEYS.ops, accept: 'application/json' },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ data: { viewer: { id: 'ops' } } });
    });

    it('serves GraphiQL only when enabled; off (the default), the same request needs a key', async () => {
      const refused = await yoga.fetch('http://test/graphql', { headers: { accept: 'text/html' } });
      expect(refused.status).toBe(401);
      const on = createGraphQLServer({
        engine,
        authenticator,
        logger: pino({ level: 'silent' }),
        graphiql: true,
      });
      const page = await on.fetch('http://test/graphql', { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
    });

    it('leaves /health and /ready to the HTTP layer', async () => {
      const res = await yoga.fetch('http://test/health', { headers: headersFor('ops') });
      expect(res.status).toBe(404);
    });

    it('shows each principal itself as viewer', async () => {
      const q = '{ viewer { id roles restricted } }';
      expect((await gql(yoga, 'agent', q)).data.viewer).toEqual({
        id: 'agent',
        roles: ['agent'],
        restricted: false,
      });
      expect((await gql(yoga, 'ops', q)).data.viewer).toEqual({
        id: 'ops',
        roles: ['operator'],
        restricted: false,
      });
      expect((await gql(yoga, 'alice', q)).data.viewer).toEqual({
        id: 'alice',
        roles: ['operator', 'agent'],
        restricted: true,
      });
    });

    it('a caller with no roles (the door made public) sees itself but nothing else', async () => {
      const open = createGraphQLServer({
        engine,
        authenticator: createAuthenticator({
          accessControl: true,
          policy: { ...DEFAULT_DOOR_POLICY, graphql: 'public' },
          keyring: createKeyring([]),
        }),
        logger: pino({ level: 'silent' }),
      });
      const me = await gql(open, null, '{ viewer { id roles restricted } }');
      expect(me.data.viewer).toEqual({ id: 'anonymous', roles: [], restricted: false });
      const list = await gql(open, null, '{ questions { totalCount } }');
      expect(onlyError(list).extensions?.code).toBe('FORBIDDEN');
      const sub = await subscribe(open, null, 'subscription { pendingQuestions { type } }');
      const first = await sub.next();
      expect((JSON.parse(first!.data) as { errors: GqlError[] }).errors[0]?.extensions?.code).toBe(
        'FORBIDDEN',
      );
    });

    it('lists channels for any role', async () => {
      expect((await gql(yoga, 'agent', '{ channels }')).data).toEqual({ channels: [] });
    });
  });

  describe('asking and answering', () => {
    it('askUser with holdSeconds 0 is PENDING; answer; awaitAnswer is ANSWERED with the answer', async () => {
      const { id, r } = await ask(yoga, 'agent', { text: 'Ship it?', format: 'CONFIRM' });
      expect(r.errors).toBeUndefined();
      expect(r.data.askUser).toMatchObject({
        status: 'PENDING',
        answer: null,
        callbackUrl: null,
        question: { text: 'Ship it?', format: 'CONFIRM', status: 'PENDING', sensitive: false, answer: null },
      });

      const answered = await gql(yoga, 'ops', ANSWER, { id, answer: false });
      expect(answered.errors).toBeUndefined();
      expect(answered.data.answer).toMatchObject({
        id,
        status: 'ANSWERED',
        answer: false,
        answeredBy: 'ops',
      });
      expect(answered.data.answer.answeredAt).toMatch(RFC3339_UTC);

      const waited = await gql(yoga, 'agent', AWAIT, { id, hold: 0 });
      expect(waited.data.awaitAnswer).toEqual({
        status: 'ANSWERED',
        answer: false,
        question: { id, status: 'ANSWERED', answer: false },
      });
    });

    it('a held askUser returns ANSWERED when another request answers', async () => {
      const feed = openFeed(engine, OPS);
      try {
        expect((await feed.next()).value?.type).toBe('SNAPSHOT');
        const held = ask(
          yoga,
          'agent',
          { text: 'Deploy to prod?', format: 'SELECT', options: ['yes', 'no'] },
          30,
        );
        const asked = (await feed.next()).value;
        expect(asked?.type).toBe('ASKED');
        const id = asked!.questions[0]!.id;
        const answered = await gql(yoga, 'ops', ANSWER, { id, answer: 'yes' });
        expect(answered.errors).toBeUndefined();
        const { r } = await held;
        expect(r.data.askUser).toMatchObject({ status: 'ANSWERED', answer: 'yes', question: { id } });
      } finally {
        await feed.return();
      }
    });

    it('a dropped client ends the held wait, never the question', async () => {
      const feed = openFeed(engine, OPS);
      const controller = new AbortController();
      try {
        await feed.next();
        const held = gql(
          yoga,
          'agent',
          ASK,
          { input: { text: 'Still there?' }, hold: 60 },
          {
            signal: controller.signal,
          },
        );
        const id = (await feed.next()).value!.questions[0]!.id;
        controller.abort();
        await expect(held).rejects.toThrow();
        const r = await gql(yoga, 'agent', AWAIT, { id, hold: 0 });
        expect(r.data.awaitAnswer.status).toBe('PENDING');
        expect(set.engines[0]!.waiterCount()).toBe(0);
      } finally {
        await feed.return();
      }
    });

    it('renders times as RFC 3339 in UTC', async () => {
      const { id, r } = await ask(yoga, 'agent', { text: 'What time is it?', timeoutSeconds: 120 });
      const q = r.data.askUser.question;
      expect(q.createdAt).toMatch(RFC3339_UTC);
      const record = (await engine.get(OPS, id)) as QuestionRecord;
      expect(q.createdAt).toBe(new Date(record.createdAt).toISOString());
      expect(Date.parse(q.timeoutAt) - Date.parse(q.createdAt)).toBe(120_000);
      const read = await gql(yoga, 'ops', QUESTION, { id });
      expect(read.data.question).toMatchObject({
        id,
        createdAt: q.createdAt,
        answeredAt: null,
        closedAt: null,
      });
    });

    it('a sensitive answer reaches the asker once through askUser and never shows in question', async () => {
      const feed = openFeed(engine, OPS);
      try {
        await feed.next();
        const held = ask(yoga, 'agent', { text: 'Your PIN?', sensitive: true }, 30);
        const id = (await feed.next()).value!.questions[0]!.id;
        expect((await gql(yoga, 'ops', ANSWER, { id, answer: '4321' })).data.answer).toMatchObject({
          status: 'ANSWERED',
          answer: null,
        });
        const { r } = await held;
        expect(r.data.askUser).toMatchObject({
          status: 'ANSWERED',
          answer: '4321',
          question: { answer: null },
        });
        const read = await gql(yoga, 'agent', QUESTION, { id });
        expect(read.data.question).toMatchObject({ status: 'ANSWERED', sensitive: true, answer: null });
        // A re-attach within the reply grace gets it again; the question never shows it.
        const again = await gql(yoga, 'agent', AWAIT, { id, hold: 0 });
        expect(again.data.awaitAnswer).toMatchObject({ status: 'ANSWERED', answer: '4321' });
      } finally {
        await feed.return();
      }
    });

    it('cancelQuestion closes the question with its reason', async () => {
      const { id } = await ask(yoga, 'agent', { text: 'Cancel me' });
      const r = await gql(
        yoga,
        'agent',
        'mutation($id: ID!) { cancelQuestion(id: $id, reason: "no longer needed") { status cancelReason closedAt } }',
        { id },
      );
      expect(r.data.cancelQuestion).toMatchObject({ status: 'CANCELLED', cancelReason: 'no longer needed' });
      expect(r.data.cancelQuestion.closedAt).toMatch(RFC3339_UTC);
    });

    it('prepareExternal reserves an id that askUser then uses', async () => {
      const p = await gql(
        yoga,
        'agent',
        'mutation { prepareExternal(timeoutSeconds: 600) { id callbackUrl expiresAt } }',
      );
      expect(p.errors).toBeUndefined();
      const prepared = p.data.prepareExternal;
      expect(prepared.callbackUrl).toMatch(/^https:\/\/hitl\.example\/api\/interactions\/callback\//);
      expect(prepared.expiresAt).toMatch(RFC3339_UTC);
      const r = await gql(yoga, 'agent', ASK, {
        input: { text: 'Sign here', format: 'EXTERNAL', link: 'https://sign.example/doc/1' },
        hold: 0,
        preparedId: prepared.id,
      });
      expect(r.errors).toBeUndefined();
      expect(r.data.askUser.question).toMatchObject({ id: prepared.id, link: 'https://sign.example/doc/1' });
    });
  });

  describe('error codes', () => {
    it('BAD_USER_INPUT with the input field for an invalid question', async () => {
      const { r } = await ask(yoga, 'agent', { text: '   ' });
      expect(onlyError(r).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'input.text' });
      expect(r.data).toBeNull();
    });

    it('BAD_USER_INPUT with media paths', async () => {
      const { r } = await ask(yoga, 'agent', {
        text: 'Look',
        media: [
          { kind: 'IMAGE', url: 'https://img.example/a.png' },
          { kind: 'IMAGE', url: 'http://img.example/b.png' },
        ],
      });
      expect(onlyError(r).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'input.media[1].url' });
    });

    it('BAD_USER_INPUT with answer.<path> for a FORM answer that misses a required field', async () => {
      const schema = { type: 'object', required: ['email'], properties: { email: { type: 'string' } } };
      const { id } = await ask(yoga, 'agent', { text: 'Contact?', format: 'FORM', schema });
      const r = await gql(yoga, 'ops', ANSWER, { id, answer: {} });
      expect(onlyError(r).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'answer.email' });
      // A JSON literal, with a variable inside it.
      const ok = await gql(
        yoga,
        'ops',
        'mutation($id: ID!, $e: String) { answer(id: $id, answer: {email: $e, tags: [1, true, null]}) { status answer } }',
        { id, e: 'a@b.example' },
      );
      expect(ok.data.answer).toEqual({
        status: 'ANSWERED',
        answer: { email: 'a@b.example', tags: [1, true, null] },
      });
    });

    it('BAD_USER_INPUT for argument ranges: first, holdSeconds, timeoutSeconds', async () => {
      const list = 'query($first: Int) { questions(first: $first) { totalCount } }';
      for (const first of [0, 201]) {
        const r = await gql(yoga, 'ops', list, { first });
        expect(onlyError(r).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'first' });
      }
      expect((await gql(yoga, 'ops', list, { first: 200 })).errors).toBeUndefined();
      expect(
        (await gql(yoga, 'ops', '{ questions(first: 0) { totalCount } }')).errors?.[0]?.extensions,
      ).toEqual({
        code: 'BAD_USER_INPUT',
        field: 'first',
      });

      const hold = await gql(yoga, 'agent', AWAIT, { id: 'x', hold: 3601 });
      expect(onlyError(hold).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'holdSeconds' });
      const { r: timeout } = await ask(yoga, 'agent', { text: 'Soon?', timeoutSeconds: 0 });
      expect(onlyError(timeout).extensions).toEqual({
        code: 'BAD_USER_INPUT',
        field: 'input.timeoutSeconds',
      });
      const prep = await gql(yoga, 'agent', 'mutation { prepareExternal(timeoutSeconds: 31536001) { id } }');
      expect(onlyError(prep).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'timeoutSeconds' });
    });

    it('BAD_USER_INPUT for a malformed document, an unknown field and a wrongly typed variable', async () => {
      const syntax = await gql(yoga, 'ops', '{ viewer { id }');
      expect(onlyError(syntax).extensions?.code).toBe('BAD_USER_INPUT');
      const unknown = await gql(yoga, 'ops', '{ viewer { nope } }');
      expect(onlyError(unknown).extensions?.code).toBe('BAD_USER_INPUT');
      const badVar = await gql(yoga, 'agent', ASK, { input: { text: 'x', schema: [1, 2] } });
      expect(onlyError(badVar).extensions?.code).toBe('BAD_USER_INPUT');
      const badLiteral = await gql(
        yoga,
        'agent',
        'mutation { askUser(input: {text: "x", schema: 3}) { status } }',
      );
      expect(onlyError(badLiteral).extensions?.code).toBe('BAD_USER_INPUT');
    });

    it('BAD_USER_INPUT for a body that is not JSON; PAYLOAD_TOO_LARGE for one over the cap', async () => {
      const notJson = await yoga.fetch('http://test/graphql', {
        method: 'POST',
        headers: headersFor('ops', { 'content-type': 'application/json' }),
        body: '{"query": ',
      });
      const body = (await notJson.json()) as { errors: GqlError[] };
      expect(body.errors[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      const huge = 'x'.repeat(GRAPHQL_MAX_BODY_BYTES + 1);
      const tooBig = await yoga.fetch('http://test/graphql', {
        method: 'POST',
        headers: headersFor('ops', { 'content-type': 'application/json' }),
        body: JSON.stringify({ query: '{ viewer { id } }', variables: { huge } }),
      });
      expect(tooBig.status).toBe(413);
      const big = (await tooBig.json()) as { errors: GqlError[] };
      expect(big.errors[0]?.extensions?.code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('FORBIDDEN for a role without the right (operator asking) and a restricted key naming another audience', async () => {
      const { r: opsAsk } = await ask(yoga, 'ops', { text: 'May I?' });
      expect(onlyError(opsAsk).extensions?.code).toBe('FORBIDDEN');
      const { id: own } = await ask(yoga, 'agent', { text: 'Mine' });
      const agentAnswer = await gql(yoga, 'agent', ANSWER, { id: own, answer: 'y' });
      expect(onlyError(agentAnswer).extensions?.code).toBe('FORBIDDEN');
      const { r: aliceAsk } = await ask(yoga, 'alice', { text: 'For Bob', audience: 'bob' });
      expect(onlyError(aliceAsk).extensions).toEqual({ code: 'FORBIDDEN', field: 'input.audience' });
    });

    it('NOT_FOUND for unknown and invisible questions; question() is null', async () => {
      const missing = '00000000-0000-4000-8000-000000000000';
      expect(onlyError(await gql(yoga, 'ops', ANSWER, { id: missing, answer: 'x' })).extensions?.code).toBe(
        'NOT_FOUND',
      );
      expect(onlyError(await gql(yoga, 'agent', AWAIT, { id: missing, hold: 0 })).extensions?.code).toBe(
        'NOT_FOUND',
      );
      const { id } = await ask(yoga, 'agent', { text: 'Mine only' });
      const other = await gql(yoga, 'agent2', AWAIT, { id, hold: 0 });
      expect(onlyError(other).extensions?.code).toBe('NOT_FOUND');
      const cancel = await gql(yoga, 'agent2', 'mutation($id: ID!) { cancelQuestion(id: $id) { id } }', {
        id,
      });
      expect(onlyError(cancel).extensions?.code).toBe('NOT_FOUND');
      // An agent key answering: NOT_FOUND for questions it cannot see, never FORBIDDEN.
      for (const target of [id, missing, 'x']) {
        const agentAnswer = await gql(yoga, 'agent2', ANSWER, { id: target, answer: 'y' });
        expect(onlyError(agentAnswer).extensions?.code).toBe('NOT_FOUND');
      }
      expect((await gql(yoga, 'agent2', QUESTION, { id })).data).toEqual({ question: null });
      expect((await gql(yoga, 'alice', QUESTION, { id })).data).toEqual({ question: null });
    });

    it('ALREADY_ANSWERED for a second answer', async () => {
      const { id } = await ask(yoga, 'agent', { text: 'Once?' });
      expect((await gql(yoga, 'ops', ANSWER, { id, answer: 'first' })).errors).toBeUndefined();
      const second = await gql(yoga, 'admin', ANSWER, { id, answer: 'second' });
      expect(onlyError(second).extensions?.code).toBe('ALREADY_ANSWERED');
    });

    it('QUESTION_CLOSED for an answer after a cancel', async () => {
      const { id } = await ask(yoga, 'agent', { text: 'Too late?' });
      await gql(yoga, 'ops', 'mutation($id: ID!) { cancelQuestion(id: $id) { id } }', { id });
      const late = await gql(yoga, 'ops', ANSWER, { id, answer: 'now' });
      expect(onlyError(late).extensions?.code).toBe('QUESTION_CLOSED');
    });

    it('WRONG_DOOR for an in-client answer to an EXTERNAL question', async () => {
      const { id, r } = await ask(yoga, 'agent', {
        text: 'Sign it',
        format: 'EXTERNAL',
        link: 'https://sign.example/?cb={callback_url}',
      });
      expect(r.errors).toBeUndefined();
      const callbackUrl = r.data.askUser.callbackUrl as string;
      expect(callbackUrl).toMatch(/^https:\/\/hitl\.example\//);
      expect(r.data.askUser.question).toMatchObject({
        link: `https://sign.example/?cb=${callbackUrl}`,
        serverVerified: false,
      });
      const wrong = await gql(yoga, 'ops', ANSWER, { id, answer: { ok: true } });
      expect(onlyError(wrong).extensions?.code).toBe('WRONG_DOOR');
    });

    it('INTERNAL for anything unexpected: a generic message with an id, the detail only in the log', async () => {
      const broken: Interactions = {
        ...engine,
        get: async () => {
          throw new TypeError('store exploded at /srv/secret/path');
        },
      };
      const captured = capturingLogger();
      const brokenYoga = createGraphQLServer({ engine: broken, authenticator, logger: captured.logger });
      const r = await gql(brokenYoga, 'ops', QUESTION, { id: 'abc' });
      const error = onlyError(r);
      expect(error.extensions?.code).toBe('INTERNAL');
      expect(error.message).toMatch(/^Internal error \(id [0-9a-f-]{36}\)$/);
      const text = JSON.stringify(r);
      expect(text).not.toContain('exploded');
      expect(text).not.toContain('TypeError');
      expect(text).not.toContain('/srv/secret');
      expect(text).not.toContain('    at ');
      const errorId = /id ([0-9a-f-]{36})/.exec(error.message)![1];
      const logged = captured.lines.find((l) => l.errorId === errorId);
      expect(logged?.level).toBe(50);
      expect(JSON.stringify(logged)).toContain('store exploded');
      expect(r.status).toBe(200);
    });

    it('INTERNAL errors are not logged for expected domain errors', async () => {
      const before = lines.filter((l) => (l.level as number) >= 50).length;
      await gql(yoga, 'ops', ANSWER, { id: 'nope', answer: 'x' });
      expect(lines.filter((l) => (l.level as number) >= 50).length).toBe(before);
    });
  });

  describe('listing', () => {
    it('a restricted principal sees only its audience, with an honest totalCount and working cursors', async () => {
      const group = `g-${Date.now()}`;
      await ask(yoga, 'agent', { text: 'For Alice 1', audience: 'alice', groupId: group });
      await ask(yoga, 'agent', { text: 'Unaddressed', groupId: group });
      await ask(yoga, 'agent', { text: 'For Alice 2', audience: 'alice', groupId: group });
      await ask(yoga, 'agent', { text: 'For Bob', audience: 'bob', groupId: group });
      const list = /* GraphQL */ `
        query($filter: QuestionFilter, $first: Int, $after: String) {
          questions(filter: $filter, first: $first, after: $after) {
            totalCount
            pageInfo { hasNextPage endCursor }
            edges { cursor node { text audience } }
          }
        }
      `;
      const page1 = await gql(yoga, 'alice', list, { filter: { groupId: group }, first: 1 });
      expect(page1.data.questions).toMatchObject({ totalCount: 2, pageInfo: { hasNextPage: true } });
      expect(page1.data.questions.edges).toHaveLength(1);
      expect(page1.data.questions.edges[0].cursor).toBe(page1.data.questions.pageInfo.endCursor);
      const page2 = await gql(yoga, 'alice', list, {
        filter: { groupId: group },
        first: 1,
        after: page1.data.questions.pageInfo.endCursor,
      });
      expect(page2.data.questions).toMatchObject({ totalCount: 2, pageInfo: { hasNextPage: false } });
      const seen = [...page1.data.questions.edges, ...page2.data.questions.edges].map(
        (e: { node: { text: string; audience: string } }) => e.node,
      );
      expect(seen.map((n) => n.text).sort()).toEqual(['For Alice 1', 'For Alice 2']);
      expect(seen.every((n) => n.audience === 'alice')).toBe(true);

      const all = await gql(yoga, 'ops', list, { filter: { groupId: group } });
      expect(all.data.questions.totalCount).toBe(4);
      const edges = all.data.questions.edges as { cursor: string; node: { text: string } }[];
      const afterSecond = await gql(yoga, 'ops', list, {
        filter: { groupId: group },
        after: edges[1]!.cursor,
      });
      expect(afterSecond.data.questions.edges.map((e: { node: { text: string } }) => e.node.text)).toEqual(
        edges.slice(2).map((e) => e.node.text),
      );
      const pending = await gql(yoga, 'ops', list, { filter: { groupId: group, status: ['ANSWERED'] } });
      expect(pending.data.questions.totalCount).toBe(0);
    });

    it('a bad cursor is BAD_USER_INPUT at after', async () => {
      const r = await gql(yoga, 'ops', '{ questions(after: "garbage!") { totalCount } }');
      expect(onlyError(r).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'after' });
    });
  });

  describe('subscriptions over SSE', () => {
    it('pendingQuestions sends SNAPSHOT first, then ASKED', async () => {
      const stream = await subscribe(
        yoga,
        'alice',
        'subscription { pendingQuestions { type questions { id text audience } } }',
      );
      try {
        const first = await stream.next();
        expect(first?.event).toBe('next');
        const snapshot = JSON.parse(first!.data).data.pendingQuestions;
        expect(snapshot.type).toBe('SNAPSHOT');
        expect(snapshot.questions.every((q: { audience: string }) => q.audience === 'alice')).toBe(true);

        const { id } = await ask(yoga, 'agent', { text: 'Live for Alice', audience: 'alice' });
        const second = await stream.next();
        expect(JSON.parse(second!.data).data.pendingQuestions).toEqual({
          type: 'ASKED',
          questions: [{ id, text: 'Live for Alice', audience: 'alice' }],
        });
      } finally {
        await stream.cancel();
      }
    });

    it('one live event, executed once per shared result, reaches each subscriber as its own document and visibility give it', async () => {
      const wide = 'subscription { pendingQuestions { type questions { id text audience } } }';
      const narrow =
        'subscription Narrow { feed: pendingQuestions { kind: type questions { askedBy } more } }';
      const subs = {
        ops: await subscribe(yoga, 'ops', wide),
        ops2: await subscribe(yoga, 'ops', wide),
        opsNarrow: await subscribe(yoga, 'ops', narrow),
        alice: await subscribe(yoga, 'alice', wide),
        bob: await subscribe(yoga, 'bob', wide),
        agent2: await subscribe(yoga, 'agent2', wide),
      };
      const streams = Object.values(subs);
      try {
        for (const s of streams) expect((await s.next())?.data).toContain('SNAPSHOT');
        const forAlice = await ask(yoga, 'agent', { text: 'Shared for Alice', audience: 'alice' });
        const forBob = await ask(yoga, 'agent2', { text: 'Shared for Bob', audience: 'bob' });
        const next = async (s: (typeof streams)[number]) => JSON.parse((await s.next())!.data).data;
        const wideOf = (id: string, text: string, audience: string) => ({
          pendingQuestions: { type: 'ASKED', questions: [{ id, text, audience }] },
        });
        const aliceEvent = wideOf(forAlice.id, 'Shared for Alice', 'alice');
        const bobEvent = wideOf(forBob.id, 'Shared for Bob', 'bob');
        expect(await next(subs.ops)).toEqual(aliceEvent);
        expect(await next(subs.ops)).toEqual(bobEvent);
        expect(await next(subs.ops2)).toEqual(aliceEvent);
        expect(await next(subs.opsNarrow)).toEqual({
          feed: { kind: 'ASKED', questions: [{ askedBy: 'agent' }], more: false },
        });
        // Restricted keys and agents see only their own: each one's next event is its question.
        expect(await next(subs.alice)).toEqual(aliceEvent);
        expect(await next(subs.bob)).toEqual(bobEvent);
        expect(await next(subs.agent2)).toEqual(bobEvent);
      } finally {
        await Promise.all(streams.map((s) => s.cancel()));
      }
    });

    it('questionResolved sends one event, then completes', async () => {
      const { id } = await ask(yoga, 'agent', { text: 'Resolve me', format: 'CONFIRM' });
      const stream = await subscribe(
        yoga,
        'agent',
        'subscription($id: ID!) { questionResolved(id: $id) { status answer question { id status } } }',
        { id },
      );
      try {
        // Answered before or after the subscription registers its waiter: either way one event.
        const answered = await gql(yoga, 'ops', ANSWER, { id, answer: true });
        expect(answered.errors).toBeUndefined();
        const event = await stream.next();
        expect(event?.event).toBe('next');
        expect(JSON.parse(event!.data)).toEqual({
          data: {
            questionResolved: { status: 'ANSWERED', answer: true, question: { id, status: 'ANSWERED' } },
          },
        });
        expect((await stream.next())?.event).toBe('complete');
        expect(await stream.next()).toBeNull();
      } finally {
        await stream.cancel();
      }
    });

    it('questionResolved for an invisible question ends with NOT_FOUND', async () => {
      const { id } = await ask(yoga, 'agent', { text: 'Not yours' });
      const stream = await subscribe(
        yoga,
        'agent2',
        'subscription($id: ID!) { questionResolved(id: $id) { status } }',
        {
          id,
        },
      );
      const event = await stream.next();
      expect(event?.event).toBe('next');
      const body = JSON.parse(event!.data) as { errors: GqlError[] };
      expect(body.errors[0]?.extensions?.code).toBe('NOT_FOUND');
      expect((await stream.next())?.event).toBe('complete');
    });

    it('/graphql/stream reserves a single connection with PUT only when enabled (off by default)', async () => {
      const reserve = { method: 'PUT', headers: headersFor('agent') };
      const off = await yoga.fetch('http://test/graphql/stream', reserve);
      expect(off.status).toBe(404);
      const on = createGraphQLServer({
        engine,
        authenticator,
        logger: pino({ level: 'silent' }),
        singleConnectionStream: true,
      });
      const res = await on.fetch('http://test/graphql/stream', reserve);
      expect(res.status).toBe(201);
      expect((await res.text()).length).toBeGreaterThan(10);
    });
  });
});

describe('DateTime', () => {
  it('serializes epoch milliseconds and Dates as RFC 3339 in UTC', () => {
    expect(serializeDateTime(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(serializeDateTime(new Date(Date.UTC(2025, 0, 31, 12)))).toBe('2025-01-31T12:00:00.000Z');
    expect(() => serializeDateTime('yesterday')).toThrow();
    expect(() => serializeDateTime(Number.NaN)).toThrow();
  });

  it('parses RFC 3339 date-times with an offset, and nothing else', () => {
    expect(parseDateTime('2025-01-31T12:00:00Z').toISOString()).toBe('2025-01-31T12:00:00.000Z');
    expect(parseDateTime('2024-02-29T01:30:00.25+01:30').toISOString()).toBe('2024-02-29T00:00:00.250Z');
    for (const bad of [
      '2025-02-29T00:00:00Z',
      '2025-01-31T24:00:00Z',
      '2025-01-31T12:00:00',
      '2025-01-31',
      42,
    ]) {
      expect(() => parseDateTime(bad), String(bad)).toThrow();
    }
  });
});

describe('GraphQL with engine limits and settings', () => {
  let sets: EngineSet[] = [];

  afterEach(async () => {
    for (const s of sets) await s.close();
    sets = [];
  });

  async function yogaWith(settings: Parameters<typeof startEngines>[2]): Promise<GraphQLServer> {
    const s = await startEngines('memory', 1, settings);
    sets.push(s);
    return createGraphQLServer({ engine: s.engines[0]!, authenticator, logger: pino({ level: 'silent' }) });
  }

  it('LIMIT_EXCEEDED when INTERACTIONS_MAX_PENDING is reached', async () => {
    const y = await yogaWith({ maxPending: 1 });
    expect((await ask(y, 'agent', { text: 'One' })).r.errors).toBeUndefined();
    const { r } = await ask(y, 'agent', { text: 'Two' });
    expect(onlyError(r).extensions?.code).toBe('LIMIT_EXCEEDED');
  });

  it('NOT_CONFIGURED for an EXTERNAL question without a public base URL', async () => {
    const y = await yogaWith({ publicBaseUrl: null });
    const { r } = await ask(y, 'agent', {
      text: 'Sign it',
      format: 'EXTERNAL',
      link: 'https://sign.example/?cb={callback_url}',
    });
    expect(onlyError(r).extensions?.code).toBe('NOT_CONFIGURED');
    const p = await gql(y, 'agent', 'mutation { prepareExternal { id } }');
    expect(onlyError(p).extensions?.code).toBe('NOT_CONFIGURED');
  });
});
