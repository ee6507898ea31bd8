// A channel's inbound door after the HTTP size cap (API.md §9): the plugin checks the provider's
// signature on the raw bytes and maps the event; the engine finds the question within that
// channel only, and records the answer through the engine's one answer path (answers/record.ts:
// validation, vote or claim, the retry rule, refusals); this door maps its outcome to the
// plugin's response. A provider retry of an answer already recorded (same sender, same answer)
// is `duplicate`: success, no change.
// An event with a provider message id (`dedupe`) is acted on once per id (the store's seenOnce,
// shared by instances), and only answers a question delivered before the message was first seen:
// a captured reply sent again later can neither answer twice nor answer a newer question.
// A click whose answer the plugin knows from the question's format alone (`answerFor`: a CONFIRM
// button) is looked up and claimed in one store step (channelAnswer) when the question takes it;
// any other question comes back from that step unchanged and goes the full way from there.
import type {
  AnswerHints,
  ChannelInstance,
  ChannelResponse,
  DeliveryRecord,
  InboundEvent,
  InboundRequest,
  QuestionRef,
} from '../../channels/types.ts';
import { oneStepAnswer } from '../../domain/channel-answer.ts';
import { DomainError } from '../../domain/errors.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import type { QuestionWithDelivery } from '../../store/types.ts';
import type { AnswerOutcome } from '../answers/outcome.ts';
import type { Answerer, AnswerPath } from '../answers/record.ts';
import { type EngineContext, MAX_ID_CHARS } from '../context.ts';
import { cleanName } from '../people/people.ts';
import { refusedOrigin } from './origin.ts';
import { atPlace, channelQuestionOf } from './question.ts';

/**
 * The most a plugin may ask its inbound door to read. Slack repeats the whole message or modal
 * in every click and submission (a 12-field form with long option lists is over 100 KiB), so
 * its door needs far more than a callback's body; still bounded, and checked before the signature.
 */
export const CHANNEL_INBOUND_MAX_BYTES = 1024 * 1024;

/**
 * The most a plugin that reads its body as a stream (`inboundStream`: e-mail with attachments,
 * which it drops while reading) may take: above every provider's own maximum message.
 */
export const CHANNEL_INBOUND_STREAM_MAX_BYTES = 64 * 1024 * 1024;

/** The cap an instance declares for its door, bounded; null when it declares none. */
export function inboundMaxBytesOf(instance: ChannelInstance | undefined): number | null {
  const declared = instance?.inbound ? instance.inboundMaxBytes : undefined;
  if (typeof declared !== 'number' || !Number.isInteger(declared) || declared < 1) return null;
  return Math.min(
    declared,
    instance?.inboundStream === true ? CHANNEL_INBOUND_STREAM_MAX_BYTES : CHANNEL_INBOUND_MAX_BYTES,
  );
}

/** Longest provider user id recorded in `answeredBy`. */
export const MAX_SENDER_CHARS = 200;
const MAX_REF_CHARS = 200;

export type ChannelInboundResult =
  /** No such channel, or it takes no inbound requests: the uniform 404. */
  | { kind: 'not-found' }
  /** The plugin refused the request; `reason` is for logs only. */
  | { kind: 'refused'; status: 400 | 401 | 403 | 413 | 500; reason: string; response?: ChannelResponse }
  /** Send this to the provider as is. */
  | { kind: 'response'; response: ChannelResponse };

const OK: ChannelResponse = { status: 200 };

function shortString(v: unknown, max: number): v is string {
  return typeof v === 'string' && v.length > 0 && v.length <= max;
}

/**
 * Whether channel `name` is a place the question went: its own channel, or one a REROUTE step
 * of its ladder names (API.md §18: every place stays live; the first answer anywhere wins).
 */
function isPlaceOf(q: QuestionRecord, name: string): boolean {
  return q.channel === name || (q.escalation ?? []).some((s) => s.action === 'REROUTE' && s.channel === name);
}

/** A question found for an event, with what the engine may tell the plugin and its delivery there. */
interface Found {
  q: QuestionRecord;
  hints: AnswerHints;
  delivery: DeliveryRecord | null;
}

function deliveryOf(found: QuestionWithDelivery): DeliveryRecord | null {
  return (found.delivery?.delivery as DeliveryRecord | null | undefined) ?? null;
}

/** The question and its delivery at place `name`, if the question went there. */
function foundAt(name: string, found: QuestionWithDelivery, hints: AnswerHints): Found | null {
  return isPlaceOf(found.question, name) ? { q: found.question, hints, delivery: deliveryOf(found) } : null;
}

type AnswerEvent = Extract<InboundEvent, { kind: 'answer' }>;

const NOT_AN_ANSWER = new DomainError('BAD_USER_INPUT', 'this reply does not answer the question', 'answer');

/** Who answers through channel `name`: `<channel>:<provider user id>`, with the name the provider gave, cleaned. */
function answererOf(name: string, event: AnswerEvent): Answerer {
  const byName = typeof event.byName === 'string' ? cleanName(event.byName) || null : null;
  return { id: `${name}:${event.by}`, via: `channel:${name}`, name: byName };
}

/** The outcome of the one answer path in the channel's words (its plugin renders them). */
function responseOf(
  o: AnswerOutcome,
  q: QuestionRecord,
  name: string,
  by: Answerer,
  delivery: DeliveryRecord | null,
): Parameters<AnswerEvent['respond']>[0] {
  switch (o.kind) {
    case 'recorded':
    case 'voted':
      return {
        kind: 'recorded',
        question: channelQuestionOf(atPlace(o.question, name), by.name ?? null),
        delivery,
      };
    case 'repeat':
      return { kind: 'duplicate', question: channelQuestionOf(atPlace(o.question, name)), delivery };
    case 'closed':
      return { kind: 'closed', question: channelQuestionOf(atPlace(o.question, name)), delivery };
    case 'invalid':
    case 'forbidden':
      return {
        kind: 'invalid',
        message: o.error.message,
        question: channelQuestionOf(atPlace(q, name)),
        delivery,
      };
    case 'notFound':
      return { kind: 'not-found' };
    default:
      return o satisfies never;
  }
}

export function createChannelInbound(ctx: EngineContext, answers: Pick<AnswerPath, 'record' | 'counted'>) {
  const { store, channels, logger } = ctx;

  /**
   * The question a reference names, within channel `name` only; for a `latestFor` reference,
   * also how many questions are open to that recipient (a plugin may ask which one is meant).
   */
  async function find(name: string, ref: QuestionRef, deliveredBy?: number): Promise<Found | null> {
    let id: string | null = null;
    const hints: AnswerHints = {};
    if ('id' in ref && shortString(ref.id, MAX_ID_CHARS)) id = ref.id;
    else if ('ref' in ref && shortString(ref.ref, MAX_REF_CHARS)) {
      id = await store.deliveries.byRef(name, ref.ref);
      // A reference may be reused by a newer question: it must have gone out before the reply.
      if (id !== null && deliveredBy !== undefined) {
        const at = (await store.deliveries.get(id, name))?.deliveredAt ?? null;
        if (at !== null && at > deliveredBy) id = null;
      }
    } else if ('latestFor' in ref && shortString(ref.latestFor, MAX_REF_CHARS)) {
      const latest = await store.deliveries.latestFor(name, ref.latestFor, deliveredBy);
      if (latest) {
        id = latest.id;
        hints.pendingForRecipient = latest.pending;
      }
    }
    if (id === null) return null;
    // The question and this place's delivery in one read: every click needs both.
    const found = await store.getWithDelivery(id, name);
    return found ? foundAt(name, found, hints) : null;
  }

  /**
   * A click whose answer the plugin knows from the question's format alone (`answerFor`), on a
   * question named by id: the store finds the question and, when it takes a one-step answer
   * (domain/channel-answer.ts), claims it, all in one round trip. The response when it claimed;
   * otherwise what it found, unchanged, for the one answer path; undefined when the event is not one.
   */
  async function oneStep(
    name: string,
    event: AnswerEvent,
    by: Answerer,
  ): Promise<{ response: ChannelResponse } | { found: Found | null } | undefined> {
    const given = event.answerFor;
    const plain = given ? oneStepAnswer(given.format, given.value) : null;
    const ref = event.question;
    if (!plain || !('id' in ref) || !shortString(ref.id, MAX_ID_CHARS)) return undefined;
    const r = await store.channelAnswer(ref.id, {
      ...plain,
      place: name,
      answeredBy: by.id,
      now: ctx.clock(),
      retentionMs: ctx.retentionMs,
    });
    if (r.kind === 'missing') return { found: null };
    // As ctx.claim: a question no longer pending leaves this process's announced ones.
    if (r.question.status !== 'PENDING') ctx.announced.forget(r.question.id);
    if (r.kind === 'other') return { found: foundAt(name, r, {}) };
    await answers.counted(r.question, by);
    const question = channelQuestionOf(atPlace(r.question, name), by.name ?? null);
    return { response: await event.respond({ kind: 'recorded', question, delivery: deliveryOf(r) }) };
  }

  /**
   * When the event's message was first seen (now, the first time), or null for a repeat. Events
   * without a message id are not deduplicated: undefined.
   */
  async function firstSeen(
    name: string,
    event: AnswerEvent,
    now: number,
  ): Promise<number | null | undefined> {
    if (event.dedupe === undefined) return undefined;
    const seen = await store.seenOnce(`inbound:${name}:${event.dedupe.id}`, now, ctx.retentionMs);
    return seen.first ? seen.at : null;
  }

  async function answer(name: string, event: AnswerEvent, receivedAt: number): Promise<ChannelResponse> {
    if (!shortString(event.by, MAX_SENDER_CHARS)) return event.respond({ kind: 'not-found' });
    if (event.dedupe !== undefined && !shortString(event.dedupe.id, MAX_REF_CHARS)) {
      return event.respond({ kind: 'not-found' });
    }
    const by = answererOf(name, event);
    // The common click (a CONFIRM button) in one round trip; anything else as below. An event
    // with an origin is checked against the delivery first, so never claimed in one step.
    const direct = event.dedupe === undefined && event.origin === undefined;
    const step = direct ? await oneStep(name, event, by) : undefined;
    if (step && 'response' in step) return step.response;
    let found: Found | null;
    if (step) found = step.found;
    else {
      const seenAt = await firstSeen(name, event, receivedAt);
      // A repeat changes nothing and says nothing new.
      if (seenAt === null) return event.dedupe!.repeat;
      found = await find(name, event.question, seenAt);
    }
    if (!found) return event.respond({ kind: 'not-found' });
    const { q, hints, delivery } = found;
    // From somewhere the question was not delivered to (origin.ts): refused, on the record.
    if (await refusedOrigin(ctx, name, q, delivery, event.origin, by.id)) {
      return event.respond({ kind: 'not-found' });
    }
    let given: unknown;
    try {
      given = event.answer(channelQuestionOf(atPlace(q, name)), hints);
    } catch {
      given = undefined;
    }
    const o = await answers.record(q, by, given, given === undefined ? { unreadable: NOT_AN_ANSWER } : {});
    return event.respond(responseOf(o, q, name, by, delivery));
  }

  async function show(
    name: string,
    event: Extract<InboundEvent, { kind: 'show' }>,
  ): Promise<ChannelResponse> {
    const found = await find(name, event.question);
    if (!found) return event.respond({ kind: 'not-found' });
    const { q, delivery } = found;
    const kind = q.status === 'PENDING' ? 'pending' : 'closed';
    return event.respond({ kind, question: channelQuestionOf(atPlace(q, name)), delivery });
  }

  return async function channelInbound(name: string, request: InboundRequest): Promise<ChannelInboundResult> {
    const instance = channels.names().has(name) ? channels.instance?.(name) : undefined;
    if (!instance?.inbound) return { kind: 'not-found' };
    let event: InboundEvent;
    try {
      // The plugin verifies the signature first and fails closed. `once` is the store's, so a
      // token taken on one instance is taken on all.
      const once = async (key: string, ttlMs: number) =>
        (await store.seenOnce(`inbound-once:${name}:${key}`, request.now, ttlMs)).first;
      event = await instance.inbound({ ...request, once });
    } catch (err) {
      logger.error(
        { channel: name, err: err instanceof Error ? err.message : 'unknown' },
        'channel inbound failed',
      );
      return { kind: 'refused', status: 500, reason: 'the channel plugin failed' };
    }
    switch (event.kind) {
      case 'reject':
        logger.warn({ channel: name, status: event.status, reason: event.reason }, 'channel inbound refused');
        return {
          kind: 'refused',
          status: event.status,
          reason: event.reason,
          ...(event.response ? { response: event.response } : {}),
        };
      case 'ignore':
        return { kind: 'response', response: event.response ?? OK };
      case 'show':
        return { kind: 'response', response: await respondSafely(name, () => show(name, event)) };
      case 'answer':
        return {
          kind: 'response',
          response: await respondSafely(name, () => answer(name, event, request.now)),
        };
      default:
        return { kind: 'refused', status: 500, reason: 'unknown inbound event' };
    }
  };

  /** A plugin's `respond` that throws must not turn a recorded answer into a provider retry storm. */
  async function respondSafely(name: string, run: () => Promise<ChannelResponse>): Promise<ChannelResponse> {
    try {
      return await run();
    } catch (err) {
      logger.error(
        { channel: name, err: err instanceof Error ? err.message : 'unknown' },
        'channel respond failed',
      );
      return OK;
    }
  }
}
