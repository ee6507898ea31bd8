// The outbox worker: performs the follow-ups that claims enqueue (src/store/outbox.ts). Every
// instance runs one; the store's leases make sure no two instances perform the same attempt.
// A target is `<kind>:<name>` (e.g. `channel:ops-slack`, `webhook:runs`); one handler per kind
// performs it and says what became of it. A handler that throws is retried with the default
// backoff; the worker never lets one item stop the others.
//
// A rolling pool, so one slow receiver never holds the others: at most `concurrency` items are
// in flight, and a new lease is taken as soon as one settles (never "lease a batch, await all
// of it"). Per target (deliveryTargetOf: the channel or the webhook endpoint) at most
// `perTarget` are in flight. A leased item whose target is full waits in a short line of its
// own (at most `perTarget` long, so it starts within one delivery's time, well inside its
// lease); past that, or while its target backs off, it is handed back with `defer` (its attempt
// not counted), spread out at about the pace the target has shown. A target whose deliveries
// fail backs off exponentially and is then probed with one delivery at a time until one
// succeeds. All of this is per instance: N instances may have N × perTarget in flight to one
// target.
import { randomUUID } from 'node:crypto';
import type { QuestionRecord } from '../domain/question.ts';
import { DEAD_LETTER_RETENTION_MS, deliveryTargetOf, MAX_LEASE_BATCH } from '../store/outbox.ts';
import type { OutboxItem, QuestionStore } from '../store/types.ts';
import type { Logger } from './logger.ts';

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
export const DEFAULT_PACE_MS = 250;
export const DEFAULT_OUTBOX_MAX_AGE_MS = 25 * 3600_000;
/** Shortest hand-back: an item is never leased again in a tight loop. */
const MIN_DEFER_MS = 50;
/** Longest spacing between handed-back items of one target. */
const MAX_PACE_MS = 60_000;

/** Exponential from 1 s, capped at 5 min. */
export function defaultBackoffMs(attempt: number): number {
  return Math.min(1000 * 2 ** Math.min(attempt, 20), 300_000);
}

export function targetParts(target: string): { kind: string; name: string } {
  const at = target.indexOf(':');
  return at < 0 ? { kind: target, name: '' } : { kind: target.slice(0, at), name: target.slice(at + 1) };
}

/** A target's recent record: consecutive failures and when it may be tried again. */
interface Health {
  failures: number;
  until: number;
}

export function createOutboxWorker(o: OutboxWorkerOptions): OutboxWorker {
  const clock = o.clock ?? Date.now;
  const pollMs = o.pollMs ?? 1000;
  const leaseMs = o.leaseMs ?? 60_000;
  const concurrency = o.concurrency ?? DEFAULT_OUTBOX_CONCURRENCY;
  const perTarget = o.perTarget ?? DEFAULT_OUTBOX_PER_TARGET;
  const backoff = o.backoffMs ?? defaultBackoffMs;
  const targetBackoff = o.targetBackoffMs ?? defaultBackoffMs;
  const defaultPace = o.paceMs ?? DEFAULT_PACE_MS;
  const maxAttempts = o.maxAttempts ?? DEFAULT_OUTBOX_MAX_ATTEMPTS;
  const retentionMs = o.deadLetterRetentionMs ?? DEAD_LETTER_RETENTION_MS;
  const maxAgeMs = o.maxAgeMs ?? DEFAULT_OUTBOX_MAX_AGE_MS;
  const owner = randomUUID();
  /** In flight per target; a target with none has no entry. */
  const busy = new Map<string, number>();
  /** Targets that failed lately; a success removes the entry (so it is bounded by the targets). */
  const health = new Map<string, Health>();
  /** How long one delivery to a target took lately (a moving average), for spacing hand-backs. */
  const pace = new Map<string, number>();
  /** Leased items waiting for a slot of their target, in lease order. */
  const waiting = new Map<string, OutboxItem[]>();
  let waitingCount = 0;
  const performing = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  /** Wakes the worker when the earliest handed-back item is due again. */
  let wake: { at: number; timer: NodeJS.Timeout } | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = true;

  function failed(target: string): void {
    const h = health.get(target) ?? { failures: 0, until: 0 };
    h.until = clock() + targetBackoff(h.failures);
    h.failures++;
    health.set(target, h);
  }

  async function settle(item: OutboxItem, result: FollowUpResult): Promise<void> {
    const { outbox } = o.store;
    if (result.kind === 'done') await outbox.ack(item.id, item.leaseToken);
    else if (result.kind === 'drop') {
      o.logger.warn(
        { target: item.target, attempt: item.attempt, reason: result.reason },
        'follow-up dropped',
      );
      // Kept as a dead letter; a lease lost meanwhile means another instance has the item.
      const buried = await outbox.drop(item.id, item.leaseToken, {
        reason: result.reason,
        now: clock(),
        retentionMs,
      });
      if (buried) o.onDead?.(item, result.reason);
    } else {
      o.logger.info(
        { target: item.target, attempt: item.attempt, reason: result.reason },
        'follow-up retried',
      );
      await outbox.retry(item.id, item.leaseToken, result.at);
    }
  }

  async function perform(item: OutboxItem, target: string): Promise<void> {
    const { kind, name } = targetParts(item.target);
    const handler = o.handlers[kind];
    let result: FollowUpResult;
    if (!handler) result = { kind: 'drop', reason: `no handler for ${kind}` };
    else {
      try {
        result = await handler(item, await o.store.get(item.questionId), name);
      } catch (err) {
        const reason = err instanceof Error ? err.message : 'failed';
        result = { kind: 'retry', at: clock() + backoff(item.attempt), reason };
      }
    }
    if (result.kind === 'retry') {
      if (!result.targetOk) failed(target);
      if (item.attempt + 1 >= maxAttempts) {
        result = { kind: 'drop', reason: `${result.reason}; gave up after ${maxAttempts} attempts` };
      }
    } else if (result.kind === 'done' || result.gone) health.delete(target);
    await settle(item, result);
  }

  function capOf(target: string): number {
    // A target that failed lately is probed with one delivery at a time until one succeeds.
    return health.has(target) ? 1 : perTarget;
  }

  function pausedUntil(target: string, now: number): number | null {
    const h = health.get(target);
    return h && h.until > now ? h.until : null;
  }

  function wakeAt(at: number): void {
    if (stopped || (wake && wake.at <= at)) return;
    if (wake) clearTimeout(wake.timer);
    const timer = setTimeout(
      () => {
        wake = null;
        run();
      },
      Math.max(0, at - clock()),
    );
    timer.unref();
    wake = { at, timer };
  }

  /**
   * Hands an item back, due again at `at`, its attempt not counted; or, once it is older than
   * maxAgeMs, gives it up as a dead letter before the store's item TTL would end it silently.
   */
  async function later(item: OutboxItem, target: string, at: number, now: number): Promise<void> {
    if (now - item.enqueuedAt >= maxAgeMs) {
      const hours = Math.floor((now - item.enqueuedAt) / 3600_000);
      const reason = `${target} kept failing or stayed busy; given up ${hours} h after it was enqueued`;
      return settle(item, { kind: 'drop', reason });
    }
    // Whole milliseconds, as the store takes them: the pace is an average and rarely whole, and
    // a fractional due time made every hand-back fail, leaving its item leased until the lease ran out.
    const due = Math.ceil(at);
    await o.store.outbox.defer(item.id, item.leaseToken, due);
    wakeAt(due);
  }

  function begin(item: OutboxItem, target: string): void {
    busy.set(target, (busy.get(target) ?? 0) + 1);
    const started = clock();
    const p: Promise<void> = perform(item, target)
      .catch((err: unknown) => o.logger.error({ err, target: item.target }, 'follow-up failed'))
      .finally(() => {
        const took = Math.max(0, clock() - started);
        pace.set(target, Math.min(MAX_PACE_MS, ((pace.get(target) ?? took) + took) / 2));
        const left = (busy.get(target) ?? 1) - 1;
        if (left > 0) busy.set(target, left);
        else busy.delete(target);
        performing.delete(p);
        next(target);
        // A slot is free: take the next due item now, not at the next poll.
        run();
      });
    performing.add(p);
  }

  /** A slot of `target` freed: start its waiting items, or hand them back if it backs off. */
  function next(target: string): void {
    const line = waiting.get(target);
    if (!line || stopped) return;
    const until = pausedUntil(target, clock());
    while (line.length > 0 && (until !== null || (busy.get(target) ?? 0) < capOf(target))) {
      const item = line.shift()!;
      waitingCount--;
      if (until === null) begin(item, target);
      else
        later(item, target, until + line.length * paceOf(target), clock()).catch((err: unknown) =>
          o.logger.error({ err, target: item.target }, 'outbox hand-back failed'),
        );
    }
    if (line.length === 0) waiting.delete(target);
  }

  function paceOf(target: string): number {
    return Math.max(MIN_DEFER_MS, pace.get(target) ?? defaultPace);
  }

  /**
   * Starts the item, lines it up behind its target's deliveries, or hands it back for later when
   * its target backs off or its line is full. The k-th item handed back for one target in a
   * round is due k / cap deliveries later, so a long queue for one slow target comes back at
   * about the pace it can take instead of all at once.
   */
  function admit(item: OutboxItem, now: number, handedBack: Map<string, number>): Promise<void> | null {
    const target = deliveryTargetOf(item);
    const until = pausedUntil(target, now);
    const cap = capOf(target);
    if (until === null) {
      if ((busy.get(target) ?? 0) < cap) {
        begin(item, target);
        return null;
      }
      const line = waiting.get(target) ?? [];
      if (line.length < cap) {
        line.push(item);
        waiting.set(target, line);
        waitingCount++;
        return null;
      }
    }
    const k = handedBack.get(target) ?? 0;
    handedBack.set(target, k + 1);
    return later(item, target, (until ?? now) + paceOf(target) * (1 + Math.floor(k / cap)), now);
  }

  async function pump(): Promise<void> {
    do {
      again = false;
      const handedBack = new Map<string, number>();
      // Lease only what the pool has room for; stop when fewer came back than were asked for.
      const room = () => concurrency - performing.size - waitingCount;
      for (let free = room(); free > 0 && !stopped; free = room()) {
        const want = Math.min(free, MAX_LEASE_BATCH);
        const now = clock();
        const items = await o.store.outbox.leaseDue(now, want, leaseMs, owner);
        const returns = items.map((item) => admit(item, now, handedBack)).filter((r) => r !== null);
        await Promise.all(returns);
        if (items.length < want) break;
      }
    } while (again && !stopped);
  }

  function run(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pump()
      .catch((err: unknown) => o.logger.error({ err }, 'outbox poll failed'))
      .finally(() => {
        running = null;
      });
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setInterval(run, pollMs);
      timer.unref();
      run();
    },
    kick: run,
    inFlight: () => performing.size,
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
      if (wake) clearTimeout(wake.timer);
      wake = null;
      await running;
      // Items still waiting for a slot go back at once, for this or another instance.
      const lines = [...waiting.values()].flat();
      waiting.clear();
      waitingCount = 0;
      await Promise.all(
        lines.map((item) => o.store.outbox.defer(item.id, item.leaseToken, clock()).catch(() => false)),
      );
      await Promise.all([...performing]);
    },
  };
}
