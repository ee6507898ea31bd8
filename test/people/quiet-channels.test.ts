// Quiet hours and digests on channels (API.md §22), on both stores, against the loopback fake of
// the Telegram Bot API and on a clock the test turns (nothing sleeps): a question to a recipient
// linked to a person in quiet hours is not sent but waits in their inbox; when the hold ends its
// `quiet:` outbox item sends it, and a button press in Telegram answers it. An unlinked
// recipient is sent to at once; a question answered while held is never sent (and its message
// edit finds nothing to edit, without retrying); a failed send is retried while the question
// waits; an escalation step still fires; two instances send a held question once.
// Outbox items are leased and settled as the worker does, by each instance's own handlers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelPort } from '../../src/app/channel-port.ts';
import { createChannelSet } from '../../src/channels/channel-set.ts';
import { telegramPlugin } from '../../src/channels/telegram/plugin.ts';
import type { Principal } from '../../src/domain/principal.ts';
import type { QuestionRecord } from '../../src/domain/question.ts';
import { createChannelFollowUp } from '../../src/engine/deliveries/follow-up.ts';
import { silentLogger } from '../../src/engine/logger.ts';
import { createEscalationSteps } from '../../src/engine/outbox/escalation-steps.ts';
import { createQuietDelivery } from '../../src/engine/outbox/quiet-delivery.ts';
import { type FollowUpHandler, targetParts } from '../../src/engine/outbox/worker-options.ts';
import { createChannelLinks } from '../../src/engine/people/channel-links.ts';
import { createChannelHold } from '../../src/engine/people/quiet-channels.ts';
import { type ChannelPort, NO_OBSERVER } from '../../src/engine/ports.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { AGENT, type EngineSet, SETTINGS, type StoreKind, startEngines } from '../support/engines.ts';
import {
  buttonPress,
  type FakeTelegram,
  startFakeTelegram,
  telegramRequest,
} from '../support/fakes/telegram.ts';

const TOKEN = '123456:quiet-telegram';
const SECRET = 'quiet_telegram-secret_01';
const LINKED = 5150;
const UNLINKED = 6160;
const ADA: Principal & { name: string } = {
  id: 'oidc:ada',
  name: 'Ada',
  roles: ['operator'],
  restricted: true,
};
const QUIET = { quietHours: { from: '22:00', to: '07:00', timeZone: 'UTC' }, digest: 'NONE' };
/** A failed send is tried again this long after. */
const BACKOFF_MS = 60_000;

let tg: FakeTelegram;
beforeAll(async () => {
  tg = await startFakeTelegram(TOKEN);
});
afterAll(() => tg.close());

/** The messages Telegram accepted that carry `text` (a failed call is recorded without a result). */
const accepted = (text: string) =>
  tg.callsTo('sendMessage').filter((c) => c.result !== undefined && String(c.args.text).includes(text));

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`quiet hours and digests on channels (${kind})`, () => {
    // 23:00 UTC, inside Ada's 22:00–07:00 (a future date: Redis expires what is kept by real time).
    let now = Date.UTC(2027, 0, 5, 23, 0);
    const clock = () => now;
    let set: EngineSet;
    let channels: ChannelPort;
    let closeChannels: () => Promise<void>;
    const deliveries: string[] = [];
    // One fake serves both stores: each store's questions say which store asked them.
    const sentWith = (text: string) => accepted(`${kind}: ${text}`);
    let handlers: Record<string, FollowUpHandler>[];

    function handlersOf(store: QuestionStore): Record<string, FollowUpHandler> {
      return {
        quiet: createQuietDelivery({
          store,
          channels,
          logger: silentLogger,
          observer: {
            ...NO_OBSERVER,
            channelDelivery: (channel, result) => deliveries.push(`${channel}:${result}`),
          },
          publicBaseUrl: SETTINGS.publicBaseUrl,
          clock,
          backoffMs: () => BACKOFF_MS,
        }),
        channel: createChannelFollowUp({ store, channels, clock, backoffMs: () => BACKOFF_MS }),
        escalate: createEscalationSteps({
          store,
          channels,
          logger: silentLogger,
          clock,
          publicBaseUrl: SETTINGS.publicBaseUrl,
        }),
      };
    }

    beforeAll(async () => {
      const channelSet = createChannelSet(
        {
          'ops-tg': {
            config: { botTokenEnv: 'T', webhookSecretEnv: 'S', apiRoot: tg.apiRoot },
            implementation: telegramPlugin,
          },
        },
        {
          env: { T: TOKEN, S: SECRET },
          logger: { info() {}, warn() {}, error() {} },
          publicBaseUrl: SETTINGS.publicBaseUrl,
        },
      );
      channels = channelPort(channelSet, { 'ops-tg': 'telegram' });
      closeChannels = () => channelSet.close();
      // Two instances on one store (on Redis: one prefix), each with its own handlers.
      set = await startEngines(kind, 2, { answerTimeoutSeconds: 7 * 86_400 }, { clock, channels });
      handlers = set.stores.map(handlersOf);
      const links = createChannelLinks(set.stores[0]!.people, clock);
      expect(await links.confirm(ADA.id, 'ops-tg', String(LINKED), 'ops-tg:777', 'channel:ops-tg')).toBe(
        'linked',
      );
      await set.engines[0]!.presence.prefs.set(ADA, QUIET);
    });
    afterAll(async () => {
      await set.close();
      await closeChannels();
    });

    const ask = async (text: string, over: Record<string, unknown> = {}): Promise<QuestionRecord> => {
      const r = await set.engines[0]!.ask(
        AGENT,
        {
          text: `${kind}: ${text}`,
          format: 'CONFIRM',
          channel: 'ops-tg',
          recipient: String(LINKED),
          audience: ADA.id,
          ...over,
        },
        { holdSeconds: 0 },
      );
      return r.question;
    };

    /**
     * Moves escalation steps that are due into the outbox, then leases every due item on
     * instance `i` and performs it as the worker would: `<kind>:<result>` of each, by question.
     */
    async function runDue(i = 0): Promise<{ id: string; r: string }[]> {
      const store = set.stores[i]!;
      await store.escalateDue(now, 100);
      const out: { id: string; r: string }[] = [];
      for (const item of await store.outbox.leaseDue(now, 50, 60_000, `worker-${i}`)) {
        const { kind: k, name } = targetParts(item.target);
        const handler = handlers[i]![k];
        if (!handler) continue;
        const r = await handler(item, await store.get(item.questionId), name);
        out.push({ id: item.questionId, r: `${k}:${r.kind}` });
        if (r.kind === 'done') await store.outbox.ack(item.id, item.leaseToken);
        else if (r.kind === 'retry') await store.outbox.retry(item.id, item.leaseToken, r.at);
        else
          await store.outbox.drop(item.id, item.leaseToken, {
            reason: r.reason,
            now,
            retentionMs: 3_600_000,
          });
      }
      return out;
    }
    const of = (runs: { id: string; r: string }[], id: string): string[] =>
      runs.filter((x) => x.id === id).map((x) => x.r);

    it('holds the question during quiet hours, sends it when they end, and a press in Telegram answers it', async () => {
      const q = await ask('Deploy A?');
      expect(q.status).toBe('PENDING');
      expect(sentWith('Deploy A?')).toEqual([]);
      // It waits in Ada's inbox meanwhile, and in the `questions` listing GraphQL serves.
      expect((await set.engines[1]!.pending(ADA)).map((p) => p.id)).toContain(q.id);
      const page = await set.engines[1]!.list(ADA, { status: ['PENDING'], channel: 'ops-tg' }, { first: 50 });
      expect(page.edges.map((e) => e.node.id)).toContain(q.id);
      expect(of(await runDue(), q.id)).toEqual(['quiet:retry']);
      now = Date.UTC(2027, 0, 6, 6, 59);
      expect(of(await runDue(), q.id)).toEqual([]);
      expect(sentWith('Deploy A?')).toEqual([]);
      now = Date.UTC(2027, 0, 6, 7, 0);
      expect(of(await runDue(), q.id)).toEqual(['quiet:done']);
      const [send] = sentWith('Deploy A?');
      expect(send?.args.chat_id).toBe(String(LINKED));
      expect(deliveries.at(-1)).toBe('ops-tg:delivered');
      const messageId = (send!.result as { message_id: number }).message_id;
      const r = await set.engines[0]!.channelInbound('ops-tg', {
        ...telegramRequest(SECRET, buttonPress(LINKED, messageId, 'tai:1')),
        now,
      });
      expect(r.kind).not.toBe('refused');
      expect(await set.stores[0]!.get(q.id)).toMatchObject({
        status: 'ANSWERED',
        answer: true,
        answeredBy: 'ops-tg:777',
      });
      // The message it was sent as is edited with the answer.
      expect(of(await runDue(), q.id)).toEqual(['channel:done']);
      expect(tg.callsTo('editMessageText').some((c) => c.args.message_id === messageId)).toBe(true);
    });

    it('an HOURLY digest holds it to the next full hour', async () => {
      await set.engines[0]!.presence.prefs.set(ADA, { quietHours: null, digest: 'HOURLY' });
      now = Date.UTC(2027, 0, 6, 10, 15);
      const q = await ask('Deploy hourly?');
      expect(of(await runDue(), q.id)).toEqual(['quiet:retry']);
      now = Date.UTC(2027, 0, 6, 10, 59);
      expect(of(await runDue(), q.id)).toEqual([]);
      expect(sentWith('Deploy hourly?')).toEqual([]);
      now = Date.UTC(2027, 0, 6, 11, 0);
      expect(of(await runDue(), q.id)).toEqual(['quiet:done']);
      expect(sentWith('Deploy hourly?')).toHaveLength(1);
      await set.engines[0]!.presence.prefs.set(ADA, QUIET);
    });

    it('an unlinked recipient is sent to at once, even at night', async () => {
      now = Date.UTC(2027, 0, 6, 23, 0);
      const q = await ask('Deploy unlinked?', { recipient: String(UNLINKED) });
      expect(sentWith('Deploy unlinked?')).toHaveLength(1);
      expect(of(await runDue(), q.id)).toEqual([]);
    });

    it('a question answered in the inbox while held is never sent, and its edit gives up on nothing', async () => {
      now = Date.UTC(2027, 0, 6, 23, 30);
      const q = await ask('Deploy answered?');
      expect(of(await runDue(), q.id)).toEqual(['quiet:retry']);
      await set.engines[0]!.answer(ADA, q.id, true);
      // No message to edit: done at once, not retried until a dead letter.
      expect(of(await runDue(), q.id)).toEqual(['channel:done']);
      now = Date.UTC(2027, 0, 7, 7, 0);
      expect(of(await runDue(), q.id)).toEqual(['quiet:done']);
      expect(sentWith('Deploy answered?')).toEqual([]);
      const dead = await set.stores[0]!.outbox.deadLetters(now, 100);
      expect(dead.filter((d) => d.questionId === q.id)).toEqual([]);
    });

    it('a send that fails at release is retried while the question waits', async () => {
      now = Date.UTC(2027, 0, 7, 23, 0);
      const q = await ask('Deploy flaky?');
      expect(of(await runDue(), q.id)).toEqual(['quiet:retry']);
      now = Date.UTC(2027, 0, 8, 7, 0);
      tg.failNext('sendMessage', 502, 'Bad Gateway');
      expect(of(await runDue(), q.id)).toEqual(['quiet:retry']);
      expect(deliveries.at(-1)).toBe('ops-tg:failed');
      expect((await set.stores[0]!.get(q.id))?.status).toBe('PENDING');
      expect(sentWith('Deploy flaky?')).toHaveLength(0);
      now += BACKOFF_MS;
      expect(of(await runDue(), q.id)).toEqual(['quiet:done']);
      expect(sentWith('Deploy flaky?')).toHaveLength(1);
    });

    it('an escalation step still fires during quiet hours (a REMIND has no message to remind of yet)', async () => {
      now = Date.UTC(2027, 0, 8, 23, 0);
      const q = await ask('Deploy escalated?', { escalation: [{ afterSeconds: 60, action: 'REMIND' }] });
      expect(of(await runDue(), q.id)).toEqual(['quiet:retry']);
      now += 60_000;
      expect(of(await runDue(), q.id)).toEqual(['escalate:done']);
      expect((await set.stores[0]!.escalations(q.id)).has(0)).toBe(true);
      expect(sentWith('Deploy escalated?')).toEqual([]);
    });

    it('two instances send a held question once', async () => {
      now = Date.UTC(2027, 0, 9, 23, 0);
      const q = await ask('Deploy once?');
      expect(of(await runDue(1), q.id)).toEqual(['quiet:retry']);
      now = Date.UTC(2027, 0, 10, 7, 0);
      const [a, b] = await Promise.all([runDue(0), runDue(1)]);
      expect([...of(a!, q.id), ...of(b!, q.id)]).toEqual(['quiet:done']);
      expect(sentWith('Deploy once?')).toHaveLength(1);
    });

    it('a link question (linkFor) is never held', async () => {
      now = Date.UTC(2027, 0, 10, 23, 0);
      const hold = createChannelHold({
        links: createChannelLinks(set.stores[0]!.people, clock),
        prefsOf: (id) => set.engines[0]!.presence.prefs.get(id),
        people: set.stores[0]!.people,
        outbox: set.stores[0]!.outbox,
        clock,
        addressesPeople: (name) => name === 'ops-tg',
      });
      const q = await ask('Deploy later?', { recipient: String(UNLINKED) });
      const held = { ...q, recipient: String(LINKED) };
      expect(await hold({ ...held, linkFor: ADA.id })).toBe(false);
      // A channel that addresses nobody (a webhook) is not looked up, even for a linked recipient.
      await createChannelLinks(set.stores[0]!.people, clock).confirm(
        ADA.id,
        'hook',
        String(LINKED),
        'x',
        'api',
      );
      expect(await hold({ ...held, channel: 'hook' })).toBe(false);
      expect(await hold(held)).toBe(true);
    });
  });
}
