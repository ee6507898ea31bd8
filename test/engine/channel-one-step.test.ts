// The one-step channel answer (an event's `answerFor`, API.md §9) saves a round trip and changes
// nothing else: on both stores, for questions of every kind a channel door meets (formats, own
// channel or REROUTE place or neither, sensitive, quorum, pending or closed or past the deadline),
// a click with `answerFor` (a requester's own "Reject" included, §22) gets the same outcome, leaves the same record and writes the same audit
// entries as the same click without it. A plain click is one store call.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { channelPort } from '../../src/app/channel-port.ts';
import type { ChannelSet } from '../../src/channels/channel-set.ts';
import type {
  ChannelInstance,
  ClaimOutcome,
  InboundEvent,
  InboundRequest,
  JsonValue,
} from '../../src/channels/types.ts';
import type { AnswerFormat, QuestionSpec } from '../../src/domain/question.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { allEntries } from '../store/audit-contract.ts';
import { type EngineSet, type StoreKind, startEngines } from '../support/engines.ts';
import { refundAction, specOf } from '../support/fixtures.ts';

const SENDER = 'U1';
const ARGS = { id: 'ch_1' };
const ACTION = refundAction(ARGS);
const RECEIPT = { channel: 'C1', ts: '1.1' };

let nextEvent: InboundEvent = { kind: 'ignore', response: { status: 204 } };
const outcomes: ClaimOutcome[] = [];

function chat(): ChannelInstance {
  return {
    async deliver() {
      return RECEIPT;
    },
    async inbound() {
      return nextEvent;
    },
  };
}

interface Click {
  format: AnswerFormat;
  value: JsonValue;
}

/** A button's event: `answer` agrees with `answerFor` (the contract), which only `shortcut` sends. */
function click(questionId: string, c: Click, shortcut: boolean): InboundEvent {
  return {
    kind: 'answer',
    question: { id: questionId },
    by: SENDER,
    byName: 'ana',
    answer: (q) => (q.format === c.format ? c.value : undefined),
    ...(shortcut ? { answerFor: { format: c.format, value: c.value } } : {}),
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

const CLICKS: Click[] = [
  { format: 'CONFIRM', value: true },
  { format: 'CONFIRM', value: false },
  { format: 'CONFIRM', value: 'yes' },
  { format: 'APPROVAL', value: { decision: 'REJECTED' } },
  { format: 'APPROVAL', value: { decision: 'APPROVED' } },
  { format: 'APPROVAL', value: { decision: 'REJECTED', note: 'no' } },
  { format: 'SELECT', value: 'b' },
];

const w = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });
const FORMATS: AnswerFormat[] = ['CONFIRM', 'APPROVAL', 'SELECT', 'TEXT'];
// Weighted towards the questions a one-step answer is for, so each of its rules is met often.
const config = fc
  .record({
    format: fc.oneof(
      w(3, fc.constant<AnswerFormat>('CONFIRM')),
      w(2, fc.constant<AnswerFormat>('APPROVAL')),
      w(2, fc.constantFrom(...FORMATS)),
    ),
    place: fc.oneof(w(3, fc.constant('own')), w(2, fc.constantFrom('reroute', 'elsewhere'))),
    sensitive: fc.boolean(),
    quorum: fc.boolean(),
    // An APPROVAL requested for the clicking user (API.md §22), or for someone else.
    requester: fc.constantFrom(null, null, `chat:${SENDER}`, 'chat:U9'),
    state: fc.oneof(
      w(3, fc.constant('pending')),
      w(2, fc.constantFrom('answered-same', 'answered-other', 'cancelled', 'expired')),
    ),
    anyClick: fc.constantFrom(...CLICKS),
    sameFormat: fc.nat(9),
  })
  .map(({ anyClick, sameFormat, ...c }) => {
    // Mostly a button of the question's own format.
    const own = CLICKS.filter((k) => k.format === c.format);
    const click = sameFormat < 8 && own.length > 0 ? own[sameFormat % own.length]! : anyClick;
    return { ...c, click };
  });
type Config = typeof config extends fc.Arbitrary<infer T> ? T : never;

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`one-step channel answers (${kind})`, () => {
    let set: EngineSet;
    let store: QuestionStore;
    const instances: Record<string, ChannelInstance> = { chat: chat(), pager: chat() };

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
        { channels: channelPort(channelSet, { chat: 'chat', pager: 'chat' }) },
      );
      store = set.stores[0]!;
    });
    afterEach(() => {
      vi.restoreAllMocks();
      return set.close();
    });
    const engine = () => set.engines[0]!;

    /** A question as `c` describes it, delivered where it says, in the state it says. */
    async function question(c: Config): Promise<string> {
      const now = Date.now();
      const spec: QuestionSpec = specOf({
        format: c.format,
        channel: c.place === 'own' ? 'chat' : 'pager',
        recipient: 'C1',
        sensitive: c.sensitive,
        ...(c.format === 'SELECT' ? { options: ['a', 'b'] } : {}),
        ...(c.format === 'APPROVAL'
          ? { action: c.requester ? { ...ACTION, requestedBy: c.requester } : ACTION }
          : {}),
        ...(c.quorum && (c.format === 'CONFIRM' || c.format === 'APPROVAL')
          ? { quorum: { approvals: 2, rejections: 2, voters: null } }
          : {}),
        ...(c.place === 'reroute'
          ? {
              escalation: [
                { afterSeconds: 60, action: 'REROUTE' as const, channel: 'chat', recipient: 'C2' },
              ],
            }
          : {}),
        ...(c.state === 'expired' ? { createdAt: now - 2000, timeoutAt: now - 1000 } : {}),
      });
      expect((await store.create(spec, { maxPending: 1000, retentionMs: 60_000 })).kind).toBe('created');
      await store.deliveries.save(spec.id, RECEIPT, now);
      if (c.place === 'reroute') await store.deliveries.save(spec.id, { ...RECEIPT, ts: '2.2' }, now, 'chat');
      const closeWith = (by: string) =>
        store.claim(spec.id, {
          status: 'ANSWERED',
          answer: c.sensitive ? null : c.click.value,
          answeredBy: by,
          now,
          retentionMs: 60_000,
        });
      if (c.state === 'answered-same') await closeWith(`chat:${SENDER}`);
      if (c.state === 'answered-other') await closeWith('chat:U2');
      if (c.state === 'cancelled') {
        await store.claim(spec.id, { status: 'CANCELLED', cancelReason: 'x', now, retentionMs: 60_000 });
      }
      return spec.id;
    }

    /** What a click did, without what differs between two questions (ids, times, digests of ids). */
    async function effect(id: string) {
      const outcome = outcomes.at(-1);
      const q = await store.get(id);
      const entries = (await allEntries(store))
        .filter((e) => e.questionId === id)
        .map((e) => ({ type: e.type, actor: e.actor, via: e.via, detail: e.detail }));
      const seen =
        outcome && 'question' in outcome
          ? {
              kind: outcome.kind,
              ...('message' in outcome ? { message: outcome.message } : {}),
              delivery: outcome.delivery,
              question: {
                status: outcome.question.status,
                answer: outcome.question.answer,
                answeredBy: outcome.question.answeredBy,
                answeredByName: outcome.question.answeredByName,
              },
            }
          : outcome;
      return {
        outcome: seen,
        record: q && {
          status: q.status,
          answer: q.answer,
          answeredBy: q.answeredBy,
          votes: q.votes?.map(({ at: _, ...v }) => v),
        },
        reply: q?.sensitive && q.status === 'ANSWERED' ? await store.takeReply(id) : undefined,
        entries,
      };
    }

    it('a click with answerFor has exactly the effect of the same click without it', async () => {
      await fc.assert(
        fc.asyncProperty(config, async (c) => {
          const withIt = await question(c);
          const without = await question(c);
          nextEvent = click(withIt, c.click, true);
          await engine().channelInbound('chat', request());
          const one = await effect(withIt);
          nextEvent = click(without, c.click, false);
          await engine().channelInbound('chat', request());
          const full = await effect(without);
          expect(one).toEqual(full);
        }),
        { numRuns: kind === 'memory' ? 300 : 200 },
      );
    });

    it('a plain click is one store call: no read before the claim, no claim after', async () => {
      const id = await question({
        format: 'CONFIRM',
        place: 'own',
        sensitive: false,
        quorum: false,
        requester: null,
        state: 'pending',
        click: CLICKS[0]!,
      });
      const oneStep = vi.spyOn(store, 'channelAnswer');
      const read = vi.spyOn(store, 'getWithDelivery');
      const get = vi.spyOn(store, 'get');
      const claim = vi.spyOn(store, 'claim');
      nextEvent = click(id, CLICKS[0]!, true);
      expect(await engine().channelInbound('chat', request())).toEqual({
        kind: 'response',
        response: { status: 200 },
      });
      expect(outcomes.at(-1)).toMatchObject({
        kind: 'recorded',
        delivery: RECEIPT,
        question: { status: 'ANSWERED', answer: true, answeredBy: `chat:${SENDER}`, answeredByName: 'ana' },
      });
      expect(oneStep).toHaveBeenCalledTimes(1);
      expect(read).not.toHaveBeenCalled();
      expect(get).not.toHaveBeenCalled();
      expect(claim).not.toHaveBeenCalled();
      // The name Slack gave is kept, as on the full path.
      expect(await engine().nameOf(`chat:${SENDER}`)).toBe('ana');
    });
  });
}
