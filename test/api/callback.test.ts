// The public callback doors through the real HTTP server (API.md §7, §8).
import { createHash, createHmac } from 'node:crypto';
import net from 'node:net';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { QuestionRecord } from '../../src/domain/question.ts';
import type { ChannelPort } from '../../src/engine/ports.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';

const SECRET = 'cb-test-hmac-secret-123456';
const pager: ChannelPort & { sent: QuestionRecord[] } = {
  sent: [],
  names: () => new Set(['pager']),
  async deliver(q) {
    pager.sent.push(q);
  },
};

const sign = (body: string): string => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
const ticketOf = (url: string): string => url.split('/').at(-1)!;
const HEADERS_THAT_MATTER = [
  'content-type',
  'cache-control',
  'x-content-type-options',
  'referrer-policy',
  'x-frame-options',
  'content-security-policy',
];

for (const store of ['memory', 'redis'] as const) {
  describe(`callback doors (${store})`, () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startServer({
        store,
        env: {
          CB_TEST_SECRET: SECRET,
          INTERACTIONS_VERIFIER_SECRETS: 'CB_TEST_SECRET,CB_TEST_UNSET_SECRET',
          INTERACTIONS_RETENTION_SECONDS: '1',
          INTERACTIONS_RATE_LIMIT_PER_MINUTE: '100000',
        },
        plugins: { channels: pager },
      });
    });
    afterAll(async () => {
      await t.close();
    });

    async function gql(
      query: string,
      variables: Record<string, unknown> = {},
      who: 'agent' | 'ops' = 'agent',
    ) {
      const r = await t.server.inject({
        method: 'POST',
        url: '/graphql',
        headers: { ...auth(who), 'content-type': 'application/json' },
        payload: { query, variables },
      });
      const body = r.json();
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      return body.data;
    }

    async function ask(input: Record<string, unknown>): Promise<{ id: string; ticket: string }> {
      const d = await gql(
        'mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { question { id } callbackUrl } }',
        { i: input },
      );
      return { id: d.askUser.question.id, ticket: ticketOf(d.askUser.callbackUrl) };
    }
    const external = (extra: Record<string, unknown> = {}) =>
      ask({ text: 'Sign', format: 'EXTERNAL', link: 'https://sign.example/?cb={callback_url}', ...extra });
    const status = async (id: string) =>
      (await gql(`{ question(id: "${id}") { status answer } }`, {}, 'ops')).question;

    const post = (ticket: string, body = '', headers: Record<string, string> = {}, query = '') =>
      t.server.inject({
        method: 'POST',
        url: `/api/interactions/callback/${ticket}${query}`,
        headers: { 'content-type': 'application/json', ...headers },
        payload: body,
      });

    it('unknown, expired, pruned and not-yet-asked tickets give byte-identical 404s', async () => {
      const prepared = await gql('mutation { prepareExternal(timeoutSeconds: 60) { callbackUrl } }');
      const expired = await external({ timeoutSeconds: 1 });
      await gql(`mutation { cancelQuestion(id: "${expired.id}") { id } }`);
      // retention is 1 s here: wait until the closed question's ticket is forgotten
      await expect
        .poll(async () => (await post(expired.ticket, '{}')).statusCode, { timeout: 5000, interval: 100 })
        .toBe(404);
      const tickets = [
        'A'.repeat(43),
        ticketOf(prepared.prepareExternal.callbackUrl),
        expired.ticket,
        'short',
      ];
      const responses = await Promise.all(tickets.map((tk) => post(tk, '{"x":1}')));
      const first = responses[0]!;
      expect(first.statusCode).toBe(404);
      expect(first.body).toBe('{"error":"not found","code":"NOT_FOUND"}');
      for (const r of responses) {
        expect(r.statusCode).toBe(404);
        expect(r.body).toBe(first.body);
        for (const h of HEADERS_THAT_MATTER) expect(r.headers[h], h).toBe(first.headers[h]);
      }
      const pages = await Promise.all(
        tickets.map((tk) => t.server.inject({ method: 'GET', url: `/api/interactions/callback/${tk}` })),
      );
      for (const p of pages) {
        expect(p.statusCode).toBe(404);
        expect(p.body).toBe(pages[0]!.body);
      }
    });

    it('records a JSON object body; a provider retry gets already_answered', async () => {
      const q = await external();
      const r = await post(q.ticket, '{"signed":true}');
      expect([r.statusCode, r.body]).toEqual([200, '{"data":{"status":"answered"}}']);
      expect(await status(q.id)).toEqual({ status: 'ANSWERED', answer: { signed: true } });
      const again = await post(q.ticket, '{"signed":false}');
      expect([again.statusCode, again.body]).toEqual([200, '{"data":{"status":"already_answered"}}']);
      for (const res of [r, again])
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    });

    it('an empty body takes the query parameters; an invalid payload is 400 and stays pending', async () => {
      const q = await external({ schema: { type: 'object', required: ['approved'] } });
      const bad = await post(q.ticket, '[1]');
      expect([bad.statusCode, bad.json().code]).toEqual([400, 'BAD_USER_INPUT']);
      const deep = await post(q.ticket, `${'{"a":'.repeat(70)}1${'}'.repeat(70)}`);
      expect(deep.statusCode).toBe(400);
      const missing = await post(q.ticket, '{}');
      expect([missing.statusCode, missing.json().field]).toEqual([400, 'answer.approved']);
      expect((await status(q.id)).status).toBe('PENDING');
      const ok = await post(q.ticket, '', {}, '?approved=yes&tag=a&tag=b');
      expect(ok.statusCode).toBe(200);
      expect((await status(q.id)).answer).toEqual({ approved: 'yes', tag: ['a', 'b'] });
    });

    it('query parameters are coerced by the schema: ?signed=true satisfies const true', async () => {
      const q = await external({
        schema: {
          type: 'object',
          properties: {
            signed: { const: true },
            pages: { type: 'integer' },
            score: { type: 'number' },
            late: { type: 'boolean' },
            tags: { type: 'array', items: { type: 'integer' } },
            note: { type: 'string' },
          },
          required: ['signed'],
        },
      });
      // A value the schema's type cannot take stays text and is refused by the schema.
      const wrong = await post(q.ticket, '', {}, '?signed=true&pages=two');
      expect([wrong.statusCode, wrong.json().field]).toEqual([400, 'answer.pages']);
      const unsigned = await post(q.ticket, '', {}, '?signed=false');
      expect(unsigned.json()).toMatchObject({ field: 'answer.signed', error: 'answer.signed must be true' });
      expect((await status(q.id)).status).toBe('PENDING');
      const ok = await post(
        q.ticket,
        '',
        {},
        '?signed=true&pages=12&score=-1.5e2&late=false&tags=1&tags=2&note=7',
      );
      expect(ok.statusCode).toBe(200);
      expect((await status(q.id)).answer).toEqual({
        signed: true,
        pages: 12,
        score: -150,
        late: false,
        tags: [1, 2],
        note: '7',
      });
    });

    it('a closed question is 409 QUESTION_CLOSED', async () => {
      const q = await external();
      await gql(`mutation { cancelQuestion(id: "${q.id}") { id } }`);
      const r = await post(q.ticket, '{}');
      expect([r.statusCode, r.json().code]).toEqual([409, 'QUESTION_CLOSED']);
    });

    it('hmac-sha256: bad signature 401 whether pending or answered; empty signed body 400', async () => {
      const q = await external({
        verifier: { name: 'hmac-sha256', config: { secretEnv: 'CB_TEST_SECRET' } },
      });
      const body = '{"approved":true}';
      const wrong = await post(q.ticket, body, { 'x-signature-256': sign('{"approved":false}') });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.body).toBe('{"error":"webhook verification failed","code":"UNAUTHENTICATED"}');
      const unsigned = await post(q.ticket, '', { 'x-signature-256': sign('') }, '?approved=true');
      expect([unsigned.statusCode, unsigned.json().code]).toEqual([400, 'BAD_USER_INPUT']);
      expect((await status(q.id)).status).toBe('PENDING');
      const ok = await post(q.ticket, body, { 'x-signature-256': sign(body) });
      expect(ok.statusCode).toBe(200);
      const afterAnswer = await post(q.ticket, body, { 'x-signature-256': sign('tampered') });
      expect([afterAnswer.statusCode, afterAnswer.body]).toEqual([401, wrong.body]);
      const page = await t.server.inject({ method: 'GET', url: `/api/interactions/callback/${q.ticket}` });
      expect(page.statusCode).toBe(404);
    });

    it('a verifier whose secret is missing fails closed with 500', async () => {
      const q = await external({
        verifier: { name: 'github', config: { secretEnv: 'CB_TEST_UNSET_SECRET' } },
      });
      const r = await post(q.ticket, '{}', { 'x-hub-signature-256': sign('{}') });
      expect(r.statusCode).toBe(500);
      expect((await status(q.id)).status).toBe('PENDING');
    });

    it('GET and HEAD never change a CONFIRM question; the confirm page POSTs back and records true', async () => {
      const q = await ask({ text: 'Approve the deploy?', format: 'CONFIRM', channel: 'pager' });
      const url = `/api/interactions/callback/${q.ticket}`;
      const page = await t.server.inject({ method: 'GET', url });
      const head = await t.server.inject({ method: 'HEAD', url });
      expect(page.statusCode).toBe(200);
      expect(head.statusCode).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.body).toContain('<form method="post">');
      expect(page.body).not.toContain(q.ticket);
      // The question is named (issue 44), and the page is still the same bytes on every GET.
      expect(page.body).toContain('<blockquote class="q">Approve the deploy?</blockquote>');
      expect((await t.server.inject({ method: 'GET', url })).body).toBe(page.body);
      expect((await status(q.id)).status).toBe('PENDING');
      for (const h of HEADERS_THAT_MATTER.slice(1)) expect(page.headers[h], h).toBeTruthy();
      expect(page.headers['content-security-policy']).toContain("default-src 'none'");
      // the button submits an empty form-encoded body to the same URL
      const click = await post(q.ticket, '', { 'content-type': 'application/x-www-form-urlencoded' });
      expect(click.statusCode).toBe(200);
      expect(await status(q.id)).toEqual({ status: 'ANSWERED', answer: true });
      const done = await t.server.inject({ method: 'GET', url });
      expect(done.body).toContain('Done');
    });

    it('a channel FORM question has a form page built from its schema, escaped, whose POST records the answer', async () => {
      const schema = {
        type: 'object',
        title: '<script>alert(1)</script>',
        properties: { count: { type: 'integer', title: 'How many?' }, ok: { type: 'boolean' } },
        required: ['count'],
      };
      const q = await ask({ text: 'Count', format: 'FORM', schema, channel: 'pager' });
      const page = await t.server.inject({ method: 'GET', url: `/api/interactions/callback/${q.ticket}` });
      expect(page.body).not.toContain('<script>');
      expect(page.body).toContain('&#60;script&#62;');
      expect(page.body).toContain('name="count"');
      const r = await post(q.ticket, 'count=3&ok=true', {
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect(r.statusCode).toBe(200);
      expect((await status(q.id)).answer).toEqual({ count: 3, ok: true });
    });

    it('pages are styled by one inline stylesheet the CSP allows by its hash, and run no script', async () => {
      const q = await ask({ text: 'Approve?', format: 'CONFIRM', channel: 'pager' });
      const page = await t.server.inject({ method: 'GET', url: `/api/interactions/callback/${q.ticket}` });
      const style = /<style>([^<]*)<\/style>/.exec(page.body)?.[1];
      expect(style).toBeDefined();
      const hash = createHash('sha256').update(style!).digest('base64');
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toBe(
        `default-src 'none'; style-src 'sha256-${hash}'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
      );
      expect(page.body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      expect(page.body).not.toMatch(/<script|\son[a-z]+=/i);
      expect(page.body).not.toContain(q.ticket);
    });

    it('a browser form POST gets an HTML page (Done, Closed, Not accepted); API clients keep JSON', async () => {
      const browser = {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      };
      const q = await ask({ text: 'Approve?', format: 'CONFIRM', channel: 'pager' });
      const click = await post(q.ticket, '', browser);
      expect([click.statusCode, click.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
      expect(click.body).toContain('<h1>Done</h1>');
      expect(click.body).toBe(
        (await t.server.inject({ method: 'GET', url: `/api/interactions/callback/${q.ticket}` })).body,
      );
      expect(await status(q.id)).toEqual({ status: 'ANSWERED', answer: true });
      // A second press says Done again; an API client retrying gets the JSON it always got.
      expect((await post(q.ticket, '', browser)).body).toBe(click.body);
      const api = await post(q.ticket, '', { 'content-type': 'application/x-www-form-urlencoded' });
      expect(api.body).toBe('{"data":{"status":"already_answered"}}');

      const schema = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] };
      const form = await ask({ text: 'Count', format: 'FORM', schema, channel: 'pager' });
      const bad = await post(form.ticket, 'count=many', browser);
      expect([bad.statusCode, bad.headers['content-type']]).toEqual([400, 'text/html; charset=utf-8']);
      expect(bad.body).toContain('Not accepted');
      expect(bad.body).not.toContain('many');
      expect((await status(form.id)).status).toBe('PENDING');
      await gql(`mutation { cancelQuestion(id: "${form.id}") { id } }`);
      const closed = await post(form.ticket, 'count=3', browser);
      expect(closed.statusCode).toBe(409);
      expect(closed.body).toContain('<h1>Closed</h1>');
      for (const r of [click, bad, closed]) {
        for (const h of HEADERS_THAT_MATTER.slice(1)) expect(r.headers[h], h).toBeTruthy();
      }
    });

    it('a query string over the cap is 413, not 431', async () => {
      const q = await external();
      const long = `?x=${'a'.repeat(t.config.callbackMaxBodyBytes)}`;
      await t.listen();
      const r = await fetch(`${t.url}/api/interactions/callback/${q.ticket}${long}`, { method: 'POST' });
      expect(r.status).toBe(413);
      expect((await r.json()).code).toBe('PAYLOAD_TOO_LARGE');
      expect(r.headers.get('cache-control')).toBe('no-store');
    });

    it('a body of cap + 1 bytes is 413 even when Content-Length is not sent (chunked)', async () => {
      const q = await external();
      if (!t.url) await t.listen();
      const { port } = new URL(t.url!);
      const body = `{"x":"${'a'.repeat(t.config.callbackMaxBodyBytes - 7)}"}`;
      expect(Buffer.byteLength(body)).toBe(t.config.callbackMaxBodyBytes + 1);
      const raw = await rawRequest(
        Number(port),
        `POST /api/interactions/callback/${q.ticket} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
          `Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
      );
      expect(raw.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
      expect((await status(q.id)).status).toBe('PENDING');
    });

    it('never answers 500 for arbitrary bodies, headers, query strings and tickets', async () => {
      const q = await external();
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(fc.constant(q.ticket), fc.string(), fc.stringMatching(/^[A-Za-z0-9_-]{43}$/)),
          fc.oneof(fc.string(), fc.json(), fc.constant('')),
          fc.dictionary(fc.stringMatching(/^x-[a-z]{1,10}$/), fc.stringMatching(/^[ -~]{0,40}$/)),
          fc.array(fc.tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 })), { maxLength: 5 }),
          fc.constantFrom(
            'application/json',
            'text/plain',
            'application/x-www-form-urlencoded',
            'application/octet-stream',
          ),
          async (ticket, body, headers, query, type) => {
            const qs = query.length ? `?${new URLSearchParams(query).toString()}` : '';
            const r = await t.server.inject({
              method: 'POST',
              url: `/api/interactions/callback/${encodeURIComponent(ticket)}${qs}`,
              headers: { ...headers, 'content-type': type },
              payload: body,
            });
            expect(r.statusCode).toBeLessThan(500);
          },
        ),
        { numRuns: 150 },
      );
    });
  });
}

describe('callback door rate limit and multiple instances (redis)', () => {
  it('limits each client address and answers 429 with Retry-After, shared across instances', async () => {
    const a = await startServer({ store: 'redis', env: { INTERACTIONS_RATE_LIMIT_PER_MINUTE: '3' } });
    const b = await startServer({
      store: 'redis',
      prefix: a.prefix,
      env: { INTERACTIONS_RATE_LIMIT_PER_MINUTE: '3' },
    });
    try {
      const codes: number[] = [];
      for (const s of [a, a, b, b]) {
        const r = await s.server.inject({
          method: 'POST',
          url: `/api/interactions/callback/${'A'.repeat(43)}`,
        });
        codes.push(r.statusCode);
        if (r.statusCode === 429) {
          expect(r.json().code).toBe('RATE_LIMITED');
          expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
        }
      }
      expect(codes).toEqual([404, 404, 404, 429]);
      // The counter is one fixed window: it carries the window's expiry from its first request.
      const redis = new Redis(inject('redisUrl'));
      try {
        const keys = await redis.keys(`${a.prefix}ratelimit:*`);
        expect(keys).toHaveLength(1);
        expect(await redis.get(keys[0]!)).toBe('4');
        const ttl = await redis.pttl(keys[0]!);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(60_000);
      } finally {
        redis.disconnect();
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('one budget whichever step counts a request: up front (GET, oversized) or in the store step (POST)', async () => {
    const a = await startServer({ store: 'redis', env: { INTERACTIONS_RATE_LIMIT_PER_MINUTE: '4' } });
    try {
      const url = `/api/interactions/callback/${'C'.repeat(43)}`;
      const post = (payload?: string) =>
        a.server.inject({
          method: 'POST',
          url,
          ...(payload === undefined ? {} : { payload, headers: { 'content-type': 'application/json' } }),
        });
      const first = await post('{"a":1}');
      expect(first.statusCode).toBe(404);
      expect(first.headers['x-ratelimit-limit']).toBe('4');
      expect(first.headers['x-ratelimit-remaining']).toBe('3');
      expect(Number(first.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
      const page = await a.server.inject({ method: 'GET', url });
      expect(page.statusCode).toBe(404);
      expect(page.headers['x-ratelimit-remaining']).toBe('2');
      const big = await post(`{"a":"${'x'.repeat(a.config.callbackMaxBodyBytes)}"}`);
      expect(big.statusCode).toBe(413);
      const atLimit = await post();
      expect(atLimit.statusCode).toBe(404);
      expect(atLimit.headers['x-ratelimit-remaining']).toBe('0');
      const past = await post('{"a":1}');
      expect(past.statusCode).toBe(429);
      expect(past.json()).toMatchObject({ code: 'RATE_LIMITED' });
      expect(Number(past.headers['retry-after'])).toBeGreaterThan(0);
      expect(past.headers['x-ratelimit-remaining']).toBe('0');
      const pastPage = await a.server.inject({ method: 'GET', url });
      expect(pastPage.statusCode).toBe(429);
    } finally {
      await a.close();
    }
  });

  it('behind a trusted proxy, each forwarded client has its own budget', async () => {
    const env = { INTERACTIONS_RATE_LIMIT_PER_MINUTE: '2', INTERACTIONS_TRUST_PROXY_HOPS: '1' };
    const a = await startServer({ store: 'redis', env });
    try {
      const hit = (client: string) =>
        a.server.inject({
          method: 'POST',
          url: `/api/interactions/callback/${'B'.repeat(43)}`,
          headers: { 'x-forwarded-for': client },
        });
      const codes = [];
      for (const client of ['203.0.113.1', '203.0.113.1', '203.0.113.1', '203.0.113.2']) {
        codes.push((await hit(client)).statusCode);
      }
      expect(codes).toEqual([404, 404, 429, 404]);
    } finally {
      await a.close();
    }
  });

  it('a provider retry on another instance gets already_answered', async () => {
    const a = await startServer({ store: 'redis' });
    const b = await startServer({ store: 'redis', prefix: a.prefix });
    try {
      const r = await a.server.inject({
        method: 'POST',
        url: '/graphql',
        headers: { ...auth('agent'), 'content-type': 'application/json' },
        payload: {
          query:
            'mutation { askUser(input: {text: "Sign", format: EXTERNAL, link: "https://s.example/{callback_url}"}, holdSeconds: 0) { callbackUrl } }',
        },
      });
      const ticket = ticketOf(r.json().data.askUser.callbackUrl);
      const url = `/api/interactions/callback/${ticket}`;
      const first = await a.server.inject({
        method: 'POST',
        url,
        payload: '{"ok":true}',
        headers: { 'content-type': 'application/json' },
      });
      const retry = await b.server.inject({
        method: 'POST',
        url,
        payload: '{"ok":true}',
        headers: { 'content-type': 'application/json' },
      });
      expect(first.json()).toEqual({ data: { status: 'answered' } });
      expect(retry.json()).toEqual({ data: { status: 'already_answered' } });
    } finally {
      await a.close();
      await b.close();
    }
  });
});

function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    let out = '';
    sock.on('data', (d) => {
      out += d.toString();
    });
    sock.on('end', () => resolve(out));
    sock.on('close', () => resolve(out));
    sock.on('error', (err) => (out ? resolve(out) : reject(err)));
    sock.write(text);
  });
}
