// GraphQL cost limits (docs/API.md §4): tokens, aliases, depth, directives and cost, each at
// its limit and one past it, through the real HTTP server. A refusal is a clean 400 (or a 200
// with errors, per GraphQL over HTTP) carrying BAD_USER_INPUT, never INTERNAL.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../../src/graphql/limits.ts';
import { GRAPHQL_MAX_BODY_BYTES } from '../../src/graphql/yoga.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';

interface GqlError {
  message: string;
  extensions?: { code?: string; field?: string };
}

describe('GraphQL cost limits', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer({ store: 'memory' });
  });
  afterAll(async () => {
    await t.close();
  });

  async function post(query: string, accept = 'application/json') {
    const r = await t.server.inject({
      method: 'POST',
      url: '/graphql',
      headers: { ...auth('ops'), 'content-type': 'application/json', accept },
      payload: JSON.stringify({ query }),
    });
    const body = r.json() as { data?: unknown; errors?: GqlError[] };
    return { status: r.statusCode, body, errors: body.errors ?? [] };
  }

  /** Refused by a limit: one BAD_USER_INPUT error whose message names it. */
  async function expectRefused(query: string, limit: RegExp) {
    const r = await post(query);
    expect(r.errors, JSON.stringify(r.body).slice(0, 300)).toHaveLength(1);
    expect(r.errors[0]!.extensions?.code).toBe('BAD_USER_INPUT');
    expect(r.errors[0]!.message).toMatch(limit);
    expect(r.body.data ?? null).toBeNull();
    return r;
  }

  /** Not refused by a limit: no error mentions one. */
  async function expectWithinLimits(query: string) {
    const r = await post(query);
    for (const e of r.errors) expect(e.message).not.toMatch(/limit of/);
    return r;
  }

  it(`accepts ${GRAPHQL_LIMITS.tokens} tokens and refuses one more`, async () => {
    // 16 tokens around n list items (a list, not repeated fields, which graphql-js's own
    // overlap budget would refuse first).
    const doc = (tokens: number) =>
      `{ questions(filter: { status: [${' PENDING'.repeat(tokens - 16)} ] }) { totalCount } }`;
    const ok = await expectWithinLimits(doc(GRAPHQL_LIMITS.tokens));
    expect(ok.errors).toEqual([]);
    expect(ok.body.data).toEqual({ questions: { totalCount: 0 } });
    await expectRefused(doc(GRAPHQL_LIMITS.tokens + 1), /Token limit of 1000 exceeded/);
  });

  it('answers a document nested 5,000 deep with a clean 400 BAD_USER_INPUT, not a stack overflow', async () => {
    const selections = `{${'a{'.repeat(5000)}b${'}'.repeat(5000)}}`;
    const lists = `{ questions(after: ${'['.repeat(5000)}${']'.repeat(5000)}) { totalCount } }`;
    for (const doc of [selections, lists]) {
      const r = await expectRefused(doc, /Token limit/);
      expect(r.status).toBe(200); // GraphQL over HTTP: a request error under application/json
      const strict = await post(doc, 'application/graphql-response+json');
      expect(strict.status).toBe(400);
      expect(strict.errors.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    }
  });

  it(`accepts ${GRAPHQL_LIMITS.aliases} aliases and refuses one more; 10,000 and 2,000 aliased pages are refused`, async () => {
    const aliased = (n: number, field = 'viewer { id }') =>
      `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ')} }`;
    const ok = await expectWithinLimits(aliased(GRAPHQL_LIMITS.aliases));
    expect(ok.errors).toEqual([]);
    expect(Object.keys(ok.body.data as object)).toHaveLength(GRAPHQL_LIMITS.aliases);
    await expectRefused(aliased(GRAPHQL_LIMITS.aliases + 1), /Aliases limit of 15 exceeded, found 16/);
    await expectRefused(aliased(10_000), /limit/);
    await expectRefused(aliased(2_000, 'questions(first: 1) { totalCount }'), /limit/);
  });

  it(`accepts a depth of ${GRAPHQL_LIMITS.depth} and refuses one more`, async () => {
    // __type is introspection that Armor counts (only __schema is exempt), and nests freely.
    const deep = (depth: number) =>
      `{ __type(name: "Query") { fields { type { ${'ofType { '.repeat(depth - 4)}name${' }'.repeat(depth - 4)} } } } }`;
    const ok = await expectWithinLimits(deep(GRAPHQL_LIMITS.depth));
    expect(ok.errors).toEqual([]);
    await expectRefused(deep(GRAPHQL_LIMITS.depth + 1), /depth limit of 10 exceeded, found 11/);
  });

  it(`accepts ${GRAPHQL_LIMITS.directives} directives and refuses one more`, async () => {
    // Aliases of __typename are not counted as aliases.
    const directives = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `t${i}: __typename @include(if: true)`).join(' ')} }`;
    const ok = await expectWithinLimits(directives(GRAPHQL_LIMITS.directives));
    expect(ok.errors).toEqual([]);
    await expectRefused(
      directives(GRAPHQL_LIMITS.directives + 1),
      /Directives limit of 50 exceeded, found 51/,
    );
  });

  it(`accepts a cost of ${GRAPHQL_LIMITS.cost} and refuses more; a full page of 200 questions fits`, async () => {
    // questions { totalCount } costs (2 + 1.5 × 1) × first = 3.5 × first.
    const atLimit = await expectWithinLimits(`{ questions(first: 20000) { totalCount } }`);
    // Past the cost check, the page size is refused on its own terms.
    expect(atLimit.errors[0]?.extensions?.field).toBe('first');
    await expectRefused(
      `{ questions(first: 20001) { totalCount } }`,
      /Cost limit of 70000 exceeded, found 70003.5/,
    );
    const page = await expectWithinLimits(
      `{ questions(first: 200) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node {
        id text format options schema link serverVerified media { kind url caption } groupId audience channel
        recipient sensitive status askedBy createdAt timeoutAt answer answeredBy answeredAt closedAt cancelReason } } } }`,
    );
    expect(page.errors).toEqual([]);
  });

  it('refuses a body over the cap with 413 PAYLOAD_TOO_LARGE, with a content-length or streamed in chunks', async () => {
    // Yoga's own cap is off behind the route (bodiesBoundedUpstream): the route's is the one.
    const url = await t.listen();
    const body = JSON.stringify({
      query: '{ viewer { id } }',
      variables: { x: 'x'.repeat(GRAPHQL_MAX_BODY_BYTES) },
    });
    for (const chunked of [false, true]) {
      const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const headers: Record<string, string> = { ...auth('ops'), 'content-type': 'application/json' };
        if (!chunked) headers['content-length'] = String(Buffer.byteLength(body));
        const req = http.request(`${url}/graphql`, { method: 'POST', headers }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            text += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        // The server may answer and close before the whole body is written.
        req.on('error', reject);
        if (chunked) {
          for (let at = 0; at < body.length; at += 256 * 1024) req.write(body.slice(at, at + 256 * 1024));
          req.end();
        } else req.end(body);
      });
      expect(status, `chunked: ${chunked}`).toBe(413);
      expect(JSON.parse(text).code ?? JSON.parse(text).errors?.[0]?.extensions?.code).toBe(
        'PAYLOAD_TOO_LARGE',
      );
    }
  });
});
