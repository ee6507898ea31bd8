// The engine side of channels, on both stores, with a small SMS-like plugin: recipient rules at
// ask time, receipts, and the inbound order — questions named by id, by `ref` and by "latest
// for this sender", only within their own channel; invalid answers, provider retries, rejects.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { channelPort } from '../../src/app/channel-port.ts';
import type { ChannelSet } from '../../src/channels/channel-set.ts';
import type {
  ChannelInstance,
  ClaimOutcome,
  InboundEvent,
  InboundRequest,
  QuestionRef,
} from '../../src/channels/types.ts';
import { AGENT, type EngineSet, OPS, type StoreKind, startEngines } from '../support/engines.ts';

const outcomes: ClaimOutcome[] = [];
let nextEvent: InboundEvent = { kind: 'ignore', response: { status: 204 } };
let seq = 0;

/** Replies name a question as the test says; the answer is the request body as text. */
function sms(defaultRecipient?: string): ChannelInstance {
  return {
    ...(defaultRecipient ? { defaultRecipient } : {}),
    needsRecipient: true,
    checkRecipient: (r) => (/^\+\d{6,15}$/.test(r) ? null : 'must be an E.164 number'),
    async deliver(q) {
      seq++;
      return { ref: `K${seq}`, recipient: q.recipient ?? undefined, sid: `SM${seq}` };
    },
    async inbound() {
      return nextEvent;
    },
  };
}

function answerEvent(question: QuestionRef, value: unknown, by = '+15550001'): InboundEvent {
  return {
    kind: 'answer',
    question,
    by,
    answer: () => value,
    respond: (o) => {
      outcomes.push(o);
      return { status: 200, headers: { 'content-type': 'text/xml' }, body: `<Response>${o.kind}</Response>` };
    },
  };
}

const request = (): InboundRequest => ({
  rawBody: Buffer.from('x'),
  headers: {},
  url: 'https://t/x',
  now: Date.now(),
});

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`channel inbound (${kind})`, () => {
    let set: EngineSet;
    const instances: Record<string, ChannelInstance> = { sms: sms(), 'sms-b': sms('+15559999') };

    beforeEach(async () => {
      outcomes.length = 0;
      const channelSet: ChannelSet = {
        names: () => new Set(Object.keys(instances)),
        get: (n) => instances[n],
        close: async () => {},
      };
      set = await startEngines(
        kind,
        1,
        {},
        { channels: channelPort(channelSet, { sms: 'sms', 'sms-b': 'sms' }) },
      );
    });
    afterEach(() => set.close());

    const engine = () => set.engines[0]!;
    const ask = async (channel: string, extra: Record<string, unknown> = {}) =>
      (await engine().ask(AGENT, { text: 'Reply?', format: 'TEXT', channel, ...extra }, { holdSeconds: 0 }))
        .question;

    it('recipient rules: needed, checked, or the default applied', async () => {
      await expect(ask('sms')).rejects.toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.recipient' });
      await expect(ask('sms', { recipient: 'alice' })).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'input.recipient',
        message: 'recipient must be an E.164 number',
      });
      expect((await ask('sms-b')).recipient).toBe('+15559999');
      expect((await engine().pending(OPS)).length).toBe(1);
    });

    it('by ref, and by the latest pending question for the sender, within the channel only', async () => {
      const older = await ask('sms', { recipient: '+15550001' });
      const newer = await ask('sms', { recipient: '+15550001' });
      const saved = await set.stores[0]!.deliveries.get(older.id);
      const ref = (saved!.delivery as { ref: string }).ref;
      // The same ref in another channel names nothing.
      nextEvent = answerEvent({ ref }, 'from b');
      expect(await engine().channelInbound('sms-b', request())).toMatchObject({ kind: 'response' });
      expect(outcomes.at(-1)).toEqual({ kind: 'not-found' });

      nextEvent = answerEvent({ ref }, 'by ref');
      const r = await engine().channelInbound('sms', request());
      expect(r).toEqual({
        kind: 'response',
        response: {
          status: 200,
          headers: { 'content-type': 'text/xml' },
          body: '<Response>recorded</Response>',
        },
      });
      expect(await engine().get(OPS, older.id)).toMatchObject({
        answer: 'by ref',
        answeredBy: 'sms:+15550001',
      });

      nextEvent = answerEvent({ latestFor: '+15550001' }, 'latest');
      await engine().channelInbound('sms', request());
      expect(await engine().get(OPS, newer.id)).toMatchObject({ status: 'ANSWERED', answer: 'latest' });
      // Nothing pending for that sender any more.
      nextEvent = answerEvent({ latestFor: '+15550001' }, 'late');
      await engine().channelInbound('sms', request());
      expect(outcomes.at(-1)).toEqual({ kind: 'not-found' });
    });

    it('a provider retry is duplicate; another sender or answer is closed; invalid answers change nothing', async () => {
      const q = await ask('sms', { recipient: '+15550001' });
      nextEvent = answerEvent({ id: q.id }, '   ');
      await engine().channelInbound('sms', request());
      expect(outcomes.at(-1)).toMatchObject({ kind: 'invalid', message: 'answer must not be blank' });
      nextEvent = answerEvent({ id: q.id }, undefined);
      await engine().channelInbound('sms', request());
      expect(outcomes.at(-1)).toMatchObject({ kind: 'invalid' });
      expect((await engine().get(OPS, q.id))?.status).toBe('PENDING');

      nextEvent = answerEvent({ id: q.id }, 'yes');
      await engine().channelInbound('sms', request());
      expect(outcomes.at(-1)).toMatchObject({ kind: 'recorded', delivery: { sid: expect.any(String) } });
      await engine().channelInbound('sms', request());
      expect(outcomes.at(-1)).toMatchObject({ kind: 'duplicate' });
      nextEvent = answerEvent({ id: q.id }, 'no');
      await engine().channelInbound('sms', request());
      expect(outcomes.at(-1)).toMatchObject({ kind: 'closed' });
      nextEvent = answerEvent({ id: q.id }, 'yes', '+15550002');
      await engine().channelInbound('sms', request());
      expect(outcomes.at(-1)).toMatchObject({ kind: 'closed' });
      expect(await engine().get(OPS, q.id)).toMatchObject({ answer: 'yes', answeredBy: 'sms:+15550001' });
    });

    it('a sensitive question: a second reply from the same sender is closed, never "recorded" (its answer is not kept to compare)', async () => {
      const q = await ask('sms', { recipient: '+15550001', sensitive: true });
      nextEvent = answerEvent({ id: q.id }, '1234');
      await engine().channelInbound('sms', request());
      expect(outcomes.at(-1)).toMatchObject({ kind: 'recorded' });
      nextEvent = answerEvent({ id: q.id }, '9999');
      await engine().channelInbound('sms', request());
      expect(outcomes.at(-1)).toMatchObject({ kind: 'closed' });
    });

    it('reject, ignore and unknown channels', async () => {
      nextEvent = { kind: 'reject', status: 401, reason: 'bad signature' };
      expect(await engine().channelInbound('sms', request())).toEqual({
        kind: 'refused',
        status: 401,
        reason: 'bad signature',
      });
      nextEvent = { kind: 'ignore', response: { status: 204 } };
      expect(await engine().channelInbound('sms', request())).toEqual({
        kind: 'response',
        response: { status: 204 },
      });
      expect(await engine().channelInbound('nope', request())).toEqual({ kind: 'not-found' });
      expect(await engine().channelInbound('__proto__', request())).toEqual({ kind: 'not-found' });
    });
  });
}
