// A channel's inbound door after the HTTP size cap (API.md §9): the plugin checks the provider's
// signature on the raw bytes and maps the event; the engine finds the question within that
// channel only, validates the answer (§5.3) and claims it through the one guard. A provider
// retry of an answer already recorded (same sender, same answer) is `duplicate`: success, no change.
import type {
  AnswerHints,
  ChannelResponse,
  DeliveryReceipt,
  InboundEvent,
  InboundRequest,
  QuestionRef,
} from '../channels/types.ts';
import { validateAnswer } from '../domain/answer.ts';
import { repeatsAnswer } from '../domain/answer-retry.ts';
import { isDomainError } from '../domain/errors.ts';
import type { QuestionRecord } from '../domain/question.ts';
import { channelQuestionOf } from './channel-question.ts';
import { type EngineContext, MAX_ID_CHARS } from './context.ts';

/** Longest provider user id recorded in `answeredBy`. */
export const MAX_SENDER_CHARS = 200;
const MAX_REF_CHARS = 200;

export type ChannelInboundResult =
  /** No such channel, or it takes no inbound requests: the uniform 404. */
  | { kind: 'not-found' }
  /** The plugin refused the request; `reason` is for logs only. */
  | { kind: 'refused'; status: 400 | 401 | 403 | 500; reason: string; response?: ChannelResponse }
  /** Send this to the provider as is. */
  | { kind: 'response'; response: ChannelResponse };

const OK: ChannelResponse = { status: 200 };

function shortString(v: unknown, max: number): v is string {
  return typeof v === 'string' && v.length > 0 && v.length <= max;
}

export function createChannelInbound(ctx: EngineContext) {
  const { store, channels, logger } = ctx;

  /**
   * The question a reference names, within channel `name` only; for a `latestFor` reference,
   * also how many questions are open to that recipient (a plugin may ask which one is meant).
   */
  async function find(
    name: string,
    ref: QuestionRef,
  ): Promise<{ q: QuestionRecord; hints: AnswerHints } | null> {
    let id: string | null = null;
    const hints: AnswerHints = {};
    if ('id' in ref && shortString(ref.id, MAX_ID_CHARS)) id = ref.id;
    else if ('ref' in ref && shortString(ref.ref, MAX_REF_CHARS))
      id = await store.receipts.byRef(name, ref.ref);
    else if ('latestFor' in ref && shortString(ref.latestFor, MAX_REF_CHARS)) {
      const latest = await store.receipts.latestFor(name, ref.latestFor);
      if (latest) {
        id = latest.id;
        hints.pendingForRecipient = latest.pending;
      }
    }
    if (id === null) return null;
    const q = await store.get(id);
    return q && q.channel === name ? { q, hints } : null;
  }

  async function receiptOf(id: string): Promise<DeliveryReceipt | null> {
    return ((await store.receipts.get(id))?.receipt as DeliveryReceipt | null | undefined) ?? null;
  }

  /** Closed before this event, or a provider retry of the very answer that closed it (answer-retry.ts). */
  function afterClose(q: QuestionRecord, answeredBy: string, value: unknown): 'duplicate' | 'closed' {
    return repeatsAnswer(q, answeredBy, value) ? 'duplicate' : 'closed';
  }

  async function answer(
    name: string,
    event: Extract<InboundEvent, { kind: 'answer' }>,
  ): Promise<ChannelResponse> {
    if (!shortString(event.by, MAX_SENDER_CHARS)) return event.respond({ kind: 'not-found' });
    const found = await find(name, event.question);
    if (!found) return event.respond({ kind: 'not-found' });
    const { q, hints } = found;
    const answeredBy = `${name}:${event.by}`;
    const question = channelQuestionOf(q);
    let value: unknown;
    try {
      value = event.answer(question, hints);
    } catch {
      value = undefined;
    }
    const receipt = await receiptOf(q.id);
    if (q.status !== 'PENDING')
      return event.respond({ kind: afterClose(q, answeredBy, value), question, receipt });
    if (value === undefined) {
      return event.respond({
        kind: 'invalid',
        message: 'this reply does not answer the question',
        question,
        receipt,
      });
    }
    try {
      value = validateAnswer(q, value);
    } catch (err) {
      const message = isDomainError(err) ? err.message : 'invalid answer';
      return event.respond({ kind: 'invalid', message, question, receipt });
    }
    const r = await ctx.claim(q.id, {
      status: 'ANSWERED',
      answer: q.sensitive ? null : value,
      reply: q.sensitive ? value : undefined,
      answeredBy,
    });
    if (r.kind === 'missing') return event.respond({ kind: 'not-found' });
    const now = channelQuestionOf(r.question);
    if (r.kind === 'won') return event.respond({ kind: 'recorded', question: now, receipt });
    return event.respond({ kind: afterClose(r.question, answeredBy, value), question: now, receipt });
  }

  async function show(
    name: string,
    event: Extract<InboundEvent, { kind: 'show' }>,
  ): Promise<ChannelResponse> {
    const found = await find(name, event.question);
    if (!found) return event.respond({ kind: 'not-found' });
    const { q } = found;
    const receipt = await receiptOf(q.id);
    const kind = q.status === 'PENDING' ? 'pending' : 'closed';
    return event.respond({ kind, question: channelQuestionOf(q), receipt });
  }

  return async function channelInbound(name: string, request: InboundRequest): Promise<ChannelInboundResult> {
    const instance = channels.names().has(name) ? channels.instance?.(name) : undefined;
    if (!instance?.inbound) return { kind: 'not-found' };
    let event: InboundEvent;
    try {
      // The plugin verifies the signature first and fails closed.
      event = await instance.inbound(request);
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
        return { kind: 'response', response: await respondSafely(name, () => answer(name, event)) };
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
