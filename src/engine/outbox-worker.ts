// The outbox worker: performs the follow-ups that claims enqueue (src/store/outbox.ts). Every
// instance runs one; the store's leases make sure no two instances perform the same attempt.
// A target is `<kind>:<name>` (e.g. `channel:ops-slack`, `webhook:runs`); one handler per kind
// performs it and says what became of it. A handler that throws is retried with the default
// backoff; the worker never lets one item stop the others.
import { randomUUID } from 'node:crypto';
import type { QuestionRecord } from '../domain/question.ts';
import type { OutboxItem, QuestionStore } from '../store/types.ts';
import type { Logger } from './logger.ts';

/** What a handler reports for one attempt. */
export type FollowUpResult =
  /** Done: the item is removed. */
  | { kind: 'done' }
  /** Failed for now: due again at `at` (epoch ms). */
  | { kind: 'retry'; at: number; reason: string }
  /** Given up for good (e.g. a 410, or the retry window is over): the item is removed. */
  | { kind: 'drop'; reason: string };

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
  /** Most items leased at once. */
  batch?: number;
  /** Backoff for a handler that threw, by attempt (0-based). */
  backoffMs?: (attempt: number) => number;
}

export interface OutboxWorker {
  start(): void;
  /** Look for due items now (e.g. right after a resolution), instead of at the next poll. */
  kick(): void;
  /** Stops polling and waits for the items in hand. */
  stop(): Promise<void>;
}

/** Exponential from 1 s, capped at 5 min. */
export function defaultBackoffMs(attempt: number): number {
  return Math.min(1000 * 2 ** Math.min(attempt, 20), 300_000);
}

export function targetParts(target: string): { kind: string; name: string } {
  const at = target.indexOf(':');
  return at < 0 ? { kind: target, name: '' } : { kind: target.slice(0, at), name: target.slice(at + 1) };
}

export function createOutboxWorker(o: OutboxWorkerOptions): OutboxWorker {
  const clock = o.clock ?? Date.now;
  const pollMs = o.pollMs ?? 1000;
  const leaseMs = o.leaseMs ?? 60_000;
  const batch = o.batch ?? 50;
  const backoff = o.backoffMs ?? defaultBackoffMs;
  const owner = randomUUID();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = true;

  async function settle(item: OutboxItem, result: FollowUpResult): Promise<void> {
    const { outbox } = o.store;
    if (result.kind === 'done') await outbox.ack(item.id, item.leaseToken);
    else if (result.kind === 'drop') {
      o.logger.warn(
        { target: item.target, attempt: item.attempt, reason: result.reason },
        'follow-up dropped',
      );
      await outbox.drop(item.id, item.leaseToken);
    } else {
      o.logger.info(
        { target: item.target, attempt: item.attempt, reason: result.reason },
        'follow-up retried',
      );
      await outbox.retry(item.id, item.leaseToken, result.at);
    }
  }

  async function perform(item: OutboxItem): Promise<void> {
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
    await settle(item, result);
  }

  async function drain(): Promise<void> {
    do {
      again = false;
      const items = await o.store.outbox.leaseDue(clock(), batch, leaseMs, owner);
      await Promise.all(
        items.map((item) =>
          perform(item).catch((err: unknown) =>
            o.logger.error({ err, target: item.target }, 'follow-up failed'),
          ),
        ),
      );
      // A full batch means more may be due: go on at once.
      if (items.length === batch) again = true;
    } while (again && !stopped);
  }

  function run(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = drain()
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
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
