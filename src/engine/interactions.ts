// The Interactions service: ask, wait, answer, cancel, expire. Surfaces call only this;
// the store is the truth, announcements wake waiters, and every resolution goes through
// the store's one claim guard.
import { randomUUID } from 'node:crypto';
import { audienceFor, canAnswer, canAsk, canCancel, canSee, visibilityScope } from '../domain/access.ts';
import { validateAnswer } from '../domain/answer.ts';
import { resolveLink, validateAskInput } from '../domain/ask-input.ts';
import {
  cancelReasonOf,
  filterOf,
  holdSecondsOf,
  pageSizeOf,
  timeoutSecondsOf,
} from '../domain/call-args.ts';
import { DomainError, notFound } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { QuestionRecord, QuestionSpec } from '../domain/question.ts';
import type {
  ClaimInput,
  ClaimResult,
  ListFilter,
  Page,
  PageRequest,
  QuestionStore,
} from '../store/types.ts';
import { createCallbacks } from './callbacks.ts';
import type { Logger } from './logger.ts';
import { silentLogger } from './logger.ts';
import { type ChannelPort, NO_CHANNELS, NO_VERIFIERS, type VerifierPort } from './ports.ts';
import { createReaper } from './reaper.ts';
import { callbackUrlFor, mintTicket } from './tickets.ts';
import type {
  AskOptions,
  AskResult,
  FeedListener,
  Interactions,
  PreparedExternal,
  WaitOptions,
} from './types.ts';
import { createWaiterRegistry, raceWaiter } from './waiters.ts';

export interface EngineSettings {
  answerTimeoutSeconds: number;
  holdSeconds: number;
  retentionSeconds: number;
  maxPending: number;
  publicBaseUrl: string | null;
  reaperIntervalMs: number;
  /** How often every local waiter re-reads its question (a net under lost announcements). */
  sweepIntervalMs?: number;
}

export interface EngineDeps {
  store: QuestionStore;
  settings: EngineSettings;
  clock?: () => number;
  logger?: Logger;
  verifiers?: VerifierPort;
  channels?: ChannelPort;
}

interface Feed {
  principal: Principal;
  listener: FeedListener;
}

const MAX_ID_CHARS = 128;

export function createInteractions(deps: EngineDeps): Interactions & {
  /** Local waiters (for tests and metrics). */
  waiterCount(): number;
} {
  const { store, settings } = deps;
  const clock = deps.clock ?? Date.now;
  const logger = deps.logger ?? silentLogger;
  const verifiers = deps.verifiers ?? NO_VERIFIERS;
  const channels = deps.channels ?? NO_CHANNELS;
  const retentionMs = settings.retentionSeconds * 1000;
  const waiters = createWaiterRegistry();
  const feeds = new Set<Feed>();
  let unlisten: (() => void) | null = null;

  const callbacks = createCallbacks({ store, verifiers, clock, retentionMs, logger });
  const reaper = createReaper({
    store,
    waiters,
    clock,
    logger,
    retentionMs,
    intervalMs: settings.reaperIntervalMs,
    sweepIntervalMs: settings.sweepIntervalMs ?? 5000,
  });

  /** The question if this principal may see it; absent otherwise (no existence oracle). */
  async function visible(p: Principal, id: unknown): Promise<QuestionRecord> {
    if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_CHARS) throw notFound();
    const q = await store.get(id);
    if (!q || !canSee(p, q)) throw notFound();
    return q;
  }

  function claim(id: string, input: Omit<ClaimInput, 'now' | 'retentionMs'>): Promise<ClaimResult> {
    return store.claim(id, { ...input, now: clock(), retentionMs });
  }

  function refusal(q: QuestionRecord): DomainError {
    return q.status === 'ANSWERED'
      ? new DomainError('ALREADY_ANSWERED', 'the question was already answered')
      : new DomainError(
          'QUESTION_CLOSED',
          `the question is closed (${q.status.toLowerCase().replace('_', ' ')})`,
        );
  }

  /** Register first, then read: an answer landing in between is never missed. */
  async function wait(
    p: Principal,
    id: string,
    holdSeconds: number,
    signal?: AbortSignal,
  ): Promise<QuestionRecord> {
    const waiter = waiters.register(id);
    try {
      let q = await visible(p, id);
      if (q.status !== 'PENDING' || holdSeconds === 0) return q;
      const holdEnd = clock() + holdSeconds * 1000;
      const reachesDeadline = q.timeoutAt <= holdEnd;
      const until = Math.min(holdEnd, q.timeoutAt);
      const outcome = await raceWaiter(waiter, until - clock(), signal);
      if (outcome.kind === 'settled') return outcome.question;
      if (outcome.kind === 'timer' && reachesDeadline) {
        // The local timer sees the deadline at once; the claim guard makes it exactly once.
        const r = await claim(id, { status: 'TIMED_OUT' });
        if (r.kind !== 'missing') return r.question;
      }
      q = (await store.get(id)) ?? q;
      return q;
    } finally {
      waiter.dispose();
    }
  }

  async function resultOf(p: Principal, q: QuestionRecord, callbackUrl: string | null): Promise<AskResult> {
    let answer: unknown = null;
    if (q.status === 'ANSWERED') {
      if (!q.sensitive) answer = q.answer;
      else if (p.id === q.askedBy) answer = (await store.takeReply(q.id))?.value ?? null;
    }
    return { question: q, status: q.status, answer, callbackUrl };
  }

  /** A question nobody can receive must not wait: a failed delivery closes it. */
  async function deliver(q: QuestionRecord, callbackUrl: string): Promise<void> {
    try {
      await channels.deliver(q, callbackUrl);
    } catch (err) {
      logger.warn(
        { err: err instanceof Error ? err.message : 'unknown', channel: q.channel, questionId: q.id },
        'channel delivery failed',
      );
      await claim(q.id, { status: 'CANCELLED', cancelReason: 'channel delivery failed' });
      throw new DomainError('CHANNEL_DELIVERY_FAILED', `channel ${q.channel} could not deliver the question`);
    }
  }

  function needsCallback(format: string, channel: string | null): boolean {
    return format === 'EXTERNAL' || channel !== null;
  }

  return {
    async ask(p: Principal, input: unknown, opts: AskOptions = {}): Promise<AskResult> {
      if (!canAsk(p)) throw new DomainError('FORBIDDEN', 'this key may not ask questions');
      const preparedId = opts.preparedId ?? null;
      const hold = holdSecondsOf(opts.holdSeconds, settings.holdSeconds);
      const v = validateAskInput(input, {
        verifiers: verifiers.names(),
        channels: channels.names(),
        prepared: preparedId !== null,
      });
      if (v.verifier) verifiers.checkConfig(v.verifier.name, v.verifier.config);
      const audience = audienceFor(p, v.audience);
      if (preparedId !== null && (v.format !== 'EXTERNAL' || v.channel !== null)) {
        throw new DomainError(
          'BAD_USER_INPUT',
          'preparedId goes with an EXTERNAL question and no channel',
          'preparedId',
        );
      }
      if (preparedId !== null && (typeof preparedId !== 'string' || preparedId.length > MAX_ID_CHARS)) {
        throw new DomainError('NOT_FOUND', 'preparedId is unknown or expired', 'preparedId');
      }
      let ticketHash: string | null = null;
      let callbackUrl: string | null = null;
      let link = v.link;
      if (needsCallback(v.format, v.channel)) {
        if (!settings.publicBaseUrl) {
          throw new DomainError('NOT_CONFIGURED', 'INTERACTIONS_PUBLIC_BASE_URL is not set on this server');
        }
        if (preparedId === null) {
          const t = mintTicket();
          ticketHash = t.hash;
          callbackUrl = callbackUrlFor(settings.publicBaseUrl, t.ticket);
        }
        if (link !== null) link = resolveLink(link, callbackUrl ?? '', preparedId !== null);
      }
      const now = clock();
      const spec: QuestionSpec = {
        id: preparedId ?? randomUUID(),
        text: v.text,
        format: v.format,
        options: v.options,
        schema: v.schema,
        // A verifier-bound question's link is never shown, so it is not kept either.
        link: v.verifier ? null : link,
        verifier: v.verifier,
        media: v.media,
        groupId: v.groupId,
        audience,
        channel: v.channel,
        recipient: v.recipient,
        sensitive: v.sensitive,
        askedBy: p.id,
        idempotencyKey: v.idempotencyKey,
        createdAt: now,
        timeoutAt: now + timeoutSecondsOf(v.timeoutSeconds, settings.answerTimeoutSeconds) * 1000,
      };
      const created = await store.create(spec, {
        maxPending: settings.maxPending,
        retentionMs,
        ticketHash,
        preparedId,
      });
      if (created.kind === 'limit') {
        throw new DomainError('LIMIT_EXCEEDED', 'too many questions are pending; try again later');
      }
      if (created.kind === 'no-reservation') {
        throw new DomainError('NOT_FOUND', 'preparedId is unknown or expired', 'preparedId');
      }
      // An idempotent retry waits on the first question; its callback URL was shown once.
      if (created.kind === 'existing') callbackUrl = null;
      if (created.kind === 'created' && spec.channel !== null) await deliver(created.question, callbackUrl!);
      const q = await wait(p, created.question.id, hold, opts.signal);
      return resultOf(p, q, callbackUrl);
    },

    async awaitAnswer(p: Principal, id: string, opts: WaitOptions = {}): Promise<AskResult> {
      const hold = holdSecondsOf(opts.holdSeconds, settings.holdSeconds);
      const q = await wait(p, id, hold, opts.signal);
      return resultOf(p, q, null);
    },

    async prepareExternal(p: Principal, timeoutSeconds?: number | null): Promise<PreparedExternal> {
      if (!canAsk(p)) throw new DomainError('FORBIDDEN', 'this key may not ask questions');
      const seconds = timeoutSecondsOf(timeoutSeconds, settings.answerTimeoutSeconds);
      if (!settings.publicBaseUrl) {
        throw new DomainError('NOT_CONFIGURED', 'INTERACTIONS_PUBLIC_BASE_URL is not set on this server');
      }
      const t = mintTicket();
      const prepared = { id: randomUUID(), expiresAt: clock() + seconds * 1000 };
      await store.reserve({ ...prepared, ticketHash: t.hash });
      return { ...prepared, callbackUrl: callbackUrlFor(settings.publicBaseUrl, t.ticket) };
    },

    async answer(p: Principal, id: string, answer: unknown): Promise<QuestionRecord> {
      const q = await visible(p, id);
      if (!canAnswer(p)) throw new DomainError('FORBIDDEN', 'this key may not answer questions');
      if (q.format === 'EXTERNAL') {
        throw new DomainError('WRONG_DOOR', 'an EXTERNAL question is answered through its callback URL');
      }
      if (q.status !== 'PENDING') throw refusal(q);
      const value = validateAnswer(q, answer);
      const r = await claim(q.id, {
        status: 'ANSWERED',
        answer: q.sensitive ? null : value,
        reply: q.sensitive ? value : undefined,
        answeredBy: p.id,
      });
      if (r.kind === 'missing') throw notFound();
      if (r.kind === 'lost') throw refusal(r.question);
      return r.question;
    },

    async cancel(p: Principal, id: string, reason?: string | null): Promise<QuestionRecord> {
      const q = await visible(p, id);
      if (!canCancel(p, q)) throw new DomainError('FORBIDDEN', 'this key may not cancel this question');
      const cancelReason = cancelReasonOf(reason);
      if (q.status !== 'PENDING') throw refusal(q);
      const r = await claim(q.id, { status: 'CANCELLED', cancelReason });
      if (r.kind === 'missing') throw notFound();
      if (r.kind === 'lost') throw refusal(r.question);
      return r.question;
    },

    async get(p: Principal, id: string): Promise<QuestionRecord | null> {
      try {
        return await visible(p, id);
      } catch (err) {
        if (err instanceof DomainError && err.code === 'NOT_FOUND') return null;
        throw err;
      }
    },

    async list(p: Principal, rawFilter: ListFilter, page: PageRequest): Promise<Page> {
      const first = pageSizeOf(page.first);
      const filter: ListFilter = filterOf(rawFilter);
      const scope = visibilityScope(p);
      const empty: Page = { items: [], totalCount: 0, hasNextPage: false, endCursor: null };
      if (scope === 'none') return empty;
      if (scope.audience && filter.audience != null && filter.audience !== scope.audience) return empty;
      return store.list({ ...filter, ...scope }, { first, after: page.after ?? null });
    },

    async pending(p: Principal): Promise<QuestionRecord[]> {
      const scope = visibilityScope(p);
      return scope === 'none' ? [] : store.pending(scope);
    },

    watch(p: Principal, listener: FeedListener): () => void {
      const feed = { principal: p, listener };
      feeds.add(feed);
      return () => feeds.delete(feed);
    },

    async start(): Promise<void> {
      if (unlisten) return;
      waiters.reopen();
      unlisten = await store.listen({
        event(e) {
          waiters.notify(e.question);
          for (const f of feeds) {
            if (canSee(f.principal, e.question)) f.listener.event(e);
          }
        },
        resync() {
          reaper.sweep().catch((err: unknown) => logger.error({ err }, 'resync sweep failed'));
          for (const f of feeds) f.listener.resync();
        },
      });
      reaper.start();
    },

    async stop(): Promise<void> {
      // Local waits return what they have (PENDING re-attaches elsewhere); feeds end.
      waiters.release();
      for (const f of feeds) f.listener.close?.();
      feeds.clear();
      reaper.stop();
      unlisten?.();
      unlisten = null;
    },

    ready: () => store.ping(),
    channels: () => [...channels.names()].sort(),
    callback: (req) => callbacks.handle(req),
    callbackPage: (ticket) => callbacks.page(ticket),
    waiterCount: () => waiters.size(),
  };
}
