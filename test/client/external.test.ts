// askExternal end to end: a test provider (a tool that builds a "checkout" from the callback URL)
// and its webhook, which POSTs the result to the callback URL on the real server.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { InteractionsClient } from '../../src/client/index.ts';
import { freePort } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import { clientAs, listening, questionCount } from './support.ts';

const SECRET = 'provider-webhook-secret-for-tests';

/** The provider's side: a checkout built from the callback URL, and the webhook it sends later. */
function provider() {
  const checkouts: { amount: number; currency: string; callbackUrl: string }[] = [];
  return {
    checkouts,
    /** The tool an agent would call: it takes a callback URL and returns the page to visit. */
    createCheckout(args: { amount: number; currency: string; callbackUrl: string }): Promise<string> {
      checkouts.push(args);
      const page = new URL('https://pay.example/checkout');
      page.searchParams.set('amount', String(args.amount));
      page.searchParams.set('notify', args.callbackUrl);
      return Promise.resolve(page.toString());
    },
    /** The payment completed: the provider POSTs to the callback URL, signed or not. */
    async notify(callbackUrl: string, payload: unknown, sign = false): Promise<Response> {
      const body = JSON.stringify(payload);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (sign)
        headers['x-signature-256'] = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
      return fetch(callbackUrl, { method: 'POST', headers, body });
    },
  };
}

const Payment = z.object({
  paid: z.literal(true),
  amount: z.number().int(),
  currency: z.enum(['EUR', 'USD']),
});

describe('askExternal against a real server', () => {
  let t: TestServer & { url: string };
  let agent: InteractionsClient;

  beforeAll(async () => {
    const port = await freePort();
    t = await listening({
      env: {
        PORT: String(port),
        INTERACTIONS_PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        PROVIDER_WEBHOOK_SECRET: SECRET,
        INTERACTIONS_VERIFIER_SECRETS: 'PROVIDER_WEBHOOK_SECRET',
      },
    });
    agent = clientAs(t.url, 'agent');
  });
  afterAll(async () => {
    await t.close();
  });

  it('reserves a callback, calls the tool with it, asks with its link and returns the typed payload', async () => {
    const p = provider();
    const pay = agent.askExternal(p.createCheckout, { schema: Payment });
    expectTypeOf(pay)
      .parameter(0)
      .toEqualTypeOf<Omit<Parameters<typeof p.createCheckout>[0], 'callbackUrl'>>();

    let asked: { id: string; link: string | null; callbackUrl: string | null } | null = null;
    const payload = await pay(
      { amount: 4200, currency: 'EUR' },
      {
        text: 'Pay 42.00 EUR for the upgrade',
        timeoutSeconds: 600,
        onAsked: (q, callbackUrl) => {
          asked = { id: q.id, link: q.link, callbackUrl };
          // the person pays; the provider's webhook reports it (extra fields are fine)
          void p.notify(callbackUrl!, { paid: true, amount: 4200, currency: 'EUR', session: 'cs_1' });
        },
      },
    );
    expectTypeOf(payload).toEqualTypeOf<{ paid: true; amount: number; currency: 'EUR' | 'USD' }>();
    expect(payload).toEqual({ paid: true, amount: 4200, currency: 'EUR' });

    expect(p.checkouts).toHaveLength(1);
    const { callbackUrl } = p.checkouts[0]!;
    expect(callbackUrl).toMatch(new RegExp(`^${t.url}/api/interactions/callback/[A-Za-z0-9_-]{43}$`));
    expect(asked).not.toBeNull();
    expect(asked!.callbackUrl).toBe(callbackUrl);
    const link = new URL(asked!.link!);
    expect(link.origin).toBe('https://pay.example');
    expect(link.searchParams.get('notify')).toBe(callbackUrl);

    const question = await clientAs(t.url, 'ops').question(asked!.id);
    expect(question).toMatchObject({
      format: 'EXTERNAL',
      status: 'ANSWERED',
      text: 'Pay 42.00 EUR for the upgrade',
      answeredBy: 'callback',
      schema: { type: 'object', required: ['paid', 'amount', 'currency'] },
    });
  });

  it('with a verifier: an unsigned callback is refused and the question stays pending; a signed one answers', async () => {
    const p = provider();
    const pay = agent.askExternal(p.createCheckout, {
      schema: Payment,
      verifier: { name: 'hmac-sha256', config: { secretEnv: 'PROVIDER_WEBHOOK_SECRET' } },
    });
    const statuses: number[] = [];
    let link: string | null = 'unset';
    const payload = await pay(
      { amount: 100, currency: 'USD' },
      {
        text: 'Pay 1.00 USD',
        onAsked: async (q, callbackUrl) => {
          link = q.link;
          const payment = { paid: true, amount: 100, currency: 'USD' };
          statuses.push((await p.notify(callbackUrl!, payment)).status);
          // an invalid payload, even signed, leaves the question pending
          statuses.push((await p.notify(callbackUrl!, { paid: 'yes' }, true)).status);
          statuses.push((await p.notify(callbackUrl!, payment, true)).status);
        },
      },
    );
    expect(payload).toEqual({ paid: true, amount: 100, currency: 'USD' });
    expect(statuses).toEqual([401, 400, 200]);
    expect(link).toBeNull(); // a verifier-bound question never shows its link
  });

  it('without a schema the payload is a plain object', async () => {
    const p = provider();
    const sign = agent.askExternal(p.createCheckout);
    const payload = await sign(
      { amount: 1, currency: 'EUR' },
      {
        text: 'Sign',
        onAsked: (_q, callbackUrl) => {
          void p.notify(callbackUrl!, { signed: true, by: 'Ada' });
        },
      },
    );
    expectTypeOf(payload).toEqualTypeOf<Record<string, unknown>>();
    expect(payload).toEqual({ signed: true, by: 'Ada' });
  });

  it('if the tool throws, nothing is asked and the reservation is never answerable', async () => {
    const server = await listening({ env: { INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:4000' } });
    try {
      const client = clientAs(server.url, 'agent');
      let reserved = '';
      const failing = client.askExternal(async (args: { plan: string; callbackUrl: string }) => {
        reserved = args.callbackUrl;
        throw new Error(`the provider refused plan ${args.plan}`);
      });
      await expect(failing({ plan: 'gold' }, { text: 'Pay for gold' })).rejects.toThrow(
        'the provider refused plan gold',
      );
      expect(reserved).toMatch(/\/api\/interactions\/callback\/[A-Za-z0-9_-]{43}$/);
      expect(await questionCount(server.url)).toBe(0);
      const ticket = reserved.slice(reserved.lastIndexOf('/') + 1);
      const r = await server.server.inject({
        method: 'POST',
        url: `/api/interactions/callback/${ticket}`,
        headers: { 'content-type': 'application/json' },
        payload: '{"paid":true}',
      });
      expect(r.statusCode).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('the wrapped function takes no callbackUrl', () => {
    const p = provider();
    const pay = agent.askExternal(p.createCheckout);
    type Args = Parameters<typeof pay>[0];
    expectTypeOf<Args>().toEqualTypeOf<{ amount: number; currency: string }>();
    expect(Object.keys({ amount: 1, currency: 'EUR' } satisfies Args)).toEqual(['amount', 'currency']);
  });
});
