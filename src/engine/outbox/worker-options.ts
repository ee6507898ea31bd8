// The outbox worker's contract: what a follow-up handler reports, the worker's options and its
// defaults (the worker itself is worker.ts, which re-exports all of this).
import type { QuestionRecord } from '../../domain/question.ts';
import type { OutboxItem, QuestionStore } from '../../store/types.ts';
import type { Logger } from '../logger.ts';

/** What a handler reports for one attempt. */
export type FollowUpResult =
  /** Done: the item is removed. */
  | { kind: 'done' }
  /**
   * Failed for now: due again at `at` (epoch ms). It counts against the target's health (it
   * backs off) unless `targetOk` says the receiver is not to blame (e.g. a receipt not yet saved).
   */
  | { kind: 'retry'; at: number; reason: string; targetOk?: boolean }
  /** Given up for good (e.g. a 410, or the retry window is over): the item is removed. */
  | { kind: 'drop'; reason: string /** The receiver said it wants no more (410 Gone). */; gone?: boolean };

/**
 * Performs one item. `question` is the record as it is now (null when it is gone: retention
 * ended before the item was performed). `name` is the part of the target after `<kind>:`.
 */
export type FollowUpHandler = (
  item: OutboxItem,
  question: QuestionRecord | null,
  name: string,
) => Promise<FollowUpResult>;

export interface OutboxWorkerOptions {
  store: QuestionStore;
  /** Handlers by target kind (`channel`, `webhook`). Items of an unknown kind are dropped. */
  handlers: Readonly<Record<string, FollowUpHandler>>;
  logger: Logger;
  clock?: () => number;
  /** How often the worker looks for due items when nothing wakes it (ms). */
  pollMs?: number;
  /** How long one lease hides an item from other instances; longer than any handler runs. */
  leaseMs?: number;
  /** Most items in flight at once (the pool). */
  concurrency?: number;
  /** Most items in flight at once to one target. */
  perTarget?: number;
  /** A target's own cap in place of `perTarget` (deliveryTargetOf's name; undefined: `perTarget`). */
  perTargetOf?: (target: string) => number | undefined;
  /** Backoff for a handler that threw, by attempt (0-based). */
  backoffMs?: (attempt: number) => number;
  /** How long a failing target is left alone, by its consecutive failures (0-based). */
  targetBackoffMs?: (failures: number) => number;
  /** How long one delivery to a target is assumed to take until one has been timed (ms). */
  paceMs?: number;
  /** Attempts (the first included) after which an item that keeps failing is dropped. */
  maxAttempts?: number;
  /** How long a dropped item's dead letter is kept. */
  deadLetterRetentionMs?: number;
  /**
   * An item this old (since it was enqueued) that its target cannot take now is given up
   * instead of handed back: before the store's item TTL ends it silently, it becomes a dead
   * letter. Past every handler's own window (webhooks: 24 h).
   */
  maxAgeMs?: number;
  /** Told of every item given up (the metrics count them); must not throw. */
  onDead?: (item: OutboxItem, reason: string) => void;
}

export interface OutboxWorker {
  start(): void;
  /** Look for due items now (e.g. right after a resolution), instead of at the next poll. */
  kick(): void;
  /** Items this worker is performing now. */
  inFlight(): number;
  /** Stops polling and waits for the items in hand. */
  stop(): Promise<void>;
}

export const DEFAULT_OUTBOX_CONCURRENCY = 64;
export const DEFAULT_OUTBOX_PER_TARGET = 8;
export const DEFAULT_OUTBOX_MAX_ATTEMPTS = 25;
/**
 * The pace assumed before a target's first delivery was timed: short, so a fresh queue comes
 * back soon (a target that turns out slower sees its items handed back again, and one that
 * hangs is paced by its oldest delivery in flight; see paceOf).
 */
export const DEFAULT_PACE_MS = 20;
export const DEFAULT_OUTBOX_MAX_AGE_MS = 25 * 3600_000;
/** A target's line holds this many rounds of its cap (see lineMax). */
export const LINE_ROUNDS = 4;
/** Shortest hand-back: an item is never leased again in a tight loop. */
export const MIN_DEFER_MS = 50;
/** Longest spacing between handed-back items of one target. */
export const MAX_PACE_MS = 60_000;

/** Exponential from 1 s, capped at 5 min. */
export function defaultBackoffMs(attempt: number): number {
  return Math.min(1000 * 2 ** Math.min(attempt, 20), 300_000);
}

export function targetParts(target: string): { kind: string; name: string } {
  const at = target.indexOf(':');
  return at < 0 ? { kind: target, name: '' } : { kind: target.slice(0, at), name: target.slice(at + 1) };
}
