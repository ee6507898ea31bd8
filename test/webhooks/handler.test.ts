// The webhook outbox handler on its own, against loopback receivers: what each kind of answer
// (or silence) from the receiver becomes — done, retry on the schedule, or drop.
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/engine/logger.ts';
import { createResumeWebhooks } from '../../src/engine/outbox/resume-webhooks.ts';
import { RETRY_WINDOW_MS } from '../../src/engine/outbox/webhook-schedule.ts';
import type { OutboxItem } from '../../src/store/types.ts';
import {
  cancelledRunsQuestion,
  type Receiver,
  startReceiver,
  webhookItemOf,
  webhookSecret,
} from './receiver.ts';

const NOW = 1_700_000_000_000;
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

const itemOf = (over: Partial<OutboxItem> = {}): OutboxItem => webhookItemOf(NOW, over);
const question = cancelledRunsQuestion(NOW);

function handlerFor(url: string, timeoutMs = 10_000) {
  const handle = createResumeWebhooks({
    endpoints: { runs: { url, secret: webhookSecret() } },
    logger: silentLogger,
    clock: () => NOW,
    random: () => 0.5,
    timeoutMs,
  });
  open.push(handle);
  return handle;
}

async function receiver(script: number[]): Promise<Receiver> {
  const r = await startReceiver(script);
  open.push(r);
  return r;
}

describe('the webhook handler', () => {
  it('2xx is done; 410 drops; 500 and a redirect are retried after about 1 s', async () => {
    const r = await receiver([202, 410, 500, 302]);
    const handle = handlerFor(r.url);
    expect(await handle(itemOf(), question, 'runs')).toEqual({ kind: 'done' });
    expect((await handle(itemOf(), question, 'runs')).kind).toBe('drop');
    expect(await handle(itemOf(), question, 'runs')).toMatchObject({ kind: 'retry', at: NOW + 1000 });
    expect(await handle(itemOf({ attempt: 2 }), question, 'runs')).toMatchObject({
      kind: 'retry',
      at: NOW + 30_000,
    });
  });

  it('does not follow a redirect: the place it points to receives nothing', async () => {
    const elsewhere = await receiver([]);
    const redirecting = createServer((req, res) => {
      req.resume();
      res.writeHead(307, { location: elsewhere.url }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    open.push({
      close: () =>
        new Promise<void>((resolve) => {
          redirecting.closeAllConnections();
          redirecting.close(() => resolve());
        }),
    });
    const { port } = redirecting.address() as AddressInfo;
    expect(await handlerFor(`http://127.0.0.1:${port}/hooks`)(itemOf(), question, 'runs')).toMatchObject({
      kind: 'retry',
      reason: 'webhook runs answered 307',
    });
    expect(elsewhere.deliveries).toEqual([]);
  });

  it('a receiver that does not answer within the timeout is retried', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    open.push({
      close: () =>
        new Promise<void>((resolve) => {
          silent.closeAllConnections();
          silent.close(() => resolve());
        }),
    });
    const { port } = silent.address() as AddressInfo;
    const result = await handlerFor(`http://127.0.0.1:${port}/hooks`, 100)(itemOf(), question, 'runs');
    expect(result).toMatchObject({ kind: 'retry', reason: 'webhook runs timed out' });
  });

  it('a 2xx whose body stops arriving is done once the timeout cuts the body off', async () => {
    // The answer's head and a few bytes, then nothing (no length: the body never ends by itself).
    const stalled = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    open.push({
      close: () =>
        new Promise<void>((resolve) => {
          stalled.closeAllConnections();
          stalled.close(() => resolve());
        }),
    });
    const { port } = stalled.address() as AddressInfo;
    const handle = handlerFor(`http://127.0.0.1:${port}/hooks`, 100);
    expect(await handle(itemOf(), question, 'runs')).toEqual({ kind: 'done' });
  });

  it('keeps its connections alive across deliveries, and close() ends them', async () => {
    const r = await receiver([204, 202, 200, 204]);
    const sockets: Socket[] = [];
    r.server.on('connection', (s: Socket) => sockets.push(s));
    const handle = handlerFor(r.url);
    for (let i = 0; i < 4; i++) expect(await handle(itemOf(), question, 'runs')).toEqual({ kind: 'done' });
    expect(r.deliveries).toHaveLength(4);
    // One after the other, yet undici's pool may open a second connection while the first is
    // being handed back; one per delivery would mean none was kept.
    expect(sockets.length).toBeLessThanOrEqual(2);
    const ended = Promise.all(
      sockets.map((s) => (s.destroyed ? null : new Promise((resolve) => s.once('close', resolve)))),
    );
    await handle.close();
    await ended;
    // Closed for good: a later attempt is retried, not sent.
    expect(await handle(itemOf(), question, 'runs')).toMatchObject({ kind: 'retry' });
    expect(r.deliveries).toHaveLength(4);
  });

  it('an unreachable receiver is retried; past the 24-hour window it is dropped', async () => {
    const r = await receiver([]);
    const url = r.url;
    await r.close();
    const handle = handlerFor(url);
    expect((await handle(itemOf(), question, 'runs')).kind).toBe('retry');
    const late = itemOf({ attempt: 12, enqueuedAt: NOW - RETRY_WINDOW_MS + 60_000 });
    expect(await handle(late, question, 'runs')).toMatchObject({ kind: 'drop' });
  });

  it('drops an item whose endpoint or question is gone', async () => {
    const handle = handlerFor('http://127.0.0.1:9/hooks');
    expect((await handle(itemOf(), question, 'elsewhere')).kind).toBe('drop');
    expect((await handle(itemOf(), null, 'runs')).kind).toBe('drop');
  });

  it('refuses a secret that is not a Standard Webhooks secret, without showing it', () => {
    const make = () =>
      createResumeWebhooks({
        endpoints: { runs: { url: 'http://127.0.0.1:9/', secret: 'whsec_!!!not-base64' } },
        logger: silentLogger,
      });
    expect(make).toThrow(/^webhook runs: the secret is not a Standard Webhooks secret/);
    expect(make).not.toThrow(/not-base64/);
  });
});
