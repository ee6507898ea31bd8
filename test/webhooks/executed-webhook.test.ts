// An approval used through the SDK against a whole server on the private Redis (API.md §23):
// runApproved consumes, runs the function with the approved arguments and reports; a second
// run is refused before the function runs; a failing function is reported FAILED and its error
// rethrown; and a question with `notify` also sends `question.executed` when the report arrives.
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AlreadyAnsweredError,
  createInteractionsClient,
  type InteractionsClient,
  verifyReceipt,
  verifyWebhook,
} from '../../src/client/index.ts';
import { uniquePrefix } from '../support/fixtures.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';
import { type Delivery, startReceiver, webhookSecret } from './receiver.ts';

const SECRET = webhookSecret();
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

function client(t: TestServer, who: keyof typeof KEYS = 'agent'): InteractionsClient {
  return createInteractionsClient({ url: t.url!, apiKey: KEYS[who] });
}

/** Checked with the reference library (and, below, with the SDK's verifyWebhook). */
function verified(d: Delivery) {
  return new Webhook(SECRET).verify(d.body, d.headers as Record<string, string>) as {
    type: string;
    question: { id: string };
    execution?: Record<string, unknown> | null;
  };
}

describe('using an approval through the SDK', () => {
  it('runs once, reports, and sends question.executed after question.resolved', async () => {
    const r = await startReceiver([]);
    open.push(r);
    const t = await startServer({
      store: 'redis',
      prefix: uniquePrefix(),
      plugins: {
        webhookEndpoints: { runs: { url: r.url, secret: SECRET } },
        outbox: { pollMs: 20, webhookScheduleScale: 0.001 },
      },
    });
    open.push(t);
    await t.listen();
    const agent = client(t);
    const asked = await agent.ask({
      text: 'Refund ch_1?',
      format: 'APPROVAL',
      notify: 'runs',
      action: { name: 'payments.refund', arguments: { id: 'ch_1', amount: 100 } },
    });
    await client(t, 'ops').answer(asked.question.id, { decision: 'APPROVED' });
    const question = await agent.question(asked.question.id);

    const calls: unknown[] = [];
    const result = await agent.runApproved(question!, async (args) => {
      calls.push(args);
      return 'refunded';
    });
    expect(result).toBe('refunded');
    expect(calls).toEqual([{ id: 'ch_1', amount: 100 }]);
    const after = await agent.question(asked.question.id);
    expect(after?.status).toBe('ANSWERED');
    expect(after?.execution).toMatchObject({ consumedBy: 'agent', outcome: 'SUCCEEDED' });

    // Used: a second run is refused before the function runs.
    await expect(agent.runApproved(question!, async () => calls.push('again'))).rejects.toBeInstanceOf(
      AlreadyAnsweredError,
    );
    expect(calls).toHaveLength(1);

    const got = await r.received(2);
    const events = got.map(verified);
    expect(events.map((e) => e.type).sort()).toEqual(['question.executed', 'question.resolved']);
    const executed = events.find((e) => e.type === 'question.executed')!;
    expect(executed.question.id).toBe(asked.question.id);
    expect(executed.execution).toMatchObject({ consumedBy: 'agent', outcome: 'SUCCEEDED' });
    // The SDK's verifyWebhook knows question.executed too.
    const raw = got.find((d) => d.body.includes('"question.executed"'))!;
    const bySdk = verifyWebhook(raw.headers, raw.body, SECRET);
    expect(bySdk.type).toBe('question.executed');
    if (bySdk.type === 'question.executed') expect(bySdk.execution.outcome).toBe('SUCCEEDED');
  });

  it('verifyReceipt with consume: true checks the receipt, then uses the approval once', async () => {
    const t = await startServer({ store: 'redis', prefix: uniquePrefix() });
    open.push(t);
    await t.listen();
    const agent = client(t);
    const action = { name: 'payments.refund', arguments: { id: 'ch_3' } };
    const asked = await agent.ask({ text: 'Refund ch_3?', format: 'APPROVAL', action });
    await client(t, 'ops').answer(asked.question.id, { decision: 'APPROVED' });
    const receipt = (await agent.receipt(asked.question.id))!;
    const jwksUrl = `${t.url}/.well-known/jwks.json`;
    const issuer = t.config.publicBaseUrl!;
    // Without a client there is nothing to consume with.
    await expect(verifyReceipt(receipt, { jwksUrl, issuer, consume: true })).rejects.toBeInstanceOf(
      TypeError,
    );
    expect((await agent.question(asked.question.id))?.execution).toBeNull();
    const claims = await verifyReceipt(receipt, { jwksUrl, issuer, action, consume: true, client: agent });
    expect(claims.sub).toBe(asked.question.id);
    expect((await agent.question(asked.question.id))?.execution).toMatchObject({ consumedBy: 'agent' });
    await expect(
      verifyReceipt(receipt, { jwksUrl, issuer, consume: true, client: agent }),
    ).rejects.toBeInstanceOf(AlreadyAnsweredError);
  });

  it('reports FAILED and rethrows when the function throws', async () => {
    const t = await startServer({ store: 'memory' });
    open.push(t);
    await t.listen();
    const agent = client(t);
    const asked = await agent.ask({
      text: 'Refund ch_2?',
      format: 'APPROVAL',
      action: { name: 'payments.refund', arguments: { id: 'ch_2' } },
    });
    await client(t, 'ops').answer(asked.question.id, { decision: 'APPROVED' });
    const boom = new RangeError('the card network said no');
    await expect(
      agent.runApproved(asked.question, () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    const after = await agent.question(asked.question.id);
    expect(after?.execution).toMatchObject({ outcome: 'FAILED' });
  });
});
