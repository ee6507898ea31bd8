// What every part of the engine shares: its dependencies, settings, the local waiters, and
// the two reads every operation starts from (a visible question, a claim through the guard).

import { canSee } from '../domain/access.ts';
import { DomainError, notFound } from '../domain/errors.ts';
import type { EscalationStep } from '../domain/escalation.ts';
import type { Principal } from '../domain/principal.ts';
import type { QuestionRecord } from '../domain/question.ts';
import {
  DEFAULT_MAX_PENDING_MEDIA_BYTES,
  DEFAULT_MAX_PENDING_MEDIA_BYTES_PER_PRINCIPAL,
  DEFAULT_MAX_PENDING_PER_PRINCIPAL,
  type Quota,
} from '../domain/quotas.ts';
import type { ClaimInput, ClaimResult, QuestionStore } from '../store/types.ts';
import { seesAsDelegate } from './answers/on-behalf.ts';
import type { ActsFor } from './answers/separation.ts';
import type { Logger } from './logger.ts';
import type { TracingPort } from './outbox/trace-span.ts';
import type { ChannelLinks } from './people/channel-links.ts';
import { createDirectory, type Directory } from './people/directory.ts';
import { createPeople, type People } from './people/people.ts';
import type { RuleSet } from './policies/rule-set.ts';
import type { ChannelPort, EngineObserver, VerifierPort } from './ports.ts';
import type { Announced } from './waiting/announced.ts';
import type { WaiterRegistry } from './waiting/waiters.ts';

export interface EngineSettings {
  answerTimeoutSeconds: number;
  holdSeconds: number;
  retentionSeconds: number;
  maxPending: number;
  /** Defaults in domain/quotas.ts; a principal's own maxPending overrides the first. */
  maxPendingPerPrincipal?: number;
  maxPendingMediaBytesPerPrincipal?: number;
  maxPendingMediaBytes?: number;
  /** Outbox items at which questions with follow-ups are refused; no cap when absent. */
  maxOutbox?: number;
  publicBaseUrl: string | null;
  /** The base URL is the loopback default: callback URLs work on this machine only. */
  publicBaseUrlLocal?: boolean;
  reaperIntervalMs: number;
  /** How often every local waiter re-reads its question (a net under lost announcements). */
  sweepIntervalMs?: number;
  /** Days audit entries are kept (default 400); trimmed by the reaper's prune. */
  auditRetentionDays?: number;
  /** Most questions one decisionStats call reads (default 100,000; API.md §24). */
  statsMaxQuestions?: number;
}

export interface EngineContext {
  store: QuestionStore;
  settings: EngineSettings;
  clock: () => number;
  logger: Logger;
  verifiers: VerifierPort;
  channels: ChannelPort;
  /** Resume-webhook endpoint names an ask may `notify`. */
  webhooks: ReadonlySet<string>;
  /** The manifest's escalation policies an ask may name (API.md §18). */
  escalationPolicies?: ReadonlyMap<string, readonly EscalationStep[]>;
  observer: EngineObserver;
  /** The policy rules asks are decided with (API.md §20); absent: none. */
  policies?: RuleSet;
  retentionMs: number;
  waiters: WaiterRegistry;
  /** Pending questions this process saw announced. */
  announced: Announced;
  /** Called once for each question this process stored (Web Push, API.md §19); never awaited. */
  onAsked?: (question: QuestionRecord) => void;
  /** Outbox targets a new question enqueues at once (`push` when anyone subscribed, API.md §19). */
  askFollowUps?: () => Promise<readonly string[]>;
  /** People's sessions and names: one for the whole process (API.md §19). */
  people: People;
  /** OpenTelemetry traces (API.md §24); absent when not configured (nothing is traced). */
  tracing?: TracingPort;
  /** Groups and on-call rotations (API.md §22); an empty directory when none are configured. */
  directory: Directory;
  /** The people an identity acts for (their delegate, §22), for separation of duties; absent: none. */
  actsFor?: ActsFor;
  /**
   * Channel recipients linked to people (API.md §22): recorded by a link question's answer; their
   * person's quiet hours and digest hold a question delivered there. Absent: none, nothing held.
   */
  channelLinks?: ChannelLinks;
  /** The question if this principal may see it; NOT_FOUND otherwise (no existence oracle). */
  visible(p: Principal, id: unknown): Promise<QuestionRecord>;
  /**
   * As `visible`, from the announced questions without a read: the question as it was asked
   * (still PENDING there, whatever it is now), or null when this process does not hold it.
   */
  visibleAnnounced(p: Principal, id: unknown): QuestionRecord | null;
  /**
   * A resolution through the store's one claim guard, stamped with now and retention. Whatever
   * the outcome, the question leaves this process's announced ones.
   */
  claim(id: string, input: Omit<ClaimInput, 'now' | 'retentionMs'>): Promise<ClaimResult>;
}

export const MAX_ID_CHARS = 128;

function checkedId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_CHARS) throw notFound();
  return id;
}

export function createContext(
  base: Omit<
    EngineContext,
    'retentionMs' | 'visible' | 'visibleAnnounced' | 'claim' | 'people' | 'directory'
  > & {
    /** Absent: made from the store (an engine on its own, a test). */
    people?: People;
    /** Absent: no groups. */
    directory?: Directory;
  },
): EngineContext {
  const retentionMs = base.settings.retentionSeconds * 1000;
  return {
    ...base,
    people: base.people ?? createPeople(base.store.people, base.clock),
    directory: base.directory ?? createDirectory(),
    retentionMs,
    async visible(p, id) {
      const q = await base.store.get(checkedId(id));
      if (!q) throw notFound();
      // A restricted person also sees what was handed to them by delegation (API.md §22).
      if (
        !canSee(p, q) &&
        !(p.restricted && (await seesAsDelegate(base.store.delegations, base.clock(), p.id, q)))
      )
        throw notFound();
      return q;
    },
    visibleAnnounced(p, id) {
      const q = base.announced.get(checkedId(id));
      if (q && !canSee(p, q)) {
        // Perhaps a delegate's: `visible` reads and decides (answering.ts and waiting.ts fall back to it).
        if (p.restricted) return null;
        throw notFound();
      }
      return q ?? null;
    },
    async claim(id, input) {
      const r = await base.store.claim(id, { ...input, now: base.clock(), retentionMs });
      // Whoever won, it is no longer pending: this process reads its own resolution at once,
      // not when the announcement comes back (a feed's backlog takes held copies as pending).
      base.announced.forget(id);
      return r;
    },
  };
}

/** The caps a principal's asks are checked against. */
export function quotaFor(settings: EngineSettings, p: Principal): Quota {
  return {
    maxPending: settings.maxPending,
    maxPendingPerPrincipal:
      p.maxPending ?? settings.maxPendingPerPrincipal ?? DEFAULT_MAX_PENDING_PER_PRINCIPAL,
    maxMediaBytesPerPrincipal:
      settings.maxPendingMediaBytesPerPrincipal ?? DEFAULT_MAX_PENDING_MEDIA_BYTES_PER_PRINCIPAL,
    maxMediaBytes: settings.maxPendingMediaBytes ?? DEFAULT_MAX_PENDING_MEDIA_BYTES,
  };
}

/**
 * Why a claim on a question that is no longer pending is refused. `by`: who is answering now;
 * when they gave the sensitive answer that closed it, say why a retry is not recognised.
 */
export function refusal(q: QuestionRecord, by?: string): DomainError {
  if (q.status === 'ANSWERED' && q.sensitive && by !== undefined && q.answeredBy === by) {
    return new DomainError(
      'ALREADY_ANSWERED',
      'the question was already answered, by you: a sensitive answer is not kept, so a retry cannot be matched to it',
    );
  }
  return q.status === 'ANSWERED'
    ? new DomainError('ALREADY_ANSWERED', 'the question was already answered')
    : new DomainError(
        'QUESTION_CLOSED',
        `the question is closed (${q.status.toLowerCase().replace('_', ' ')})`,
      );
}
