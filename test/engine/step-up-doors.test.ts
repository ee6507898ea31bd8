// A HIGH approval (API.md §23) through every door that is not the inbox's passkey door: the API
// (GraphQL and REST answers, the CLI, push-notification actions and the inbox without a passkey
// all end in engine.answer), MCP elicitation (answerHere), the callback door, a channel's
// inbound door, and a policy rule — each refuses with FORBIDDEN, `reason: STEP_UP_REQUIRED` and
// a link to the inbox, and nothing changes; a rejection goes through on any of them. And
// `presentedDigest`: every vote records what its surface showed — the same digest for the
// surfaces that show the whole action, the digest of the cut text for an SMS.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { channelPort } from '../../src/app/channel-port.ts';
import type { ChannelSet } from '../../src/channels/channel-set.ts';
import type { ChannelInstance, ClaimOutcome, InboundEvent } from '../../src/channels/types.ts';
import { presentOn } from '../../src/domain/presentation.ts';
import { presentedDigestOf } from '../../src/domain/presented-digest.ts';
import { AGENT, type EngineSet, OPS, type StoreKind, startEngines } from '../support/engines.ts';

const outcomes: ClaimOutcome[] = [];
let nextEvent: InboundEvent = { kind: 'ignore', response: { status: 204 } };

const sms: ChannelInstance = {
  needsRecipient: false,
  async deliver() {
    return { ref: 'K1' };
  },
  async inbound() {
    return nextEvent;
  },
};

function answerEvent(id: string, value: unknown, by: string): InboundEvent {
  return {
    kind: 'answer',
    question: { id },
    by,
    answer: () => value,
    respond: (o) => {
      outcomes.push(o);
      return { status: 200, body: o.kind };
    },
  };
}

const request = () => ({ rawBody: Buffer.from('x'), headers: {}, url: 'https://t/x', now: Date.now() });
const SUMMARY = 'Wire the quarterly supplier payment to the account on file, as agreed with finance';
const ACTION = {
  name: 'payments.wire',
  summary: SUMMARY,
  arguments: { amount: 1200, iban: 'DE89370400440532013000' },
};

/** A DomainError's code and extra facts. */
async function refusal(p: Promise<unknown>): Promise<{ code: string; more?: Record<string, string> }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code: string; more?: Record<string, string> };
    return { code: e.code, ...(e.more ? { more: e.more } : {}) };
  }
  throw new Error('expected a refusal');
}

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`HIGH approvals on every other door (${kind})`, () => {
    let set: EngineSet;
    const engine = () => set.engines[0]!;
    const channels: ChannelSet = {
      names: () => new Set(['sms']),
      get: (n) => (n === 'sms' ? sms : undefined),
      close: async () => {},
    };

    beforeEach(async () => {
      outcomes.length = 0;
      // The channel is a Twilio instance for the presentation: an SMS shows a cut summary, no arguments.
      set = await startEngines(kind, 1, {}, { channels: channelPort(channels, { sms: 'twilio' }) });
    });
    afterEach(() => set.close());

    const ask = async (extra: Record<string, unknown> = {}, assurance = 'HIGH') =>
      engine().ask(
        AGENT,
        { text: 'Wire it?', format: 'APPROVAL', action: { ...ACTION, assurance }, ...extra },
        { holdSeconds: 0 },
      );

    it('every door refuses to approve without the step-up, with the reason and a link; nothing changes', async () => {
      const { question: q, callbackUrl } = await ask({ channel: 'sms' });
      const link = `https://hitl.example/?question=${q.id}`;
      const expected = { code: 'FORBIDDEN', more: { reason: 'STEP_UP_REQUIRED', url: link } };
      // API keys, GraphQL, REST, the CLI, push actions and the inbox without a passkey.
      expect(await refusal(engine().answer(OPS, q.id, { decision: 'APPROVED' }))).toEqual(expected);
      // MCP elicitation: the asker's client puts it to its own user.
      expect(await refusal(engine().answerHere(AGENT, q.id, { decision: 'APPROVED' }))).toEqual(expected);
      // The callback door.
      const ticket = new URL(callbackUrl!).pathname.split('/').at(-1)!;
      const body = Buffer.from(JSON.stringify({ answer: { decision: 'APPROVED' } }));
      expect(
        await refusal(
          engine().callback({ ticket, body, headers: { 'content-type': 'application/json' }, query: {} }),
        ),
      ).toEqual(expected);
      // A channel's inbound door: refused in the channel's own words, nothing recorded.
      nextEvent = answerEvent(q.id, { decision: 'APPROVED' }, '+15550001');
      await engine().channelInbound('sms', request());
      expect(outcomes.at(-1)?.kind).not.toBe('recorded');
      expect((await engine().get(OPS, q.id))?.status).toBe('PENDING');
      const audit = await set.stores[0]!.audit.page({ first: 50, questionId: q.id });
      expect(audit.entries.map((e) => e.type)).not.toContain('ANSWERED');
    });

    it('a rejection needs no step-up, on any door', async () => {
      const a = (await ask()).question;
      expect((await engine().answer(OPS, a.id, { decision: 'REJECTED' })).status).toBe('ANSWERED');
      const b = (await ask({ channel: 'sms' })).question;
      nextEvent = answerEvent(b.id, { decision: 'REJECTED' }, '+15550001');
      await engine().channelInbound('sms', request());
      expect(await engine().get(OPS, b.id)).toMatchObject({
        status: 'ANSWERED',
        answeredBy: 'sms:+15550001',
      });
    });

    it('presentedDigest: equal on the surfaces that show the same rendering, the cut text on an SMS', async () => {
      const q = (await ask({ channel: 'sms', quorum: { approvals: 3, rejections: 3 } }, 'STANDARD')).question;
      await engine().answer(OPS, q.id, { decision: 'APPROVED' });
      await engine()
        .answerHere(AGENT, q.id, { decision: 'APPROVED' })
        .catch(() => null);
      nextEvent = answerEvent(q.id, { decision: 'APPROVED' }, '+15550001');
      await engine().channelInbound('sms', request());
      const votes = (await engine().get(OPS, q.id))!.votes!;
      const by = Object.fromEntries(votes.map((v) => [v.via, v.presentedDigest]));
      const whole = presentedDigestOf(presentOn('inbox', ACTION, ACTION.arguments));
      const sms = presentOn('twilio', ACTION, ACTION.arguments);
      expect(sms.truncated).toBe(true);
      expect(by.api).toBe(whole);
      expect(by['channel:sms']).toBe(presentedDigestOf(sms));
      expect(by['channel:sms']).not.toBe(whole);
      for (const surface of ['inbox', 'callback', 'cli', 'api', 'mcp'] as const) {
        expect(presentedDigestOf(presentOn(surface, ACTION, ACTION.arguments)), surface).toBe(whole);
      }
      // The VOTED entries carry what each voter saw.
      const audit = await set.stores[0]!.audit.page({ first: 50, questionId: q.id, types: ['VOTED'] });
      expect(audit.entries.map((e) => e.detail?.presentedDigest).sort()).toEqual(
        votes.map((v) => v.presentedDigest).sort(),
      );
    });
  });
}
