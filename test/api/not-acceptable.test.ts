// Refusals for a request's media types that the libraries behind a door would answer in their own
// shapes (the MCP SDK a JSON-RPC error with a null id, graphql-sse an empty body): each is the REST
// error of API.md §3, `{"error", "code"}`, with the status that names the problem.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRequest } from '../support/processes.ts';
import { auth, KEYS, startServer, type TestServer } from '../support/server.ts';

let t: TestServer;
let url: string;
beforeAll(async () => {
  t = await startServer({ store: 'memory' });
  url = await t.listen();
});
afterAll(async () => {
  await t.close();
});

const NOT_JSON = {
  error: 'the request body must be sent as Content-Type: application/json',
  code: 'BAD_USER_INPUT',
};

describe('POST /mcp with a body that is not JSON: 415', () => {
  const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  it.each([
    ['2025', { 'mcp-protocol-version': '2025-11-25' }],
    ['2026-07-28', { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' }],
  ])('in the %s protocol, under text/plain or with no type', async (_era, version) => {
    for (const type of [{ 'content-type': 'text/plain' }, {}] as Record<string, string>[]) {
      const r = await httpRequest(`${url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${KEYS.agent}`,
          accept: 'application/json, text/event-stream',
          ...version,
          ...type,
        },
        body: call,
      });
      const text = await r.text();
      expect(r.status, `${JSON.stringify(type)} ${text}`).toBe(415);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(JSON.parse(text)).toEqual(NOT_JSON);
    }
  });
});

describe('/graphql/stream with an Accept graphql-sse does not answer: 406', () => {
  it('a stream reservation (PUT) that does not accept text/plain', async () => {
    const r = await httpRequest(`${url}/graphql/stream`, {
      method: 'PUT',
      headers: { ...auth('ops'), accept: 'application/json' },
    });
    expect(r.status).toBe(406);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await r.json()).toEqual({
      error: 'a stream reservation is answered as text/plain: send Accept: text/plain',
      code: 'BAD_USER_INPUT',
    });
  });

  it('an operation on a reserved stream that does not accept JSON', async () => {
    const reserved = await httpRequest(`${url}/graphql/stream`, { method: 'PUT', headers: auth('ops') });
    expect(reserved.status).toBe(201);
    const token = (await reserved.text()).trim();
    const r = await httpRequest(`${url}/graphql/stream`, {
      method: 'POST',
      headers: {
        ...auth('ops'),
        'content-type': 'application/json',
        accept: 'text/html',
        'x-graphql-event-stream-token': token,
      },
      body: JSON.stringify({ query: '{ __typename }', extensions: { operationId: 'op1' } }),
    });
    expect(r.status).toBe(406);
    expect(await r.json()).toEqual({
      error: 'send Accept: application/json for an operation, or text/event-stream for the stream',
      code: 'BAD_USER_INPUT',
    });
  });
});
