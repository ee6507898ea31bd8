// No forged request of at most the size cap may block the event loop more than 50 ms (issue 21):
// every public door gets bodies of thousands of tiny keys at the 64 KiB cap, and the loop's delay
// (test/support/loop-delay.ts: a timer-lag probe, not the wall time) is measured while each is
// answered.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FORM_PARAMS, twilioSignature } from '../../src/channels/twilio/signature.ts';
import { manifestOf } from '../support/channel-server.ts';
import { leastLoopDelay } from '../support/loop-delay.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';

const CAP = 65_536;
const BOUND_MS = 50;
const KEYS = 16_000;
/** `000&001&…`: 16,000 distinct keys in 64,000 bytes. */
const keys = Array.from({ length: KEYS }, (_, i) => i.toString(36).padStart(3, '0'));
const FORM = keys.join('&');
/** `{"000":0,"001":0,…}` cut to the cap: as many keys as fit. */
const JSON_BODY = (() => {
  const parts: string[] = [];
  let size = 2;
  for (const k of keys) {
    const part = `"${k}":0`;
    if (size + part.length + 1 > CAP) break;
    parts.push(part);
    size += part.length + 1;
  }
  return `{${parts.join(',')}}`;
})();

let t: TestServer;
/** The `bridge` webhook channel's receiver: takes every question. */
let receiver: Server;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  const manifest = await manifestOf(
    [
      'verifiers: [hmac-sha256, stripe, github]',
      'channels:',
      '  ops-sms:',
      '    plugin: twilio',
      '    config:',
      '      accountSidEnv: TWILIO_ACCOUNT_SID',
      '      authTokenEnv: TWILIO_AUTH_TOKEN',
      '      from: "+15005550006"',
      '      defaultRecipient: "+447700900123"',
      '      apiUrl: http://127.0.0.1:9',
      '  ops-slack:',
      '    plugin: slack',
      '    config:',
      '      botTokenEnv: SLACK_BOT_TOKEN',
      '      signingSecretEnv: SLACK_SIGNING_SECRET',
      '      defaultRecipient: C0123456789',
      '      apiUrl: http://127.0.0.1:9',
      '  ops-tg:',
      '    plugin: telegram',
      '    config:',
      '      botTokenEnv: TELEGRAM_BOT_TOKEN',
      '      webhookSecretEnv: TELEGRAM_WEBHOOK_SECRET',
      '      defaultRecipient: "5150"',
      '      apiRoot: http://127.0.0.1:9',
      '  bridge:',
      '    plugin: webhook',
      '    config:',
      `      url: ${receiverUrl}`,
      '      secretEnv: BRIDGE_SECRET',
    ],
    {
      TWILIO_ACCOUNT_SID: 'AC22222222222222222222222222222222',
      TWILIO_AUTH_TOKEN: 'loop-twilio-token',
      SLACK_BOT_TOKEN: 'xoxb-loop',
      SLACK_SIGNING_SECRET: 'loop-slack-secret',
      TELEGRAM_BOT_TOKEN: '123456:loop-telegram',
      TELEGRAM_WEBHOOK_SECRET: 'loop_telegram_secret',
      BRIDGE_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
    },
  );
  t = await startServer({
    store: 'memory',
    env: {
      INTERACTIONS_CALLBACK_MAX_BODY_BYTES: String(CAP),
      INTERACTIONS_RATE_LIMIT_PER_MINUTE: '100000',
      LOOP_SECRET: 'loop-verifier-secret',
      INTERACTIONS_VERIFIER_SECRETS: 'LOOP_SECRET',
    },
    plugins: { manifest },
  });
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

type Headers = Record<string, string>;

async function post(url: string, body: string, headers: Headers) {
  return t.server.inject({ method: 'POST', url, headers, payload: body });
}

/** One forged request (after a warm-up): the least loop delay of up to three tries. */
async function loopDelayOf(url: string, body: string, headers: Headers, status: number): Promise<number> {
  expect(Buffer.byteLength(body)).toBeLessThanOrEqual(CAP);
  expect((await post(url, body, headers)).statusCode).toBe(status);
  return leastLoopDelay(async () => {
    expect((await post(url, body, headers)).statusCode).toBe(status);
  }, BOUND_MS);
}

async function ask(input: Record<string, unknown>): Promise<string> {
  const r = await t.server.inject({
    method: 'POST',
    url: '/graphql',
    headers: { ...auth('agent'), 'content-type': 'application/json' },
    payload: {
      query: 'mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { callbackUrl } }',
      variables: { i: input },
    },
  });
  const url = r.json().data.askUser.callbackUrl as string;
  return `/api/interactions/callback/${url.split('/').at(-1)}`;
}

const form = { 'content-type': 'application/x-www-form-urlencoded' };
const json = { 'content-type': 'application/json' };

describe('the Twilio signature helper', () => {
  it('hashes 16,000 distinct keys within the bound (one pass, not one scan per key)', async () => {
    const params = new URLSearchParams(FORM);
    expect([...new Set(params.keys())]).toHaveLength(KEYS);
    let signature = '';
    const delay = await leastLoopDelay(async () => {
      signature = twilioSignature('token', 'https://tai.example/x', params);
    }, BOUND_MS);
    expect(signature).toMatch(/^[A-Za-z0-9+/]{27}=$/);
    expect(delay).toBeLessThan(BOUND_MS);
  });
});

describe('forged bodies at the size cap, every public door', () => {
  it(`twilio: 16,000 keys is refused 413 before hashing (more than ${MAX_FORM_PARAMS} parameters)`, async () => {
    const headers = { ...form, 'x-twilio-signature': 'AAAA' };
    const delay = await loopDelayOf('/api/interactions/channels/ops-sms', FORM, headers, 413);
    expect(delay).toBeLessThan(BOUND_MS);
    const r = await post('/api/interactions/channels/ops-sms', FORM, headers);
    expect(r.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it(`twilio: ${MAX_FORM_PARAMS} parameters of large values is a 401`, async () => {
    const value = 'x'.repeat(Math.floor(CAP / MAX_FORM_PARAMS) - 8);
    const body = Array.from({ length: MAX_FORM_PARAMS }, (_, i) => `p${i}=${value}`).join('&');
    const headers = { ...form, 'x-twilio-signature': 'AAAA' };
    expect(await loopDelayOf('/api/interactions/channels/ops-sms', body, headers, 401)).toBeLessThan(
      BOUND_MS,
    );
  });

  it('slack: 16,000 keys with a forged signature is a 401', async () => {
    const headers = {
      ...form,
      'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)),
      'x-slack-signature': `v0=${'0'.repeat(64)}`,
    };
    expect(await loopDelayOf('/api/interactions/channels/ops-slack', FORM, headers, 401)).toBeLessThan(
      BOUND_MS,
    );
  });

  it('telegram: a JSON object of thousands of keys with a wrong secret token is a 401', async () => {
    const headers = { ...json, 'x-telegram-bot-api-secret-token': 'wrong' };
    expect(await loopDelayOf('/api/interactions/channels/ops-tg', JSON_BODY, headers, 401)).toBeLessThan(
      BOUND_MS,
    );
  });

  it('callback: an unknown ticket is the 404', async () => {
    const url = `/api/interactions/callback/${'A'.repeat(43)}`;
    expect(await loopDelayOf(url, JSON_BODY, json, 404)).toBeLessThan(BOUND_MS);
  });

  for (const [name, header] of [
    ['hmac-sha256', { 'x-signature-256': `sha256=${'0'.repeat(64)}` }],
    ['github', { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` }],
    ['stripe', { 'stripe-signature': `t=${Math.floor(Date.now() / 1000)},${'v1=00,'.repeat(15)}v1=0` }],
  ] as const) {
    it(`callback with the ${name} verifier: a forged signature is a 401`, async () => {
      const url = await ask({
        text: 'Sign',
        format: 'EXTERNAL',
        link: 'https://sign.example/?cb={callback_url}',
        verifier: { name, config: { secretEnv: 'LOOP_SECRET' } },
      });
      expect(await loopDelayOf(url, JSON_BODY, { ...json, ...header }, 401)).toBeLessThan(BOUND_MS);
    });
  }

  it('callback: a FORM question posted 10,000 fields at the cap is a 400', async () => {
    const url = await ask({
      text: 'Count',
      format: 'FORM',
      schema: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false },
      channel: 'bridge',
    });
    const fields = keys.slice(0, Math.floor(CAP / 6)).map((k) => `${k}=1`);
    expect(await loopDelayOf(url, fields.join('&'), form, 400)).toBeLessThan(BOUND_MS);
    // As many fields as the schema has properties is read; one more is refused before parsing.
    const two = await post(url, 'n=1&m=2', form);
    expect([two.statusCode, two.json()]).toEqual([
      400,
      expect.objectContaining({ error: "the form has more fields than the question's 1" }),
    ]);
    expect((await post(url, 'n=3', form)).statusCode).toBe(200);
  });

  it('callback: a real answer at the cap (too large to parse before the ticket is known) is still recorded', async () => {
    const url = await ask({
      text: 'Sign',
      format: 'EXTERNAL',
      link: 'https://sign.example/?cb={callback_url}',
    });
    const r = await post(url, JSON_BODY, json);
    expect([r.statusCode, r.body]).toEqual([200, '{"data":{"status":"answered"}}']);
    const again = await post(url, JSON_BODY, json);
    expect(again.body).toBe('{"data":{"status":"already_answered"}}');
  });
});
