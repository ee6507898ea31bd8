// What every part of the engine shares: its dependencies, settings, the local waiters, and
// the two reads every operation starts from (a visible question, a claim through the guard).
import { canSee } from '../domain/access.ts';
import { DomainError, notFound } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { QuestionRecord } from '../domain/question.ts';
import type { ClaimInput, ClaimResult, QuestionStore } from '../store/types.ts';
import type { Logger } from './logger.ts';
import type { ChannelPort, VerifierPort } from './ports.ts';
import type { WaiterRegistry } from './waiters.ts';

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

export interface EngineContext {
  store: QuestionStore;
  settings: EngineSettings;
  clock: () => number;
  logger: Logger;
  verifiers: VerifierPort;
  channels: ChannelPort;
  /** Resume-webhook endpoint names an ask may `notify`. */
  webhooks: ReadonlySet<string>;
  retentionMs: number;
  waiters: WaiterRegistry;
  /** The question if this principal may see it; NOT_FOUND otherwise (no existence oracle). */
  visible(p: Principal, id: unknown): Promise<QuestionRecord>;
  /** A resolution through the store's one claim guard, stamped with now and retention. */
  claim(id: string, input: Omit<ClaimInput, 'now' | 'retentionMs'>): Promise<ClaimResult>;
}

export const MAX_ID_CHARS = 128;

export function createContext(base: Omit<EngineContext, 'retentionMs' | 'visible' | 'claim'>): EngineContext {
  const retentionMs = base.settings.retentionSeconds * 1000;
  return {
    ...base,
    retentionMs,
    async visible(p, id) {
      if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_CHARS) throw notFound();
      const q = await base.store.get(id);
      if (!q || !canSee(p, q)) throw notFound();
      return q;
    },
    claim(id, input) {
      return base.store.claim(id, { ...input, now: base.clock(), retentionMs });
    },
  };
}

/** Why a claim on a question that is no longer pending is refused. */
export function refusal(q: QuestionRecord): DomainError {
  return q.status === 'ANSWERED'
    ? new DomainError('ALREADY_ANSWERED', 'the question was already answered')
    : new DomainError(
        'QUESTION_CLOSED',
        `the question is closed (${q.status.toLowerCase().replace('_', ' ')})`,
      );
}
