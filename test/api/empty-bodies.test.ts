// Every route that takes a body, sent an empty one and one under a Content-Type it does not
// read, over a real socket: each is answered at once with a clear 4xx (or, where the contract
// gives an empty body a meaning, that meaning), never left hanging. A POST /graphql with
// `Content-Type: application/json` and no body used to wait forever (graphql-http audit A5BF).
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadManifestSettings } from '../../src/app/config.ts';
import { manifestDir } from '../support/channel-server.ts';
import { type HttpResponse, httpRequest } from '../support/processes.ts';
import { auth, KEYS, startServer, type TestServer } from '../support/server.ts';

const SIGNING = 'empty-bodies-signing-secret';

let t: TestServer;
let url: string;
beforeAll(async () => {
  const manifest = await loadManifestSettings(
    { T_TOKEN: 'xoxb-x', T_SIGNING: SIGNING },
    manifestDir(
      'channels:\n  ops-slack:\n    plugin: slack\n    config: { botTokenEnv: T_TOKEN, signingSecretEnv: T_SIGNING, defaultRecipient: C0123456789, apiUrl: "http://127.0.0.1:9/" }\n',
    ),
  );
  t = await startServer({ store: 'memory', plugins: { manifest } });
  url = await t.listen();
});
afterAll(async () => {
  await t.close();
});

/**
 * One request that must be answered promptly: a hang fails here, after 5 s, rather than at the
 * test's own timeout. (A bound on a failure, not a timing assertion: a passing run never waits.)
 */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<HttpResponse> {
  return httpRequest(`${url}${path}`, { method, headers, body, signal: AbortSignal.timeout(5000) });
}

const JSON_TYPE = { 'content-type': 'application/json' };

describe('POST /graphql', () => {
  it('an empty JSON body is a 400 with a GraphQL error, under either Accept', async () => {
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      const r = await send('POST', '/graphql', { ...auth('agent'), ...JSON_TYPE, accept }, '');
      expect(r.status, accept).toBe(400);
      const body = (await r.json()) as { errors: { extensions: { code: string } }[] };
      expect(body.errors[0]!.extensions.code).toBe('BAD_USER_INPUT');
    }
  });

  it('an empty body with no Content-Type, or a type it does not read, is a 415 that says what to send', async () => {
    for (const headers of [{}, { 'content-type': 'text/plain' }] as Record<string, string>[]) {
      const r = await send(
        'POST',
        '/graphql',
        { ...auth('agent'), accept: 'application/json', ...headers },
        '',
      );
      expect(r.status).toBe(415);
      expect(await r.json()).toEqual({
        errors: [
          {
            message: 'the request body must be sent as Content-Type: application/json',
            extensions: { code: 'BAD_USER_INPUT' },
          },
        ],
      });
    }
    const typed = await send(
      'POST',
      '/graphql',
      { ...auth('agent'), 'content-type': 'text/plain', accept: 'application/json' },
      '{"query":"{ __typename }"}',
    );
    expect(typed.status).toBe(415);
  });

  it('an empty body asks nothing: nothing was stored', async () => {
    await send('POST', '/graphql', { ...auth('agent'), ...JSON_TYPE }, '');
    expect(await t.server.store.countPending()).toBe(0);
  });
});

describe('/graphql/stream (graphql-sse single connection)', () => {
  it('PUT reserves a stream whatever its (empty) body says', async () => {
    const r = await send('PUT', '/graphql/stream', { ...auth('ops'), ...JSON_TYPE }, '');
    expect(r.status).toBe(201);
    expect((await r.text()).trim()).not.toBe('');
  });

  it('POST of an operation with an empty body is a 400 at once', async () => {
    const reserved = await send('PUT', '/graphql/stream', auth('ops'));
    const token = (await reserved.text()).trim();
    const r = await send(
      'POST',
      '/graphql/stream',
      { ...auth('ops'), ...JSON_TYPE, 'x-graphql-event-stream-token': token },
      '',
    );
    expect(r.status).toBe(400);
    await r.text();
  });
});

describe('POST /mcp', () => {
  const MCP = { accept: 'application/json, text/event-stream', authorization: `Bearer ${KEYS.agent}` };

  it('an empty JSON body is a 400 BAD_USER_INPUT', async () => {
    const r = await send('POST', '/mcp', { ...MCP, ...JSON_TYPE }, '');
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ code: 'BAD_USER_INPUT' });
  });

  it('no Content-Type, or another type, is a 415 in the REST error shape', async () => {
    for (const headers of [{}, { 'content-type': 'text/plain' }] as Record<string, string>[]) {
      const r = await send('POST', '/mcp', { ...MCP, ...headers }, '');
      expect(r.status).toBe(415);
      expect(await r.json()).toEqual({
        error: 'the request body must be sent as Content-Type: application/json',
        code: 'BAD_USER_INPUT',
      });
    }
  });
});

describe('POST /api/interactions/{id}/answer', () => {
  it('an empty body is a 400 that names the expected body, whatever the Content-Type', async () => {
    const asked = await t.server.engine.ask(
      { id: 'agent', roles: ['agent'], restricted: false },
      { text: 'Name?' },
      { holdSeconds: 0 },
    );
    const path = `/api/interactions/${asked.question.id}/answer`;
    for (const headers of [JSON_TYPE, {}, { 'content-type': 'text/plain' }]) {
      const r = await send('POST', path, { ...auth('ops'), ...headers }, '');
      expect(r.status).toBe(400);
      expect(await r.json()).toEqual({
        error: 'the body must be a JSON object {"answer": …}',
        code: 'BAD_USER_INPUT',
      });
    }
    expect((await t.server.store.get(asked.question.id))?.status).toBe('PENDING');
    // The body is read as JSON under any Content-Type (API.md §6): a text/plain one answers.
    const answered = await send(
      'POST',
      path,
      { ...auth('ops'), 'content-type': 'text/plain' },
      '{"answer":"Ana"}',
    );
    expect(answered.status).toBe(200);
  });
});

describe('POST /api/interactions/callback/{ticket}', () => {
  it('an empty body means the query parameters; none against a schema is a 400, and the question waits', async () => {
    const asked = await t.server.engine.ask(
      { id: 'agent', roles: ['agent'], restricted: false },
      {
        text: 'Pay?',
        format: 'EXTERNAL',
        link: 'https://pay.example/?cb={callback_url}',
        schema: { type: 'object', required: ['paid'], properties: { paid: { type: 'boolean' } } },
      },
      { holdSeconds: 0 },
    );
    const path = new URL(asked.callbackUrl!).pathname;
    for (const headers of [JSON_TYPE, {}, { 'content-type': 'text/plain' }]) {
      const r = await send('POST', path, headers, '');
      expect(r.status).toBe(400);
      expect(await r.json()).toMatchObject({ code: 'BAD_USER_INPUT' });
    }
    expect((await t.server.store.get(asked.question.id))?.status).toBe('PENDING');
  });
});

describe('POST /api/interactions/channels/{name}', () => {
  const path = '/api/interactions/channels/ops-slack';
  const signed = (body: string): Record<string, string> => {
    const ts = Math.floor(Date.now() / 1000);
    const sig = createHmac('sha256', SIGNING).update(`v0:${ts}:${body}`).digest('hex');
    return { 'x-slack-request-timestamp': String(ts), 'x-slack-signature': `v0=${sig}` };
  };

  it('an empty unsigned body is the 401 of a missing signature', async () => {
    const r = await send('POST', path, JSON_TYPE, '');
    expect(r.status).toBe(401);
    expect(await r.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('an empty body correctly signed, under any Content-Type, is a 400: no event', async () => {
    for (const headers of [JSON_TYPE, {}, { 'content-type': 'application/x-www-form-urlencoded' }]) {
      const r = await send('POST', path, { ...headers, ...signed('') }, '');
      expect(r.status).toBe(400);
      await r.text();
    }
  });
});
