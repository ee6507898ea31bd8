// GET /metrics (API.md §14): scraped through the real server after asks, answers, a timeout,
// channel deliveries (one delivered, one failed) and callback requests (refused and accepted);
// every listed metric moves by exactly what happened, and no label value is an id, a ticket,
// a key or a question's text.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/app/config.ts';
import { DECIDED_BY_KINDS } from '../../src/domain/decision-stats.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { ANSWER_FORMATS } from '../../src/domain/question.ts';
import type { ChannelPort } from '../../src/engine/ports.ts';
import { securityHeaders } from '../../src/http/security-headers.ts';
import { auth, KEYS, startServer, type TestServer } from '../support/server.ts';

const SECRET = 'metrics-test-hmac-secret-1';
const sign = (body: string): string => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;

/** `pager` delivers; `broken` always fails. */
const channels: ChannelPort = {
  names: () => new Set(['pager', 'broken']),
  async deliver(q) {
    if (q.channel === 'broken') throw new Error('provider down');
  },
};

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The text exposition's samples (comments skipped). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`unparsable line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[k!] = v!;
    }
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The value of one series (0 when it has not appeared yet). */
function seriesValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const hit = samples.find(
    (s) =>
      s.name === name &&
      Object.keys(labels).length === Object.keys(s.labels).length &&
      Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return hit?.value ?? 0;
}

interface Asked {
  status: string;
  question: { id: string };
  callbackUrl: string | null;
}

const P = 'tai_interactions_';
/** Polling until an asynchronous effect shows (generous: the machine may be loaded). */
const WAIT = { timeout: 15_000, interval: 50 };
const OPS: Principal = { id: 'ops', roles: ['operator'], restricted: false };

/** Every value a label of ours may take (channel names are the configured ones). */
const ALLOWED_LABEL_VALUES: Record<string, ReadonlySet<string>> = {
  format: new Set(ANSWER_FORMATS),
  channel: new Set(['none', 'pager', 'broken']),
  outcome: new Set(['answered', 'timed_out', 'cancelled']),
  result: new Set([
    'delivered',
    'failed',
    'ok',
    'invalid',
    'unauthenticated',
    'not_found',
    'closed',
    'too_large',
    'rate_limited',
    'error',
  ]),
  door: new Set(['callback', 'channels']),
  // The outbox's dead letters, by the handler kinds (a closed set).
  kind: new Set(['channel', 'webhook', 'other']),
  // Who ended a wait (API.md §24), a closed set.
  decided_by: new Set(DECIDED_BY_KINDS),
};

describe('GET /metrics', () => {
  let t: TestServer;
  /** Everything that must never appear in the exposition. */
  const secrets: string[] = [...Object.values(KEYS), SECRET];

  beforeAll(async () => {
    t = await startServer({
      store: 'memory',
      env: {
        METRICS_TEST_SECRET: SECRET,
        INTERACTIONS_VERIFIER_SECRETS: 'METRICS_TEST_SECRET',
        INTERACTIONS_RATE_LIMIT_PER_MINUTE: '100000',
      },
      plugins: { channels, metrics: true },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  async function scrape(): Promise<{ text: string; samples: Sample[] }> {
    const r = await t.server.inject({ method: 'GET', url: '/metrics', headers: auth('ops') });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toContain('text/plain');
    return { text: r.body, samples: parse(r.body) };
  }

  async function gql(query: string, variables: Record<string, unknown> = {}) {
    const r = await t.server.inject({
      method: 'POST',
      url: '/graphql',
      headers: { ...auth('agent'), 'content-type': 'application/json' },
      payload: { query, variables },
    });
    return r.json() as { data: { askUser: Asked } | null; errors?: { extensions: { code: string } }[] };
  }

  const ASK =
    'mutation($i: AskUserInput!, $h: Int) { askUser(input: $i, holdSeconds: $h) { status question { id } callbackUrl } }';

  async function ask(input: Record<string, unknown>, holdSeconds = 0) {
    secrets.push(String(input.text));
    const r = await gql(ASK, { i: input, h: holdSeconds });
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    const a = r.data!.askUser;
    secrets.push(a.question.id);
    if (a.callbackUrl) secrets.push(a.callbackUrl.split('/').at(-1)!);
    return a;
  }

  it('takes an operator or admin key on the main port', async () => {
    const none = await t.server.inject({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    const agent = await t.server.inject({ method: 'GET', url: '/metrics', headers: auth('agent') });
    expect(agent.statusCode).toBe(403);
    expect(agent.json().code).toBe('FORBIDDEN');
    const admin = await t.server.inject({ method: 'GET', url: '/metrics', headers: auth('admin') });
    expect(admin.statusCode).toBe(200);
  });

  it('counts asks, answers, a timeout, channel deliveries and callback requests', async () => {
    const before = (await scrape()).samples;

    // An in-client question answered through the REST door.
    const text = await ask({ text: 'metrics: which region?', format: 'TEXT' });
    const answered = await t.server.inject({
      method: 'POST',
      url: `/api/interactions/${text.question.id}/answer`,
      headers: { ...auth('ops'), 'content-type': 'application/json' },
      payload: { answer: 'eu-west' },
    });
    expect(answered.statusCode).toBe(200);

    // A question that times out while its asker holds.
    const late = await ask({ text: 'metrics: deploy now?', format: 'CONFIRM', timeoutSeconds: 1 }, 5);
    expect(late.status).toBe('TIMED_OUT');

    // An EXTERNAL question behind a verifier: a bad signature and an unknown ticket are
    // refused, then the signed callback is accepted.
    const ext = await ask({
      text: 'metrics: sign the form',
      format: 'EXTERNAL',
      link: 'https://sign.example/?cb={callback_url}',
      verifier: { name: 'hmac-sha256', config: { secretEnv: 'METRICS_TEST_SECRET' } },
    });
    const ticket = ext.callbackUrl!.split('/').at(-1)!;
    const body = JSON.stringify({ signed: true });
    const post = (path: string, signature: string) =>
      t.server.inject({
        method: 'POST',
        url: `/api/interactions/callback/${path}`,
        headers: { 'content-type': 'application/json', 'x-signature-256': signature },
        payload: body,
      });
    expect((await post(ticket, sign('something else'))).statusCode).toBe(401);
    expect((await post('A'.repeat(43), sign(body))).statusCode).toBe(404);
    expect((await post(ticket, sign(body))).statusCode).toBe(200);

    // Channel questions: one delivered (and left pending), one whose delivery fails.
    await ask({ text: 'metrics: approve the pager?', format: 'CONFIRM', channel: 'pager' });
    const failed = await gql(ASK, {
      i: { text: 'metrics: broken channel', format: 'TEXT', channel: 'broken' },
    });
    expect(failed.errors?.[0]?.extensions.code).toBe('CHANNEL_DELIVERY_FAILED');

    const after = (await scrape()).samples;
    const moved = (name: string, labels: Record<string, string> = {}) =>
      seriesValue(after, P + name, labels) - seriesValue(before, P + name, labels);

    expect(moved('questions_created_total', { format: 'TEXT', channel: 'none' })).toBe(1);
    expect(moved('questions_created_total', { format: 'CONFIRM', channel: 'none' })).toBe(1);
    expect(moved('questions_created_total', { format: 'EXTERNAL', channel: 'none' })).toBe(1);
    expect(moved('questions_created_total', { format: 'CONFIRM', channel: 'pager' })).toBe(1);
    expect(moved('questions_created_total', { format: 'TEXT', channel: 'broken' })).toBe(1);

    expect(moved('questions_resolved_total', { format: 'TEXT', outcome: 'answered' })).toBe(1);
    expect(moved('questions_resolved_total', { format: 'CONFIRM', outcome: 'timed_out' })).toBe(1);
    expect(moved('questions_resolved_total', { format: 'EXTERNAL', outcome: 'answered' })).toBe(1);
    expect(moved('questions_resolved_total', { format: 'TEXT', outcome: 'cancelled' })).toBe(1);
    expect(moved('answer_latency_seconds_count')).toBe(4);
    // The timed-out question waited its full second.
    expect(moved('answer_latency_seconds_sum')).toBeGreaterThanOrEqual(1);

    expect(moved('questions_pending')).toBe(1);
    expect(moved('channel_deliveries_total', { channel: 'pager', result: 'delivered' })).toBe(1);
    expect(moved('channel_deliveries_total', { channel: 'broken', result: 'failed' })).toBe(1);
    expect(moved('callback_requests_total', { door: 'callback', result: 'unauthenticated' })).toBe(1);
    expect(moved('callback_requests_total', { door: 'callback', result: 'not_found' })).toBe(1);
    expect(moved('callback_requests_total', { door: 'callback', result: 'ok' })).toBe(1);
  });

  it('counts a callback over the size cap before the engine sees it', async () => {
    const before = (await scrape()).samples;
    const r = await t.server.inject({
      method: 'POST',
      url: `/api/interactions/callback/${'B'.repeat(43)}`,
      headers: { 'content-type': 'application/json' },
      payload: 'x'.repeat(t.config.callbackMaxBodyBytes + 1),
    });
    expect(r.statusCode).toBe(413);
    const after = (await scrape()).samples;
    const labels = { door: 'callback', result: 'too_large' };
    expect(seriesValue(after, `${P}callback_requests_total`, labels)).toBe(
      seriesValue(before, `${P}callback_requests_total`, labels) + 1,
    );
  });

  it('shows the held waits and the live feeds of this instance', async () => {
    const held = gql(ASK, { i: { text: 'metrics: hold me', format: 'TEXT' }, h: 30 });
    await vi.waitFor(
      async () => expect(seriesValue((await scrape()).samples, `${P}held_waits`)).toBe(1),
      WAIT,
    );
    const pending = (await t.server.engine.pending(OPS)).find((q) => q.text === 'metrics: hold me')!;
    secrets.push(pending.text, pending.id);
    await t.server.engine.cancel(OPS, pending.id);
    expect((await held).data?.askUser.status).toBe('CANCELLED');
    expect(seriesValue((await scrape()).samples, `${P}held_waits`)).toBe(0);

    const unwatch = t.server.engine.watch(OPS, {
      event() {},
      resync() {},
    });
    expect(seriesValue((await scrape()).samples, `${P}feed_subscribers`)).toBe(1);
    unwatch();
    expect(seriesValue((await scrape()).samples, `${P}feed_subscribers`)).toBe(0);
  });

  it('serves the process defaults, and no label value is an id, a key or free text', async () => {
    const { text, samples } = await scrape();
    expect(samples.some((s) => s.name === 'process_cpu_user_seconds_total')).toBe(true);
    expect(samples.some((s) => s.name === 'nodejs_heap_size_used_bytes')).toBe(true);
    for (const s of samples.filter((x) => x.name.startsWith(P))) {
      for (const [label, value] of Object.entries(s.labels)) {
        if (label === 'le') {
          expect(value === '+Inf' || Number.isFinite(Number(value)), `${s.name} le=${value}`).toBe(true);
          continue;
        }
        expect(ALLOWED_LABEL_VALUES[label]?.has(value), `${s.name} ${label}="${value}"`).toBe(true);
      }
    }
    expect(secrets.length).toBeGreaterThan(10);
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});

describe('two instances on one Redis', () => {
  it('each counts every question of the deployment, and only its own channel deliveries', async () => {
    const a = await startServer({ store: 'redis', plugins: { channels, metrics: true } });
    const b = await startServer({ store: 'redis', prefix: a.prefix, plugins: { channels, metrics: true } });
    try {
      const scrapeOf = async (t: TestServer) =>
        parse((await t.server.inject({ method: 'GET', url: '/metrics', headers: auth('ops') })).body);
      const asked = await a.server.inject({
        method: 'POST',
        url: '/graphql',
        headers: { ...auth('agent'), 'content-type': 'application/json' },
        payload: {
          query:
            'mutation { askUser(input: {text: "two?", format: TEXT, channel: "pager"}, holdSeconds: 0) { question { id } } }',
        },
      });
      const id = asked.json().data.askUser.question.id as string;
      const answered = await b.server.inject({
        method: 'POST',
        url: `/api/interactions/${id}/answer`,
        headers: { ...auth('ops'), 'content-type': 'application/json' },
        payload: { answer: 'both' },
      });
      expect(answered.statusCode).toBe(200);
      // Announcements travel through Redis: each instance counts them when they arrive.
      for (const t of [a, b]) {
        await vi.waitFor(async () => {
          const m = await scrapeOf(t);
          expect(seriesValue(m, `${P}questions_created_total`, { format: 'TEXT', channel: 'pager' })).toBe(1);
          expect(
            seriesValue(m, `${P}questions_resolved_total`, { format: 'TEXT', outcome: 'answered' }),
          ).toBe(1);
          expect(seriesValue(m, `${P}answer_latency_seconds_count`)).toBe(1);
        }, WAIT);
      }
      const delivered = { channel: 'pager', result: 'delivered' };
      expect(seriesValue(await scrapeOf(a), `${P}channel_deliveries_total`, delivered)).toBe(1);
      expect(seriesValue(await scrapeOf(b), `${P}channel_deliveries_total`, delivered)).toBe(0);
    } finally {
      await b.close();
      await a.close();
    }
  });
});

describe('/metrics off, and on a port of its own', () => {
  it('is not served unless the metrics module is on', async () => {
    const t = await startServer({ store: 'memory' });
    try {
      const r = await t.server.inject({ method: 'GET', url: '/metrics', headers: auth('admin') });
      expect(r.statusCode).toBe(404);
    } finally {
      await t.close();
    }
  });

  it('INTERACTIONS_METRICS_PORT serves it there without a key, and not on the main port', async () => {
    const port = await freePort();
    const t = await startServer({
      store: 'memory',
      env: { INTERACTIONS_METRICS_PORT: String(port) },
      plugins: { metrics: true },
    });
    try {
      await t.listen();
      expect(t.server.metricsUrl()).toBe(`http://127.0.0.1:${port}`);
      const r = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(r.status).toBe(200);
      expect(await r.text()).toContain(`# TYPE ${P}questions_pending gauge`);
      // The security headers of the main port, on this listener too (404s included).
      const missing = await fetch(`http://127.0.0.1:${port}/`);
      for (const [name, value] of Object.entries((await securityHeaders()).always)) {
        expect(r.headers.get(name), name).toBe(value);
        expect(missing.headers.get(name), name).toBe(value);
      }
      // A plain-http listener never sends Strict-Transport-Security (RFC 6797 §7.2).
      expect(r.headers.get('strict-transport-security')).toBeNull();
      expect(missing.status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST' })).status).toBe(404);
      const main = await t.server.inject({ method: 'GET', url: '/metrics', headers: auth('admin') });
      expect(main.statusCode).toBe(404);
    } finally {
      await t.close();
    }
    // Closed with the server.
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });

  it('INTERACTIONS_METRICS_PORT is a port from 1 to 65535 other than PORT; empty is unset', () => {
    expect(loadConfig({}).metricsPort).toBeNull();
    expect(loadConfig({ INTERACTIONS_METRICS_PORT: '' }).metricsPort).toBeNull();
    expect(loadConfig({ INTERACTIONS_METRICS_PORT: '1' }).metricsPort).toBe(1);
    expect(loadConfig({ INTERACTIONS_METRICS_PORT: '65535' }).metricsPort).toBe(65535);
    expect(() => loadConfig({ INTERACTIONS_METRICS_PORT: '0' })).toThrow(
      /INTERACTIONS_METRICS_PORT: .*1 to 65535/,
    );
    expect(() => loadConfig({ INTERACTIONS_METRICS_PORT: '65536' })).toThrow(/INTERACTIONS_METRICS_PORT/);
    expect(() => loadConfig({ INTERACTIONS_METRICS_PORT: 'x' })).toThrow(/INTERACTIONS_METRICS_PORT/);
    expect(() => loadConfig({ PORT: '9100', INTERACTIONS_METRICS_PORT: '9100' })).toThrow(
      'INTERACTIONS_METRICS_PORT: must differ from PORT',
    );
  });
});

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
