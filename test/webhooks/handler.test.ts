// The webhook outbox handler on its own, against loopback receivers: what each kind of answer
// (or silence) from the receiver becomes — done, retry on the schedule, or drop.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/engine/logger.ts';
import { createResumeWebhooks } from '../../src/engine/resume-webhooks.ts';
import { RETRY_WINDOW_MS } from '../../src/engine/webhook-schedule.ts';
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
  return createResumeWebhooks({
    endpoints: { runs: { url, secret: webhookSecret() } },
    logger: silentLogger,
    clock: () => NOW,
    random: () => 0.5,
    timeoutMs,
  });
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
