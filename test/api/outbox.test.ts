// The outbox through whole servers, on both stores: a follow-up given up becomes a dead letter
// that admins list (`tai outbox dead`, the outboxDeadLetters query) and the metrics count, never
// showing an answer; other roles are refused; and INTERACTIONS_OUTBOX_MAX refuses new asks with
// follow-ups at the cap (LIMIT_EXCEEDED, retryable) while resolutions still enqueue past it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createInteractionsClient,
  type InteractionsClient,
  LimitExceededError,
} from '../../src/client/index.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { KEYS, startServer, type TestServer, type Who } from '../support/server.ts';
import { type Receiver, startReceiver, webhookSecret } from '../webhooks/receiver.ts';

const SECRET = webhookSecret();

describe.each(['memory', 'redis'] as const)('the outbox through a server (%s store)', (store) => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });

  async function serve(r: Receiver, env: Record<string, string> = {}): Promise<TestServer & { url: string }> {
    const t = await startServer({
      store,
      env,
      plugins: {
        webhookEndpoints: { runs: { url: r.url, secret: SECRET } },
        outbox: { pollMs: 20 },
      },
    });
    open.push(t);
    await t.listen();
    return t as TestServer & { url: string };
  }

  async function receiver(script: number[]): Promise<Receiver> {
    const r = await startReceiver(script);
    open.push(r);
    return r;
  }

  const client = (t: TestServer, who: Who): InteractionsClient =>
    createInteractionsClient({ url: t.url!, apiKey: KEYS[who] });

  it('a webhook answered 410 becomes a dead letter: listed by `tai outbox dead` for admins, counted, no answer shown', async () => {
    const r = await receiver([410]);
    const t = await serve(r);
    const asked = await client(t, 'agent').ask({ text: 'Which tag?', format: 'TEXT', notify: 'runs' });
    await client(t, 'ops').answer(asked.question.id, 'tag-hunter2');
    await r.received(1);
    const admin = client(t, 'admin');
    await vi.waitFor(async () => expect((await admin.outboxDeadLetters()).totalCount).toBe(1), {
      timeout: 10_000,
      interval: 20,
    });

    const env = { TAI_URL: t.url, TAI_API_KEY: KEYS.admin };
    const text = await runCliInProcess(['outbox', 'dead'], { env });
    expect(text.code).toBe(0);
    const id = `${asked.question.id}:webhook:runs`;
    expect(text.stdout).toMatch(/^ID\s+KIND\s+TARGET\s+ATTEMPTS\s+DROPPED\s+LAST ERROR\n/);
    expect(text.stdout).toContain(id);
    expect(text.stdout).toMatch(/webhook\s+runs\s+1\s+/);
    expect(text.stdout).toContain('webhook runs answered 410 Gone');
    expect(text.stdout).toContain('1 of 1 dead letter.');
    expect(text.stdout).not.toContain('hunter2');

    const json = await runCliInProcess(['--json', 'outbox', 'dead', '--first', '1'], { env });
    expect(json.code).toBe(0);
    const listed = JSON.parse(json.stdout) as { totalCount: number; items: Record<string, unknown>[] };
    expect(listed.totalCount).toBe(1);
    expect(listed.items[0]).toMatchObject({
      id,
      questionId: asked.question.id,
      kind: 'webhook',
      target: 'runs',
      attempts: 1,
      lastError: 'webhook runs answered 410 Gone',
    });
    expect(Object.keys(listed.items[0]!).sort()).toEqual(
      ['attempts', 'droppedAt', 'enqueuedAt', 'id', 'kind', 'lastError', 'questionId', 'target'].sort(),
    );
    expect(json.stdout).not.toContain('hunter2');

    const metrics = (await t.server.metrics.render()).body;
    expect(metrics).toContain('tai_interactions_outbox_dead_letters_total{kind="webhook"} 1');
    expect(metrics).toContain('tai_interactions_outbox_dead_letters 1');
    expect(metrics).toMatch(/tai_interactions_outbox_items \d+/);
    expect(metrics).toMatch(/tai_interactions_outbox_in_flight \d+/);
  });

  it('only admins read dead letters; --first is checked at 1000 and one past', async () => {
    const t = await serve(await receiver([]));
    const ops = await runCliInProcess(['outbox', 'dead'], { env: { TAI_URL: t.url, TAI_API_KEY: KEYS.ops } });
    expect(ops.code).toBe(1);
    expect(ops.stderr).toMatch(/^error: FORBIDDEN: .*\(the outbox's dead letters need the admin role\)\n$/);
    await expect(client(t, 'agent').outboxDeadLetters()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const env = { TAI_URL: t.url, TAI_API_KEY: KEYS.admin };
    const max = await runCliInProcess(['outbox', 'dead', '--first', '1000'], { env });
    expect(max).toMatchObject({ code: 0, stdout: 'No dead letters.\n' });
    expect((await runCliInProcess(['outbox', 'dead', '--first', '1001'], { env })).code).toBe(2);
    await expect(client(t, 'admin').outboxDeadLetters(1001)).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'first',
    });
  });

  it('INTERACTIONS_OUTBOX_MAX: at the cap an ask with notify is refused (LIMIT_EXCEEDED); a plain ask and resolutions go on', async () => {
    // Every attempt fails: the items stay in the outbox for the whole test.
    const r = await receiver(Array.from({ length: 100 }, () => 503));
    const t = await serve(r, { INTERACTIONS_OUTBOX_MAX: '1' });
    const agent = client(t, 'agent');
    const ops = client(t, 'ops');
    // Below the cap (empty): both are taken.
    const first = await agent.ask({ text: 'One?', format: 'CONFIRM', notify: 'runs' });
    const second = await agent.ask({ text: 'Two?', format: 'CONFIRM', notify: 'runs' });
    await ops.answer(first.question.id, true);
    // At the cap (1 item): refused, retryable, nothing stored.
    const refused = await agent
      .ask({ text: 'Three?', format: 'CONFIRM', notify: 'runs' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LimitExceededError);
    expect((refused as Error).message).toContain('INTERACTIONS_OUTBOX_MAX = 1');
    expect((await ops.questionsPage({ filter: { status: ['PENDING'] } })).totalCount).toBe(1);
    // A question without follow-ups is not affected.
    expect((await agent.ask({ text: 'Plain?', format: 'CONFIRM' })).question.status).toBe('PENDING');
    // One asked before the outbox filled still resolves, and its follow-up is kept: one past the cap.
    expect((await ops.answer(second.question.id, true)).status).toBe('ANSWERED');
    const metrics = (await t.server.metrics.render()).body;
    expect(metrics).toContain('tai_interactions_outbox_full_total 1');
    expect(metrics).toContain('tai_interactions_outbox_items 2');
  });
});
