// An answer event's `origin` (API.md §9, §17) on both stores: the engine compares it with the
// question's receipt at the channel, and an event from anywhere else changes nothing, is answered
// `not-found` and is written to the audit log as CALLBACK_REFUSED, even a click the store could
// claim in one step (`answerFor`). An event from the receipt's place answers as before.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { channelPort } from '../../src/app/channel-port.ts';
import type { ChannelSet } from '../../src/channels/channel-set.ts';
import type {
  ChannelInstance,
  ClaimOutcome,
  InboundEvent,
  InboundRequest,
} from '../../src/channels/types.ts';
import { allEntries } from '../store/audit-contract.ts';
import { AGENT, type EngineSet, OPS, type StoreKind, startEngines } from '../support/engines.ts';

const outcomes: ClaimOutcome[] = [];
let nextEvent: InboundEvent = { kind: 'ignore', response: { status: 204 } };

/** A chat whose messages go to a room; a click names the question by id and says its room. */
const chat: ChannelInstance = {
  needsRecipient: true,
  async deliver(q) {
    return { room: q.recipient ?? '', message: 'm1' };
  },
  async inbound() {
    return nextEvent;
  },
};

function click(questionId: string, room: string): InboundEvent {
  return {
    kind: 'answer',
    question: { id: questionId },
    by: 'u1',
    answer: (q) => (q.format === 'CONFIRM' ? true : undefined),
    answerFor: { format: 'CONFIRM', value: true },
    origin: { room },
    respond: (o) => {
      outcomes.push(o);
      return { status: 200 };
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
  describe(`channel event origin (${kind})`, () => {
    let set: EngineSet;

    beforeEach(async () => {
      outcomes.length = 0;
      const channels: ChannelSet = {
        names: () => new Set(['chat']),
        get: (n) => (n === 'chat' ? chat : undefined),
        close: async () => {},
      };
      set = await startEngines(kind, 1, {}, { channels: channelPort(channels, { chat: 'chat' }) });
    });
    afterEach(() => set.close());

    it('a click from another room: not-found, still pending, CALLBACK_REFUSED; from the room, answered', async () => {
      const engine = set.engines[0]!;
      const { question } = await engine.ask(
        AGENT,
        { text: 'Ship?', format: 'CONFIRM', channel: 'chat', recipient: 'room-a' },
        { holdSeconds: 0 },
      );
      nextEvent = click(question.id, 'room-b');
      expect(await engine.channelInbound('chat', request())).toEqual({
        kind: 'response',
        response: { status: 200 },
      });
      expect(outcomes).toEqual([{ kind: 'not-found' }]);
      expect((await engine.get(OPS, question.id))?.status).toBe('PENDING');
      const refused = (await allEntries(set.stores[0]!)).filter((e) => e.type === 'CALLBACK_REFUSED');
      expect(refused).toEqual([
        expect.objectContaining({
          questionId: question.id,
          actor: 'chat:u1',
          via: 'channel:chat',
          detail: { channel: 'chat', reason: 'room' },
        }),
      ]);

      nextEvent = click(question.id, 'room-a');
      await engine.channelInbound('chat', request());
      expect(outcomes.at(-1)).toMatchObject({ kind: 'recorded' });
      expect(await engine.get(OPS, question.id)).toMatchObject({ answer: true, answeredBy: 'chat:u1' });
    });
  });
}
