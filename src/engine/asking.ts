// Asking: validate the whole input, mint the callback ticket (or consume a prepareExternal
// reservation), create the question in one store step, deliver it to its channel, then
// hold the caller like awaitAnswer does.
import { randomUUID } from 'node:crypto';
import { audienceFor, canAsk } from '../domain/access.ts';
import { resolveLink, validateAskInput } from '../domain/ask-input.ts';
import { holdSecondsOf, timeoutSecondsOf } from '../domain/call-args.ts';
import { DomainError } from '../domain/errors.ts';
import { checkLadderTiming, dueTimesOf, type EscalationStep } from '../domain/escalation.ts';
import type { Principal } from '../domain/principal.ts';
import type { QuestionRecord, QuestionSpec } from '../domain/question.ts';
import { limitMessage, mediaBytesOf, type Quota } from '../domain/quotas.ts';
import { clip } from '../domain/values.ts';
import type { AnswerPath } from './answers/record.ts';
import { createShortLinks } from './answers/short-links.ts';
import { callbackUrlFor, mintTicket, reservationKey } from './answers/tickets.ts';
import { type EngineContext, MAX_ID_CHARS, quotaFor } from './context.ts';
import { deliveryToStore } from './deliveries/stored.ts';
import { followUpsOf } from './outbox/follow-ups.ts';
import { createNotificationPrefs } from './people/notification-prefs.ts';
import { createChannelHold } from './people/quiet-channels.ts';
import { routeToPeople } from './people/routing.ts';
import { applyPoliciesAndGrants, createGrantUse } from './policies/grants.ts';
import { createRuleSet } from './policies/rule-set.ts';
import type { AskOptions, Interactions } from './types.ts';
import type { Waiting } from './waiting/waiting.ts';

type ValidAsk = ReturnType<typeof validateAskInput>;

/**
 * The engine's own asks (never a door's): `linkFor` makes a link question (API.md §22) for that
 * person, who must be the asker. It skips `canAsk`, since a person who only answers must be able
 * to link a channel; the linking service (people/linking.ts) checks `canAnswer` instead. The
 * doors cannot reach it: they pass their input to `ask`, whose validation refuses unknown fields.
 */
export interface InternalAskOptions extends AskOptions {
  linkFor?: string;
}

/** What createAsking gives the engine: `ask` takes the internal options too. */
export type Asking = Pick<Interactions, 'prepareExternal' | 'quota'> & {
  ask(p: Principal, input: unknown, opts?: InternalAskOptions): ReturnType<Interactions['ask']>;
};

const unknownPrepared = (): DomainError =>
  new DomainError('NOT_FOUND', 'preparedId is unknown or expired', 'preparedId');

function forbiddenToAsk(): DomainError {
  return new DomainError('FORBIDDEN', 'this key may not ask questions');
}

/** The longest cause a CHANNEL_DELIVERY_FAILED message carries. */
const CAUSE_MAX_CHARS = 200;

/**
 * Why a delivery failed, for the asker: the plugin's error message (built-ins say the
 * provider's status or error code, or the network error), on one line, cut short, and with
 * anything that looks like a URL removed, in case a plugin's message holds one with a token.
 */
export function deliveryCause(err: unknown): string {
  const message = err instanceof Error ? err.message : '';
  const cause = message
    .replace(/[a-z][a-z0-9+.-]*:\/\/\S*/gi, '<url>')
    .replace(/\s+/g, ' ')
    .trim();
  return cause === '' ? 'no reason given' : clip(cause, CAUSE_MAX_CHARS);
}

function notConfigured(): DomainError {
  return new DomainError('NOT_CONFIGURED', 'INTERACTIONS_PUBLIC_BASE_URL is not set on this server');
}

/** A prepared id goes with an EXTERNAL question without channel, and is a bounded string. */
function checkPrepared(preparedId: unknown, v: ValidAsk): void {
  if (v.format !== 'EXTERNAL' || v.channel !== null) {
    throw new DomainError(
      'BAD_USER_INPUT',
      'preparedId goes with an EXTERNAL question and no channel',
      'preparedId',
    );
  }
  if (typeof preparedId !== 'string' || preparedId.length > MAX_ID_CHARS) throw unknownPrepared();
}

/** Where a new question stands apart from its validated input. */
interface SpecContext {
  id: string;
  link: string | null;
  audience: string | null;
  now: number;
  defaultTimeoutSeconds: number;
}

function specOf(p: Principal, v: ValidAsk, c: SpecContext): QuestionSpec {
  const timeoutSeconds = timeoutSecondsOf(v.timeoutSeconds, c.defaultTimeoutSeconds);
  if (v.escalation) checkLadderTiming(v.escalation.steps, timeoutSeconds, v.escalation.field);
  const spec: QuestionSpec = {
    id: c.id,
    text: v.text,
    format: v.format,
    options: v.options,
    schema: v.schema,
    // A verifier-bound question's link is never shown, so it is not kept either.
    link: v.verifier ? null : c.link,
    verifier: v.verifier,
    media: v.media,
    groupId: v.groupId,
    audience: c.audience,
    channel: v.channel,
    recipient: v.recipient,
    sensitive: v.sensitive,
    askedBy: p.id,
    idempotencyKey: v.idempotencyKey,
    metadata: v.metadata,
    notify: v.notify,
    createdAt: c.now,
    timeoutAt: c.now + timeoutSeconds * 1000,
    ...(v.escalation ? { escalation: v.escalation.steps } : {}),
  };
  // Only APPROVAL and quorum questions carry these, so every other record keeps its shape.
  if (v.action) spec.action = v.action;
  if (v.quorum) spec.quorum = v.quorum;
  return spec;
}

export function createAsking(
  ctx: EngineContext,
  waiting: Waiting,
  answers: Pick<AnswerPath, 'decideByRule'>,
): Asking {
  const { store, settings, clock, logger, verifiers, channels, observer } = ctx;
  const policies = ctx.policies ?? createRuleSet();
  const shortLinks = createShortLinks({ ...ctx, publicBaseUrl: ctx.settings.publicBaseUrl });
  // Quiet hours and digests of the person a recipient is linked to (API.md §22); no links: never held.
  const prefs = createNotificationPrefs(store.people, clock);
  const heldOnChannel = ctx.channelLinks
    ? createChannelHold({
        links: ctx.channelLinks,
        prefsOf: (id) => prefs.get(id),
        people: store.people,
        outbox: store.outbox,
        clock,
        addressesPeople: (name) => channels.instance?.(name)?.needsRecipient === true,
      })
    : async () => false;

  /** The callback ticket and URL a new question gets, and its link with the URL filled in. */
  function callbackFor(v: ValidAsk, prepared: boolean) {
    const none = { ticketHash: null as string | null, callbackUrl: null as string | null, link: v.link };
    if (v.format !== 'EXTERNAL' && v.channel === null) return none;
    if (!settings.publicBaseUrl) throw notConfigured();
    if (prepared) return { ...none, link: v.link === null ? null : resolveLink(v.link, '', true) };
    const t = mintTicket();
    const callbackUrl = callbackUrlFor(settings.publicBaseUrl, t.ticket);
    const link = v.link === null ? null : resolveLink(v.link, callbackUrl, false);
    return { ticketHash: t.hash, callbackUrl, link };
  }

  /**
   * The recipient stored with a channel question: the one asked for, else the channel's
   * default; refused before anything is stored when the channel cannot address it.
   */
  function recipientOf(v: Pick<ValidAsk, 'channel' | 'recipient'>, field = 'input.recipient'): string | null {
    if (v.channel === null) return v.recipient;
    const instance = channels.instance?.(v.channel);
    const recipient = v.recipient ?? instance?.defaultRecipient ?? null;
    if (recipient === null) {
      if (instance?.needsRecipient) {
        throw new DomainError(
          'BAD_USER_INPUT',
          `channel ${v.channel} needs a recipient and has no defaultRecipient`,
          field,
        );
      }
      return null;
    }
    const problem = instance?.checkRecipient?.(recipient) ?? null;
    if (problem !== null) throw new DomainError('BAD_USER_INPUT', `recipient ${problem}`, field);
    return recipient;
  }

  /** The recipient as written, the channel's default filled in (or as given, when it is refused later). */
  function defaultedRecipient(v: Pick<ValidAsk, 'channel' | 'recipient'>): string | null {
    if (v.channel === null || v.recipient !== null) return v.recipient;
    return channels.instance?.(v.channel)?.defaultRecipient ?? null;
  }

  /** A REROUTE step's recipient follows its channel's rules, as the question's own does. */
  function ladderRecipients(v: ValidAsk): ValidAsk['escalation'] {
    if (!v.escalation) return null;
    const { field } = v.escalation;
    const steps = v.escalation.steps.map(
      (s, i): EscalationStep =>
        s.action === 'REROUTE' ? { ...s, recipient: recipientOf(s, `${field}[${i}].recipient`) } : s,
    );
    return { steps, field };
  }

  /** When the last "outbox full" warning was logged: once a minute is an alert, not a flood. */
  let outboxFullLoggedAt = Number.NEGATIVE_INFINITY;

  /** The outbox is at its cap: count it (the alert metric), say so in the log, refuse the ask. */
  function outboxFull(quota: Quota): DomainError {
    observer.outboxFull();
    const now = clock();
    if (now - outboxFullLoggedAt >= 60_000) {
      outboxFullLoggedAt = now;
      logger.warn(
        { outboxMax: settings.maxOutbox },
        'outbox full: questions with a channel or notify are refused until it drains (INTERACTIONS_OUTBOX_MAX)',
      );
    }
    return new DomainError('LIMIT_EXCEEDED', limitMessage('outbox', quota, 0, settings.maxOutbox));
  }

  /**
   * A question nobody can receive must not wait: a failed delivery closes it. The delivery is
   * recorded either way (null: nothing was sent, so its follow-up has no message to edit).
   */
  async function deliver(q: QuestionRecord, callbackUrl: string): Promise<void> {
    let delivery: unknown;
    try {
      delivery = await channels.deliver(await shortLinks.forChannel(q), callbackUrl);
      observer.channelDelivery(q.channel!, 'delivered');
    } catch (err) {
      observer.channelDelivery(q.channel!, 'failed');
      logger.warn(
        { err: err instanceof Error ? err.message : 'unknown', channel: q.channel, questionId: q.id },
        'channel delivery failed',
      );
      await store.deliveries.save(q.id, null);
      await ctx.claim(q.id, { status: 'CANCELLED', cancelReason: 'channel delivery failed' });
      throw new DomainError(
        'CHANNEL_DELIVERY_FAILED',
        `channel ${q.channel} could not deliver the question: ${deliveryCause(err)}`,
      );
    }
    const kept = deliveryToStore(delivery);
    if (kept.trimmed) {
      logger.warn(
        { channel: q.channel, questionId: q.id },
        'channel delivery record is not small JSON: kept its keys only',
      );
    }
    await store.deliveries.save(q.id, kept.delivery, clock());
  }

  return {
    async quota(p) {
      return { usage: await store.usage(p.id), limits: quotaFor(settings, p) };
    },

    async ask(p, input, opts: InternalAskOptions = {}) {
      const linkFor = opts.linkFor;
      if (linkFor !== undefined ? linkFor !== p.id : !canAsk(p)) throw forbiddenToAsk();
      const preparedId = opts.preparedId ?? null;
      const hold = holdSecondsOf(opts.holdSeconds, settings.holdSeconds);
      const checked = validateAskInput(input, {
        verifiers: verifiers.names(),
        channels: channels.names(),
        webhooks: ctx.webhooks,
        prepared: preparedId !== null,
        ...(ctx.escalationPolicies ? { policies: ctx.escalationPolicies } : {}),
      });
      if (checked.verifier) verifiers.checkConfig(checked.verifier.name, checked.verifier.config);
      const now = clock();
      const id = preparedId ?? randomUUID();
      // A grant's use is counted (and audited) under the id the question is about to get.
      const ruled = await applyPoliciesAndGrants(
        checked,
        {
          index: policies.index(),
          askedBy: p.id,
          audience: audienceFor(p, checked.audience),
          now,
          escalationPolicies: ctx.escalationPolicies,
          observer,
          recipient: defaultedRecipient(checked),
        },
        createGrantUse(ctx, id),
      );
      const v = ruled.v;
      const recipient = recipientOf(v);
      const escalation = ladderRecipients(v);
      if (preparedId !== null) checkPrepared(preparedId, v);
      const cb = callbackFor(v, preparedId !== null);
      const spec = specOf(
        p,
        { ...v, recipient, escalation },
        {
          id,
          link: cb.link,
          audience: ruled.kind === 'ask' ? ruled.audience : audienceFor(p, v.audience),
          now,
          defaultTimeoutSeconds: settings.answerTimeoutSeconds,
        },
      );
      if (ruled.policy) spec.policy = ruled.policy;
      if (linkFor !== undefined) spec.linkFor = linkFor;
      if (ruled.shadow.length > 0) spec.policyShadow = ruled.shadow;
      // Before the follow-ups are computed: a sampled trace adds the `trace` item.
      if (ctx.tracing) spec.trace = ctx.tracing.begin(opts.trace ?? null);
      routeToPeople(spec, ctx.directory, now);
      const quota = quotaFor(settings, p);
      const created = await store.create(spec, {
        ...quota,
        retentionMs: ctx.retentionMs,
        ticketHash: cb.ticketHash,
        preparedId: preparedId === null ? null : reservationKey(p.id, preparedId),
        followUps: followUpsOf(spec),
        escalationDue: spec.escalation ? dueTimesOf(spec.createdAt, spec.escalation) : null,
        // A question a rule decides is pushed to nobody (API.md §20).
        askFollowUps: ctx.askFollowUps && ruled.kind !== 'decided' ? await ctx.askFollowUps() : null,
        ...(settings.maxOutbox === undefined ? {} : { maxOutbox: settings.maxOutbox }),
        ...(opts.joinWhilePending ? { joinWhilePending: true } : {}),
      });
      if (created.kind === 'limit' && created.limit === 'outbox') throw outboxFull(quota);
      if (created.kind === 'limit') {
        throw new DomainError('LIMIT_EXCEEDED', limitMessage(created.limit, quota, mediaBytesOf(spec.media)));
      }
      if (created.kind === 'no-reservation') throw unknownPrepared();
      // An idempotent retry waits on the first question; its callback URL was shown once.
      if (ruled.kind === 'decided' && created.kind === 'created') {
        return waiting.resultOf(p, await answers.decideByRule(created.question, ruled), null);
      }
      const callbackUrl = created.kind === 'existing' ? null : cb.callbackUrl;
      // Held: the `quiet:<channel>` item sends it when the hold ends, with a callback URL of its own.
      if (created.kind === 'created' && spec.channel !== null && !(await heldOnChannel(created.question)))
        await deliver(created.question, callbackUrl!);
      if (created.kind === 'created') ctx.onAsked?.(created.question);
      // Not held, and nothing since the create wrote to it: the question as created is the answer
      // (a read would cost a round trip to learn the same).
      if (hold === 0 && created.kind === 'created' && spec.channel === null)
        return waiting.resultOf(p, created.question, callbackUrl);
      return waiting.wait(p, created.question.id, hold, opts.signal, callbackUrl);
    },

    async prepareExternal(p, timeoutSeconds) {
      if (!canAsk(p)) throw forbiddenToAsk();
      // Its lifetime is bounded like an answer timeout (at most TIMEOUT_MAX_SECONDS).
      const seconds = timeoutSecondsOf(timeoutSeconds, settings.answerTimeoutSeconds);
      if (!settings.publicBaseUrl) throw notConfigured();
      const t = mintTicket();
      const now = clock();
      const prepared = { id: randomUUID(), expiresAt: now + seconds * 1000 };
      // A reservation holds a place of its key's pending cap until it is asked or expires, so
      // reserving cannot grow the store past what asking could.
      const quota = quotaFor(settings, p);
      // Only its preparer can consume it: the store keeps it under a key derived from both.
      const reserved = await store.reserve(
        {
          id: reservationKey(p.id, prepared.id),
          owner: p.id,
          expiresAt: prepared.expiresAt,
          ticketHash: t.hash,
        },
        { maxPendingPerPrincipal: quota.maxPendingPerPrincipal, now },
      );
      if (reserved === 'limit') {
        throw new DomainError('LIMIT_EXCEEDED', limitMessage('pendingPerPrincipal', quota, 0));
      }
      return { ...prepared, callbackUrl: callbackUrlFor(settings.publicBaseUrl, t.ticket) };
    },
  };
}
