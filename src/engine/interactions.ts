// The Interactions service: ask, wait, answer, cancel, expire. Surfaces call only this;
// the store is the truth, announcements wake waiters, and every resolution goes through
// the store's one claim guard. This file wires the parts and owns the engine's lifecycle
// (the one subscription to the store of this process, which also wakes the outbox worker and
// the escalation alarm; the reaper; the live feeds).

import { holdSecondsOf } from '../domain/call-args.ts';
import type { EscalationStep } from '../domain/escalation.ts';
import type { PolicyRule } from '../domain/policy/rule.ts';
import type { QuestionRecord } from '../domain/question.ts';
import type { QuestionStore } from '../store/types.ts';
import { createAnswerHere } from './answers/answer-here.ts';
import { createAnswering } from './answers/answering.ts';
import { createCallbacks } from './answers/callbacks.ts';
import { actsForOf } from './answers/on-behalf.ts';
import { createPasskeyDoors } from './answers/passkey-doors.ts';
import { createRecordAnswer } from './answers/record.ts';
import { createShortLinks } from './answers/short-links.ts';
import { stepUpRequired } from './answers/step-up.ts';
import { createAsking } from './asking.ts';
import { createAuditChainer } from './audit-chainer.ts';
import { createContext, type EngineSettings } from './context.ts';
import { createChannelInbound, inboundMaxBytesOf } from './deliveries/inbound.ts';
import { createEscalationAlarm } from './escalation-alarm.ts';
import { createExecution } from './execution.ts';
import type { Logger } from './logger.ts';
import { silentLogger } from './logger.ts';
import { createDeadLetters } from './outbox/dead-letters.ts';
import { hasFollowUps } from './outbox/follow-ups.ts';
import type { TracingPort } from './outbox/trace-span.ts';
import { createChannelLinks } from './people/channel-links.ts';
import type { Directory } from './people/directory.ts';
import { createChannelLinking } from './people/linking.ts';
import { createNameCache } from './people/names.ts';
import type { People } from './people/people.ts';
import { createPresence } from './people/presence.ts';
import { createGrantAdmin } from './policies/grants.ts';
import { createRuleSet } from './policies/rule-set.ts';
import { policyShadowReport } from './policies/shadow-report.ts';
import { createPolicyAdmin } from './policies/store-rules.ts';
import { createPolicySuggestions } from './policies/suggestions.ts';
import {
  type ChannelDetail,
  type ChannelPort,
  type EngineObserver,
  NO_CHANNELS,
  NO_OBSERVER,
  NO_VERIFIERS,
  type ReceiptPort,
  type VerifierPort,
} from './ports.ts';
import { createReaper, DEFAULT_AUDIT_RETENTION_DAYS } from './reaper.ts';
import type { HoldHandle, Interactions } from './types.ts';
import { createAuditReader } from './views/audit.ts';
import { decisionStats } from './views/decision-stats.ts';
import { createListing } from './views/listing.ts';
import { createWatchers } from './views/watchers.ts';
import { createAnnounced } from './waiting/announced.ts';
import { createWaiterRegistry } from './waiting/waiters.ts';
import { createWaiting } from './waiting/waiting.ts';

export type { EngineSettings } from './context.ts';

export interface EngineDeps {
  store: QuestionStore;
  settings: EngineSettings;
  clock?: () => number;
  logger?: Logger;
  verifiers?: VerifierPort;
  channels?: ChannelPort;
  /** Resume-webhook endpoint names (the manifest's `webhooks`) an ask may `notify`. */
  webhooks?: readonly string[];
  /** The manifest's `escalationPolicies` (API.md §18), checked when it was read. */
  escalationPolicies?: Readonly<Record<string, readonly EscalationStep[]>>;
  observer?: EngineObserver;
  /** The manifest's policy rules (API.md §20), checked and compiled when it was read. */
  policies?: readonly PolicyRule[];
  /** Signs decision receipts; without it no receipt is given. */
  receipts?: ReceiptPort;
  /** Called once for each question this process stored (Web Push, API.md §19); never awaited. */
  onAsked?: (question: QuestionRecord) => void;
  /** Outbox targets a new question enqueues at once (`push` when anyone subscribed, API.md §19). */
  askFollowUps?: () => Promise<readonly string[]>;
  /** People's sessions and names (built once by the app and shared); absent: made from the store. */
  people?: People;
  /** OpenTelemetry traces (API.md §24); absent: nothing is traced. */
  tracing?: TracingPort;
  /** Groups and on-call rotations (API.md §22); absent: none. */
  directory?: Directory;
  /**
   * The outbox holds items due now: a resolution with follow-ups was announced (by any
   * instance), this instance moved escalation steps into it, or announcements may have been
   * lost (a resync). Wakes this process's outbox worker; called from the engine's one
   * subscription, so the worker needs no listener of its own.
   */
  wakeOutbox?: () => void;
}

const NOTHING_TO_CANCEL: HoldHandle = { cancel() {} };

export function createInteractions(deps: EngineDeps): Interactions & {
  /** Local waiters (for tests and metrics). */
  waiterCount(): number;
  /** Held asker calls of this process (metrics). */
  heldCount(): number;
  /** Live feeds of this process (metrics). */
  feedCount(): number;
} {
  const channelLinks = createChannelLinks(deps.store.people, deps.clock ?? Date.now);
  const ctx = createContext({
    store: deps.store,
    settings: deps.settings,
    clock: deps.clock ?? Date.now,
    logger: deps.logger ?? silentLogger,
    verifiers: deps.verifiers ?? NO_VERIFIERS,
    channels: deps.channels ?? NO_CHANNELS,
    webhooks: new Set(deps.webhooks ?? []),
    escalationPolicies: new Map(Object.entries(deps.escalationPolicies ?? {})),
    observer: deps.observer ?? NO_OBSERVER,
    policies: createRuleSet(deps.policies ?? []),
    waiters: createWaiterRegistry(),
    announced: createAnnounced(),
    ...(deps.onAsked ? { onAsked: deps.onAsked } : {}),
    ...(deps.askFollowUps ? { askFollowUps: deps.askFollowUps } : {}),
    ...(deps.people ? { people: deps.people } : {}),
    ...(deps.tracing ? { tracing: deps.tracing } : {}),
    ...(deps.directory ? { directory: deps.directory } : {}),
    // Separation of duties reads who acts for whom (a requester's delegates may not decide either).
    actsFor: actsForOf(deps.store.delegations),
    // Channel recipients linked to people (§22): written by a link question's answer, read by deliveries.
    channelLinks,
  });
  const { store, settings, clock, logger, waiters, announced, retentionMs } = ctx;
  const wakeOutbox = deps.wakeOutbox;
  const feeds = createWatchers();
  let unlisten: (() => void) | null = null;

  const nameOf = createNameCache(ctx.people, clock);
  // The one answer path every door records answers through (answers/record.ts).
  const answers = createRecordAnswer(ctx);
  const callbacks = createCallbacks({
    store,
    verifiers: ctx.verifiers,
    clock,
    retentionMs,
    logger,
    recordAnswer: answers.record,
    stepUpUrl: (id) => stepUpRequired(ctx, id).more?.url ?? '',
  });
  const reaper = createReaper({
    store,
    waiters,
    clock,
    logger,
    retentionMs,
    auditRetentionMs: (settings.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS) * 86_400_000,
    intervalMs: settings.reaperIntervalMs,
    sweepIntervalMs: settings.sweepIntervalMs ?? 5000,
    ...(wakeOutbox ? { onEscalated: wakeOutbox } : {}),
  });
  // The audit log's hash chain, in batches off every change's path (one instance at a time).
  const auditChainer = createAuditChainer({ store, logger });
  // A step is moved into the outbox when it falls due, not at the reaper's next poll.
  const escalationAlarm = createEscalationAlarm({ clock, due: () => reaper.escalateNow() });
  const waiting = createWaiting(ctx);
  const policyRules = createPolicyAdmin(ctx);
  const grants = createGrantAdmin(ctx, policyRules.refresh);
  const policySuggestions = createPolicySuggestions(ctx, policyRules);
  const channelInbound = createChannelInbound(ctx, answers);
  const shortLinks = createShortLinks({ ...ctx, publicBaseUrl: ctx.settings.publicBaseUrl });
  const asking = createAsking(ctx, waiting, answers);

  function channelDetail(name: string): ChannelDetail {
    const instance = ctx.channels.instance?.(name);
    // Channels mint callback URLs (the link buttons, the webhook receiver's answer door); the
    // loopback default reaches nobody elsewhere, so it counts as missing here too.
    const missing =
      settings.publicBaseUrl && !settings.publicBaseUrlLocal ? [] : ['INTERACTIONS_PUBLIC_BASE_URL'];
    return {
      name,
      plugin: ctx.channels.pluginOf?.(name) ?? null,
      inbound: Boolean(instance?.inbound),
      defaultRecipient: instance?.defaultRecipient ?? null,
      ready: missing.length === 0,
      missing,
    };
  }

  const presence = createPresence(store, clock, ctx.visible, ctx.directory);
  return {
    ...asking,
    ...createAnswering(ctx, answers.record),
    ...createAnswerHere(ctx, answers.record),
    ...createListing(ctx, presence.acting),
    ...createExecution(ctx, deps.receipts),
    presence,
    linking: createChannelLinking(ctx, channelLinks, asking.ask, nameOf),
    ...createPasskeyDoors(ctx, answers.record),

    async awaitAnswer(p, id, opts = {}) {
      const hold = holdSecondsOf(opts.holdSeconds, settings.holdSeconds);
      return waiting.wait(p, id, hold, opts.signal, null);
    },

    holdAnswer(p, id, opts, sink) {
      let hold: number;
      try {
        hold = holdSecondsOf(opts.holdSeconds, settings.holdSeconds);
      } catch (error) {
        queueMicrotask(() => sink.failed(error));
        return NOTHING_TO_CANCEL;
      }
      return waiting.hold(p, id, hold, null, sink);
    },

    watch(p, listener) {
      return feeds.add(p, listener);
    },

    async start() {
      if (unlisten) return;
      waiters.reopen();
      unlisten = await store.listen({
        event(e) {
          ctx.observer.announced(e);
          // Only a consumer with an interest in this question reads e.question (decoding it).
          const resolved = e.type !== 'ASKED' && e.type !== 'UPDATED';
          if (e.type === 'ASKED') {
            announced.observe(e.type, e.question);
            escalationAlarm.asked(e.question);
          } else if (resolved) {
            announced.forget(e.head.id);
            escalationAlarm.closed(e.head.id);
          }
          if (waiters.has(e.head.id)) waiters.notify(e.question);
          feeds.event(e);
          // Only a resolution of a question with follow-ups enqueued anything (most have none:
          // a lease round trip per resolution on every instance would be waste). Woken after
          // this announcement's waiters and feeds have had their turn, not in front of them.
          if (wakeOutbox && resolved && (e.followUps ?? hasFollowUps(e.question))) setImmediate(wakeOutbox);
        },
        resync() {
          announced.clear();
          reaper.sweep().catch((err: unknown) => logger.error({ err }, 'resync sweep failed'));
          feeds.resync();
          wakeOutbox?.();
        },
      });
      reaper.start();
      auditChainer.start();
      await policyRules.start();
    },

    async stop() {
      // Local waits return what they have (PENDING re-attaches elsewhere); feeds end.
      waiters.release();
      feeds.close();
      reaper.stop();
      auditChainer.stop();
      policyRules.stop();
      escalationAlarm.clear();
      announced.clear();
      unlisten?.();
      unlisten = null;
    },

    ready: () => store.ping(),
    channels: () => [...ctx.channels.names()].sort(),
    channelDetails: () => [...ctx.channels.names()].sort().map(channelDetail),
    channelInboundMaxBytes: (name) =>
      ctx.channels.names().has(name) ? inboundMaxBytesOf(ctx.channels.instance?.(name)) : null,
    channelInboundDoor: (name) => {
      const instance = ctx.channels.names().has(name) ? ctx.channels.instance?.(name) : undefined;
      return {
        stream: instance?.inbound !== undefined && instance.inboundStream === true,
        rateLimited: instance?.inbound !== undefined && instance.inboundRateLimited === true,
      };
    },
    outboxDeadLetters: createDeadLetters(store, clock),
    channelInbound,
    followLink: (token) => shortLinks.follow(token),
    callback: (req) => callbacks.handle(req),
    callbackPage: (ticket, choice) => callbacks.page(ticket, choice),
    policyRules,
    grants,
    policySuggestions,
    policyShadowReport: (p, ruleId) => policyShadowReport(store, p, ruleId),
    decisionStats: (p, args) =>
      decisionStats({ store, clock, maxQuestions: settings.statsMaxQuestions }, p, args),
    receipt: async (question) => (deps.receipts ? deps.receipts.sign(question) : null),
    nameOf,
    audit: createAuditReader(store),
    signObject: async (payload) => (deps.receipts?.signObject ? deps.receipts.signObject(payload) : null),
    async escalations(question) {
      const steps = question.escalation ?? [];
      if (steps.length === 0) return [];
      const fired = await store.escalations(question.id);
      return steps.map((s, i) => ({
        ...s,
        firedAt: fired.get(i)?.firedAt ?? null,
        outcome: fired.get(i)?.outcome ?? null,
        ...(fired.get(i)?.routedTo !== undefined ? { routedTo: fired.get(i)?.routedTo ?? null } : {}),
      }));
    },
    waiterCount: () => waiters.size(),
    heldCount: () => waiters.held(),
    feedCount: () => feeds.size(),
  };
}
