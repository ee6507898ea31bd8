import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManifestSettings } from '../../src/app/config.ts';
import { manifestOf } from '../support/channel-server.ts';
import { uniquePrefix } from '../support/fixtures.ts';
import { auth, startServer, type TestServer } from '../support/server.ts';

const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  res: ServerResponse;
}

/** A receiver whose test decides when (and whether) each request is answered. */
async function startHoldingReceiver() {
  const received: Received[] = [];
  const waiters: { pred: (r: Received) => boolean; resolve(r: Received): void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), res };
      received.push(r);
      for (const w of [...waiters]) {
        if (w.pred(r)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(r);
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    next(pred: (r: Received) => boolean): Promise<Received> {
      const found = received.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ pred, resolve }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Receiver = Awaited<ReturnType<typeof startHoldingReceiver>>;
const typeOf = (r: Received) => (JSON.parse(r.body) as { type: string }).type;
const verified = (r: Received) =>
  new Webhook(SECRET).verify(
    r.body,
    Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)])),
  ) as { type: string; question: { id: string; status: string; answer: unknown }; callbackUrl?: string };

describe('webhook channel end to end, and the outbox on two instances (redis)', () => {
  let receiver: Receiver;
  let manifest: ManifestSettings;
  const prefix = uniquePrefix();
  const servers: TestServer[] = [];

  beforeAll(async () => {
    receiver = await startHoldingReceiver();
    manifest = await manifestOf(
      [
        'channels:',
        '  bridge:',
        '    plugin: webhook',
        `    config: { url: "${receiver.url}", secretEnv: HOOK_SECRET }`,
      ],
      { HOOK_SECRET: SECRET },
    );
  });
  afterAll(async () => {
    for (const r of receiver?.received ?? []) if (!r.res.writableEnded) r.res.writeHead(200).end();
    for (const s of servers) await s.close();
    await receiver?.close();
  });

  const start = async () => {
    const s = await startServer({
      store: 'redis',
      prefix,
      env: { INTERACTIONS_RATE_LIMIT_PER_MINUTE: '100000' },
      // Short leases, so a stalled instance's item is due again quickly.
      plugins: { manifest, outbox: { pollMs: 50, leaseMs: 400 } },
    });
    servers.push(s);
    return s;
  };

  it('asked → answered through the callback URL → question.resolved, performed by the other instance when the first stalls', async () => {
    const a = await start();
    // question.asked: answered at once (delivery is part of the ask).
    const asking = a.server.inject({
      method: 'POST',
      url: '/graphql',
      headers: { ...auth('agent'), 'content-type': 'application/json' },
      payload: {
        query:
          'mutation { askUser(input: {text: "Deploy?", format: CONFIRM, channel: "bridge"}, holdSeconds: 0) { callbackUrl question { id } } }',
      },
    });
    const asked = await receiver.next((r) => typeOf(r) === 'question.asked');
    asked.res.writeHead(204).end();
    const result = (await asking).json().data.askUser;
    const event = verified(asked);
    expect(event).toMatchObject({ type: 'question.asked', callbackUrl: result.callbackUrl });
    expect(event.question.id).toBe(result.question.id);

    // The receiver answers through the callback URL (CONFIRM: an empty body is yes).
    const ticket = (result.callbackUrl as string).split('/').at(-1)!;
    const cb = await a.server.inject({
      method: 'POST',
      url: `/api/interactions/callback/${ticket}`,
      payload: '',
    });
    expect(cb.json()).toEqual({ data: { status: 'answered' } });

    // Instance A leases question.resolved and stalls: its request is never answered.
    const first = await receiver.next((r) => typeOf(r) === 'question.resolved');
    expect(verified(first).question).toMatchObject({
      id: result.question.id,
      status: 'ANSWERED',
      answer: true,
    });

    // Instance B starts; once A's lease expires it performs the same item, with the same id.
    await start();
    const second = await receiver.next((r) => typeOf(r) === 'question.resolved' && r !== first);
    second.res.writeHead(200).end();
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(verified(second).question).toMatchObject({ id: result.question.id, status: 'ANSWERED' });
    expect((await a.server.store.get(result.question.id))?.answeredBy).toBe('callback');
  });
});
