// The answer contract, run unchanged against every door the engine takes answers through (API.md
// §3, §5.3, §7, §9, §13.1, §15): the GraphQL/REST door (`answer`), MCP elicitation
// (`answerHere`), the public callback door and a channel's inbound door. For every format: a
// valid answer is recorded as the door's identity; the same answer again is a retry (a success
// that changes nothing); another answer is refused the way every door refuses it; an invalid one
// changes nothing; a closed question says so. For votes: counted with the door as `via`, a
// repeat counts nothing (before and after the decision, for every voter), another vote is
// "you have already voted", an identity outside the voters is FORBIDDEN. Sensitive answers are
// split from the record on every door that takes them, and a channel's name for its user is kept.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { channelPort } from '../../src/app/channel-port.ts';
import type { ChannelSet } from '../../src/channels/channel-set.ts';
import type { ChannelInstance, ClaimOutcome, InboundEvent } from '../../src/channels/types.ts';
import { isDomainError } from '../../src/domain/errors.ts';
import { parseGroups } from '../../src/domain/groups.ts';
import type { QuestionRecord } from '../../src/domain/question.ts';
import { createDirectory } from '../../src/engine/people/directory.ts';
import { ADMIN, AGENT, type EngineSet, OPS, type StoreKind, startEngines } from '../support/engines.ts';

/** What a door made of one answer, in one vocabulary: ok, or the refusal's code. */
type Said =
  | 'ok'
  | 'ALREADY_ANSWERED'
  | 'QUESTION_CLOSED'
  | 'BAD_USER_INPUT'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | string;

interface Door {
  name: string;
  /** The identity the door records answers as. */
  identity: string;
  /** The `via` its votes carry. */
  via: string;
  answer(q: QuestionRecord, value: unknown): Promise<Said>;
}

const CHANNEL = 'sms';
const USER = '+15550001';
const RAW_NAME = ' Ada\u0007  Lovelace\n';

const FORMATS = [
  { format: 'TEXT', extra: {}, value: 'ship it', other: 'hold it', invalid: '   ' },
  { format: 'CONFIRM', extra: {}, value: true, other: false, invalid: 'maybe' },
  {
    format: 'SELECT',
    extra: { options: ['blue', 'green'] },
    value: 'blue',
    other: 'green',
    invalid: 'purple',
  },
  {
    format: 'FORM',
    extra: { schema: { type: 'object', properties: { env: { type: 'string' } }, required: ['env'] } },
    value: { env: 'prod' },
    other: { env: 'dev' },
    invalid: { env: 3 },
  },
  {
    format: 'APPROVAL',
    extra: { action: { name: 'payments.refund', arguments: { amount: 100 } } },
    value: { decision: 'APPROVED' },
    other: { decision: 'REJECTED', note: 'no' },
    invalid: { decision: 'MAYBE' },
  },
] as const;

// Every door's identity is a member of `crew` (API.md §22); `others` has none of them.
const CREW = createDirectory(
  parseGroups([
    { id: 'crew', members: ['ops', 'mcp:agent', 'callback', `${CHANNEL}:${USER}`] },
    { id: 'others', members: ['someone', 'else'] },
  ]),
);

const codeOf = (err: unknown): string => (isDomainError(err) ? err.code : `thrown: ${String(err)}`);

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`one answer contract on every door (${kind})`, () => {
    let set: EngineSet;
    const tickets = new Map<string, string>();
    let nextEvent: InboundEvent | null = null;
    let lastOutcome: ClaimOutcome | null = null;

    const sms: ChannelInstance = {
      needsRecipient: false,
      async deliver(q, callbackUrl) {
        tickets.set(q.id, callbackUrl.slice(callbackUrl.lastIndexOf('/') + 1));
        return { ref: q.id };
      },
      async inbound() {
        return nextEvent ?? { kind: 'ignore', response: { status: 200 } };
      },
    };

    beforeEach(async () => {
      const channels: ChannelSet = {
        names: () => new Set([CHANNEL]),
        get: (n) => (n === CHANNEL ? sms : undefined),
        close: async () => {},
      };
      set = await startEngines(
        kind,
        1,
        {},
        { channels: channelPort(channels, { [CHANNEL]: 'sms' }), directory: CREW },
      );
    });
    afterEach(() => set.close());

    const engine = () => set.engines[0]!;

    const api: Door = {
      name: 'GraphQL/REST',
      identity: 'ops',
      via: 'api',
      answer: (q, value) =>
        engine()
          .answer(OPS, q.id, value)
          .then(() => 'ok', codeOf),
    };
    const mcp: Door = {
      name: 'MCP elicitation',
      identity: 'mcp:agent',
      via: 'mcp',
      answer: (q, value) =>
        engine()
          .answerHere(AGENT, q.id, value)
          .then(() => 'ok', codeOf),
    };
    const callback: Door = {
      name: 'callback',
      identity: 'callback',
      via: 'callback',
      async answer(q, value) {
        try {
          const r = await engine().callback({
            ticket: tickets.get(q.id)!,
            body: Buffer.from(JSON.stringify({ answer: value })),
            headers: { 'content-type': 'application/json' },
            query: {},
          });
          // §7 step 4: an answered question is a 200 "already_answered" at this door, whoever asks.
          return r === 'answered' ? 'ok' : 'ok:already_answered';
        } catch (err) {
          return codeOf(err);
        }
      },
    };
    const channel: Door = {
      name: 'channel',
      identity: `${CHANNEL}:${USER}`,
      via: `channel:${CHANNEL}`,
      async answer(q, value) {
        lastOutcome = null;
        nextEvent = {
          kind: 'answer',
          question: { id: q.id },
          by: USER,
          byName: RAW_NAME,
          answer: () => value,
          respond: (o) => {
            lastOutcome = o;
            return { status: 200 };
          },
        };
        await engine().channelInbound(CHANNEL, {
          rawBody: Buffer.from('x'),
          headers: {},
          url: 'https://t/x',
          now: Date.now(),
        });
        const o = lastOutcome as ClaimOutcome | null;
        switch (o?.kind) {
          case 'recorded':
          case 'duplicate':
            return 'ok';
          case 'closed':
            return o.question.status === 'ANSWERED' ? 'ALREADY_ANSWERED' : 'QUESTION_CLOSED';
          case 'invalid':
            if (/already voted/.test(o.message)) return 'ALREADY_ANSWERED';
            if (/not among the voters|separation of duties/.test(o.message)) return 'FORBIDDEN';
            return 'BAD_USER_INPUT';
          case 'not-found':
            return 'NOT_FOUND';
          default:
            return `no response: ${JSON.stringify(o)}`;
        }
      },
    };
    const DOORS = [api, mcp, callback, channel];

    /** Refused as ALREADY_ANSWERED: the callback door says "already_answered" with a 200 instead (§7). */
    const alreadyAnswered = (door: Door) => (door === callback ? 'ok:already_answered' : 'ALREADY_ANSWERED');

    const ask = async (input: Record<string, unknown>) =>
      (
        await engine().ask(
          AGENT,
          { text: 'Go ahead?', channel: CHANNEL, recipient: USER, ...input },
          { holdSeconds: 0 },
        )
      ).question;
    const read = async (id: string) => (await engine().get(ADMIN, id))!;

    for (const door of DOORS) {
      for (const f of FORMATS) {
        it(`${door.name}, ${f.format}: recorded as ${door.identity}; a retry succeeds unchanged; another answer and an invalid one are refused`, async () => {
          const q = await ask({ format: f.format, ...f.extra });
          // Invalid while pending: BAD_USER_INPUT, nothing changed.
          expect(await door.answer(q, f.invalid)).toBe('BAD_USER_INPUT');
          expect((await read(q.id)).status).toBe('PENDING');

          expect(await door.answer(q, f.value)).toBe('ok');
          const answered = await read(q.id);
          expect(answered).toMatchObject({ status: 'ANSWERED', answeredBy: door.identity });

          // The same answer again, by the same identity: a retry (§3).
          expect(await door.answer(q, f.value)).toMatch(/^ok/);
          expect((await read(q.id)).answeredAt).toBe(answered.answeredAt);
          // Another answer by the same identity, and an invalid one now: the question was answered.
          expect(await door.answer(q, f.other)).toBe(alreadyAnswered(door));
          expect(await door.answer(q, f.invalid)).toBe(alreadyAnswered(door));
          // Every other door is refused the same way.
          for (const other of DOORS.filter((d) => d !== door)) {
            expect(await other.answer(q, f.value)).toBe(alreadyAnswered(other));
          }
          expect(await read(q.id)).toMatchObject({
            answeredBy: door.identity,
            answeredAt: answered.answeredAt,
          });
        });
      }

      it(`${door.name}: a cancelled question is QUESTION_CLOSED`, async () => {
        const q = await ask({ format: 'CONFIRM' });
        await engine().cancel(AGENT, q.id, 'changed my mind');
        expect(await door.answer(q, true)).toBe('QUESTION_CLOSED');
      });

      it(`${door.name}: votes count as ${door.identity} via ${door.via}; a repeat counts nothing, another vote is refused, before and after the decision`, async () => {
        const q = await ask({
          format: 'APPROVAL',
          action: { name: 'keys.rotate', arguments: {} },
          quorum: { approvals: 2, rejections: 2 },
        });
        const approve = { decision: 'APPROVED', note: 'fine' };
        expect(await door.answer(q, approve)).toBe('ok');
        expect((await read(q.id)).votes).toMatchObject([
          { by: door.identity, via: door.via, decision: 'APPROVED', note: 'fine' },
        ]);
        expect(await door.answer(q, approve)).toMatch(/^ok/);
        expect((await read(q.id)).votes).toHaveLength(1);
        expect(await door.answer(q, { decision: 'APPROVED', note: 'changed' })).toBe('ALREADY_ANSWERED');
        expect(await door.answer(q, { decision: 'REJECTED' })).toBe('ALREADY_ANSWERED');
        // Another door's identity decides; this voter's repeat is still a retry, not a refusal.
        const decider = DOORS.find((d) => d !== door)!;
        expect(await decider.answer(q, { decision: 'APPROVED' })).toBe('ok');
        const decided = await read(q.id);
        expect(decided).toMatchObject({ status: 'ANSWERED', answeredBy: decider.identity });
        expect(await door.answer(q, approve)).toMatch(/^ok/);
        expect(await door.answer(q, { decision: 'REJECTED' })).toBe(alreadyAnswered(door));
        expect((await read(q.id)).votes).toHaveLength(2);
        expect((await read(q.id)).answeredAt).toBe(decided.answeredAt);
      });

      it(`${door.name}: a member of a group:<id> voter entry votes once as itself; outside the group, FORBIDDEN`, async () => {
        const q = await ask({
          format: 'CONFIRM',
          quorum: { approvals: 2, voters: ['group:crew', door.identity] },
        });
        expect(await door.answer(q, true)).toBe('ok');
        expect(await door.answer(q, false)).toBe('ALREADY_ANSWERED');
        expect((await read(q.id)).votes).toMatchObject([{ by: door.identity, via: door.via }]);
        const outside = await ask({ format: 'CONFIRM', quorum: { approvals: 2, voters: ['group:others'] } });
        expect(await door.answer(outside, true)).toBe('FORBIDDEN');
        expect((await read(outside.id)).votes ?? []).toHaveLength(0);
      });

      it(`${door.name}: an identity outside the voters is FORBIDDEN and nothing is counted`, async () => {
        const q = await ask({
          format: 'CONFIRM',
          quorum: { approvals: 2, voters: ['someone', 'else'] },
        });
        expect(await door.answer(q, true)).toBe('FORBIDDEN');
        expect((await read(q.id)).votes ?? []).toHaveLength(0);
      });
    }

    for (const door of DOORS) {
      it(`${door.name}: the requester of an action (${door.identity}) never answers or votes on it; another door decides`, async () => {
        const action = { name: 'payments.refund', arguments: { amount: 5 }, requestedBy: door.identity };
        const single = await ask({ format: 'APPROVAL', action });
        expect(await door.answer(single, { decision: 'APPROVED' })).toBe('FORBIDDEN');
        expect(await door.answer(single, { decision: 'REJECTED' })).toBe('FORBIDDEN');
        expect(await read(single.id)).toMatchObject({ status: 'PENDING', answeredBy: null });
        const voted = await ask({ format: 'APPROVAL', action, quorum: { approvals: 2 } });
        expect(await door.answer(voted, { decision: 'APPROVED' })).toBe('FORBIDDEN');
        expect((await read(voted.id)).votes ?? []).toHaveLength(0);
        const other = DOORS.find((d) => d !== door && d !== mcp)!;
        expect(await other.answer(single, { decision: 'APPROVED' })).toBe('ok');
        expect(await read(single.id)).toMatchObject({ status: 'ANSWERED', answeredBy: other.identity });
      });
    }

    it("MCP elicitation: the asker's own client never decides an action requested for a person", async () => {
      const q = await ask({
        format: 'APPROVAL',
        action: { name: 'payments.refund', arguments: { amount: 5 }, requestedBy: 'oidc:requester' },
      });
      expect(await mcp.answer(q, { decision: 'APPROVED' })).toBe('FORBIDDEN');
      expect((await read(q.id)).status).toBe('PENDING');
    });

    for (const door of [api, callback, channel]) {
      it(`${door.name}: a sensitive answer is kept out of the record and reaches the asker once`, async () => {
        const q = await ask({ format: 'TEXT', sensitive: true });
        expect(await door.answer(q, 'hunter2')).toBe('ok');
        const stored = await read(q.id);
        expect(stored).toMatchObject({ status: 'ANSWERED', answeredBy: door.identity, answer: null });
        expect((await engine().awaitAnswer(AGENT, q.id, { holdSeconds: 0 })).answer).toBe('hunter2');
      });
    }

    it('MCP elicitation refuses a sensitive question before anything is recorded', async () => {
      const q = await ask({ format: 'TEXT', sensitive: true });
      expect(await mcp.answer(q, 'hunter2')).toBe('FORBIDDEN');
      expect((await read(q.id)).status).toBe('PENDING');
    });

    it("the channel user's name is cleaned and kept, for an answer and for a vote", async () => {
      const q = await ask({ format: 'CONFIRM', quorum: { approvals: 2 } });
      expect(await channel.answer(q, true)).toBe('ok');
      expect(lastOutcome).toMatchObject({ kind: 'recorded', question: { answeredByName: 'Ada Lovelace' } });
      expect(await engine().nameOf(channel.identity)).toBe('Ada Lovelace');
    });

    it('an EXTERNAL question is WRONG_DOOR on the in-client doors', async () => {
      const q = (
        await engine().ask(
          AGENT,
          { text: 'Paid?', format: 'EXTERNAL', link: 'https://pay.example/?cb={callback_url}' },
          { holdSeconds: 0 },
        )
      ).question;
      expect(await api.answer(q, { paid: true })).toBe('WRONG_DOOR');
      expect(await mcp.answer(q, { paid: true })).toBe('FORBIDDEN');
      expect((await read(q.id)).status).toBe('PENDING');
    });
  });
}
