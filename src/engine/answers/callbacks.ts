// The public callback door, engine side (API.md §7 steps 2–6, after the HTTP layer's size
// cap): the ticket is the capability. Unknown, expired, pruned and not-yet-asked tickets are
// one indistinguishable NOT_FOUND; a bound verifier runs on the raw bytes before anything
// about the question is revealed; the claim guard makes provider retries idempotent.

import { validateAnswer } from '../../domain/answer.ts';
import { decisionOf, editedOf } from '../../domain/approval.ts';
import { callbackPayload, type QueryParams } from '../../domain/callback-payload.ts';
import { choiceNamed } from '../../domain/choice-link.ts';
import { DomainError, isDomainError } from '../../domain/errors.ts';
import type { ActionSpec, JsonObject, QuestionRecord } from '../../domain/question.ts';
import type { QuestionStore, RateCount, RateHits, TicketStepResult } from '../../store/types.ts';
import type { Logger } from '../logger.ts';
import type { HeaderBag, VerifierPort } from '../ports.ts';
import type { Answerer, RecordAnswer } from './record.ts';
import { hashTicket } from './tickets.ts';

export type { RateHits };

export interface CallbackRequest {
  ticket: string;
  body: Buffer;
  headers: HeaderBag;
  query: QueryParams;
  /**
   * The door's rate limit, counted in the store's same step when the HTTP layer leaves it to
   * the engine: `seen` gets the counter before anything else happens; over the max the request
   * is RATE_LIMITED and nothing about the ticket is looked at.
   */
  limit?: { count: RateCount; seen(hits: RateHits): void };
}

function contentTypeOf(headers: HeaderBag): string | undefined {
  const v = headers['content-type'];
  return Array.isArray(v) ? v[0] : v;
}

export type CallbackOutcome = 'answered' | 'already_answered';

/**
 * What a page says about its question: the text a person was sent, and once answered, an
 * approval's decision. Never the answer itself (it may be sensitive), and nothing for an
 * EXTERNAL question, whose callback URL may sit with a third party that was never shown it.
 */
export interface PageQuestion {
  text: string;
  /** An APPROVAL's outcome, with `edited` when the approver changed the arguments. */
  decision?: 'APPROVED' | 'REJECTED' | null;
  edited?: boolean;
}

type About = { about: PageQuestion | null };

export type CallbackPage =
  | ({ kind: 'confirm' } & About)
  /** A choice link's page (CONFIRM/SELECT): the question's label for the chosen index, posted back. */
  | ({ kind: 'choice'; index: number; label: string } & About)
  | ({ kind: 'reply-elsewhere' } & About)
  /** TEXT: one field; a sensitive answer is typed here, never into a chat (API.md §9). */
  | ({ kind: 'text'; sensitive: boolean } & About)
  | ({ kind: 'form'; schema: JsonObject } & About)
  /** APPROVAL: the action, Approve / Reject, and the edit form when the page can show it. */
  /** `stepUpUrl`: a HIGH action is approved in the inbox (API.md §23); the page links there. */
  | ({ kind: 'approval'; action: ActionSpec; stepUpUrl?: string } & About)
  | ({ kind: 'done' } & About)
  | ({ kind: 'closed' } & About)
  | { kind: 'not-found' };

/** The question as its pages name it (see PageQuestion). */
function aboutOf(q: QuestionRecord): PageQuestion | null {
  if (q.format === 'EXTERNAL') return null;
  if (q.format !== 'APPROVAL' || q.status !== 'ANSWERED' || q.sensitive) return { text: q.text };
  return { text: q.text, decision: decisionOf(q), edited: editedOf(q) === true };
}

export interface CallbackDeps {
  store: QuestionStore;
  verifiers: VerifierPort;
  clock: () => number;
  retentionMs: number;
  logger: Logger;
  /** The engine's one answer path (answers/record.ts). */
  recordAnswer: RecordAnswer;
  /** Where a HIGH approval is given (the inbox, API.md §23); absent: no link. */
  stepUpUrl?: (questionId: string) => string;
}

/** Who answers through the public door (API.md §7, §15): the ticket holder, `callback`. */
const CALLBACK: Answerer = { id: 'callback', via: 'callback' };

const TICKET = /^[A-Za-z0-9_-]{43}$/;
/** Largest body offered to the store as a plain EXTERNAL answer before the ticket is looked up. */
const PLAIN_OFFER_MAX_BYTES = 4096;

/** What a plain EXTERNAL question (isPlainExternal) looks like to the payload checks. */
const PLAIN: Pick<QuestionRecord, 'format' | 'schema' | 'options'> = {
  format: 'EXTERNAL',
  schema: null,
  options: null,
};

/** The answer this request would give a plain EXTERNAL question, or undefined if it is not one. */
function plainAnswer(req: CallbackRequest): JsonObject | undefined {
  try {
    return validateAnswer(
      PLAIN,
      callbackPayload(PLAIN, req.body, req.query, contentTypeOf(req.headers)),
    ) as JsonObject;
  } catch {
    return undefined;
  }
}

/** The one NOT_FOUND of the callback door, whatever the reason. */
export function callbackNotFound(): DomainError {
  return new DomainError('NOT_FOUND', 'not found');
}

export function createCallbacks(d: CallbackDeps) {
  async function lookup(ticket: string): Promise<QuestionRecord | null> {
    if (!TICKET.test(ticket)) return null;
    return d.store.questionForTicket(hashTicket(ticket));
  }

  async function verify(q: QuestionRecord, req: CallbackRequest): Promise<void> {
    const v = q.verifier;
    if (!v) return;
    if (d.verifiers.signsBody(v.name) && req.body.length === 0) {
      throw new DomainError('BAD_USER_INPUT', 'a signed callback must carry its signed body');
    }
    const outcome = d.verifiers.verify(v.name, v.config, {
      rawBody: req.body,
      headers: req.headers,
      now: d.clock(),
    });
    if (outcome === 'failed') {
      // On the record, with no change to the question: who tried is unknown, so only the door
      // and the verifier's name (API.md §17).
      await d.store.audit.append({
        type: 'CALLBACK_REFUSED',
        questionId: q.id,
        actor: null,
        via: 'callback',
        detail: { verifier: v.name, reason: 'signature' },
        at: d.clock(),
      });
      throw new DomainError('UNAUTHENTICATED', 'webhook verification failed');
    }
    if (outcome === 'unavailable') {
      d.logger.error({ verifier: v.name, questionId: q.id }, 'webhook verifier cannot run (missing secret?)');
      throw new DomainError('INTERNAL', 'webhook verifier is not available');
    }
  }

  function closed(status: QuestionRecord['status']): DomainError {
    return new DomainError(
      'QUESTION_CLOSED',
      `the question is closed (${status.toLowerCase().replace('_', ' ')})`,
    );
  }

  /**
   * Steps 3–6 for a question in hand: the verifier, then the one answer path with the payload
   * (a payload that cannot be read refuses only a pending question). Already answered is a
   * success, whatever the retry carries (step 4).
   */
  async function answer(q: QuestionRecord, req: CallbackRequest): Promise<CallbackOutcome> {
    await verify(q, req);
    let given: unknown;
    let unreadable: DomainError | undefined;
    try {
      given = callbackPayload(q, req.body, req.query, contentTypeOf(req.headers));
    } catch (err) {
      if (!isDomainError(err)) throw err;
      unreadable = err;
    }
    const o = await d.recordAnswer(q, CALLBACK, given, unreadable ? { unreadable } : {});
    switch (o.kind) {
      case 'recorded':
      case 'voted':
        return 'answered';
      case 'repeat':
        return 'already_answered';
      case 'closed':
        if (o.question.status === 'ANSWERED') return 'already_answered';
        throw o.error;
      case 'invalid':
      case 'forbidden':
        throw o.error;
      case 'notFound':
        throw callbackNotFound();
      default:
        return o satisfies never;
    }
  }

  /** The store's one step, with the rate limit applied first when the request carries it. */
  async function step(
    req: CallbackRequest,
    hash: string,
    answer: JsonObject | undefined,
  ): Promise<TicketStepResult> {
    const r = await d.store.ticketStep(hash, {
      ...(answer === undefined
        ? {}
        : { answer: { answer, answeredBy: 'callback', now: d.clock(), retentionMs: d.retentionMs } }),
      ...(req.limit ? { count: req.limit.count } : {}),
    });
    if (req.limit && r.hits) req.limit.seen(r.hits);
    if (r.kind === 'limited') {
      throw new DomainError(
        'RATE_LIMITED',
        `too many requests; retry in ${Math.ceil((r.hits?.ttlMs ?? 0) / 1000)} s`,
      );
    }
    return r;
  }

  return {
    async handle(req: CallbackRequest): Promise<CallbackOutcome> {
      const wellFormed = TICKET.test(req.ticket);
      if (!wellFormed && !req.limit) throw callbackNotFound();
      // A malformed ticket names nothing (an empty hash has no ticket key); it is still counted.
      const hash = wellFormed ? hashTicket(req.ticket) : '';
      // The common case, one round trip: a payload that answers any plain EXTERNAL question is
      // offered to the store, which claims with it only if the ticket names such a question
      // (nothing to verify, nothing more to check); otherwise it hands back the question.
      // A large body is not parsed before the ticket is known: a forged request to an unknown
      // ticket then costs a hash and a lookup, not a parse of up to the size cap. (A real large
      // answer takes the second round trip below, with the same checks.)
      const offer = wellFormed && req.body.length <= PLAIN_OFFER_MAX_BYTES ? plainAnswer(req) : undefined;
      const r = await step(req, hash, offer);
      switch (r.kind) {
        case 'won':
          return 'answered';
        case 'other':
          return answer(r.question, req);
        case 'lost':
          if (r.status === 'ANSWERED') return 'already_answered';
          throw closed(r.status);
        default:
          throw callbackNotFound();
      }
    },

    /** Which page a GET shows; never changes anything. */
    async page(ticket: string, choice?: string): Promise<CallbackPage> {
      const q = await lookup(ticket);
      if (!q || q.verifier) return { kind: 'not-found' };
      const about = aboutOf(q);
      if (q.status === 'ANSWERED') return { kind: 'done', about };
      if (q.status !== 'PENDING') return { kind: 'closed', about };
      const chosen = choice === undefined ? null : choiceNamed(q, choice);
      if (chosen) return { kind: 'choice', index: chosen.index, label: chosen.label, about };
      if (q.format === 'EXTERNAL' || q.format === 'CONFIRM') return { kind: 'confirm', about };
      if (q.format === 'FORM' && q.schema) return { kind: 'form', schema: q.schema, about };
      if (q.format === 'TEXT') return { kind: 'text', sensitive: q.sensitive, about };
      if (q.format === 'APPROVAL' && q.action) {
        const high = q.action.assurance === 'HIGH' && d.stepUpUrl;
        return {
          kind: 'approval',
          action: q.action,
          about,
          ...(high ? { stepUpUrl: d.stepUpUrl!(q.id) } : {}),
        };
      }
      return { kind: 'reply-elsewhere', about };
    },
  };
}
