// Background upkeep of one engine: time out due questions (through the claim guard, so
// once across every instance), move due escalation steps into the outbox (API.md §18), prune expired history, and re-read every local waiter's
// question now and then in case an announcement was lost (or the record itself was).
import type { QuestionStore } from '../store/types.ts';
import type { Logger } from './logger.ts';
import type { WaiterRegistry } from './waiting/waiters.ts';

export interface ReaperOptions {
  store: QuestionStore;
  waiters: WaiterRegistry;
  clock: () => number;
  logger: Logger;
  retentionMs: number;
  /** How long audit entries are kept (API.md §17); absent: DEFAULT_AUDIT_RETENTION_DAYS. */
  auditRetentionMs?: number;
  intervalMs: number;
  sweepIntervalMs: number;
  /** Escalation steps were moved into the outbox (wake its worker). */
  onEscalated?: () => void;
}

const EXPIRE_BATCH = 500;
const SWEEP_BATCH = 500;
const PRUNE_EVERY_MS = 60_000;
export const DEFAULT_AUDIT_RETENTION_DAYS = 400;

export interface Reaper {
  start(): void;
  stop(): void;
  /** One pass: time out what is due. */
  tick(): Promise<void>;
  /** Re-read every local waiter's question; wake those that are resolved or gone. */
  sweep(): Promise<void>;
  /**
   * An escalation pass now, outside the poll (a step fell due, escalation-alarm.ts). Calls made
   * while one runs are coalesced into one more pass after it.
   */
  escalateNow(): void;
}

export function createReaper(o: ReaperOptions): Reaper {
  let timer: NodeJS.Timeout | null = null;
  let running = false;
  let lastPrune = 0;
  let lastSweep = 0;
  let escalating = false;
  let escalateAgain = false;

  async function expire(): Promise<void> {
    for (;;) {
      const n = await o.store.expireDue(o.clock(), o.retentionMs, EXPIRE_BATCH);
      if (n < EXPIRE_BATCH) return;
    }
  }

  /** Due escalation steps into the outbox (each exactly once, across every instance). */
  async function escalate(): Promise<void> {
    for (;;) {
      const n = await o.store.escalateDue(o.clock(), EXPIRE_BATCH);
      if (n > 0) o.onEscalated?.();
      if (n < EXPIRE_BATCH) return;
    }
  }

  function escalateNow(): void {
    if (escalating) {
      escalateAgain = true;
      return;
    }
    escalating = true;
    const pass = async (): Promise<void> => {
      do {
        escalateAgain = false;
        await escalate();
      } while (escalateAgain && running);
    };
    pass()
      .catch((err: unknown) => o.logger.error({ err }, 'escalation pass failed; the next poll retries'))
      .finally(() => {
        escalating = false;
      });
  }

  /**
   * Every held question, re-read: one whose announcement was lost is resolved here, one whose
   * record is gone ends its waiters with NOT_FOUND. Statuses first (a field per question), then
   * the records of the few that left PENDING: the sweep reads every held question every few
   * seconds, and decoding 18,000 records each time would be most of its cost and garbage.
   */
  async function sweep(): Promise<void> {
    const ids = o.waiters.ids();
    for (let i = 0; i < ids.length; i += SWEEP_BATCH) {
      const batch = ids.slice(i, i + SWEEP_BATCH);
      const statuses = await o.store.statuses(batch);
      const closed: string[] = [];
      statuses.forEach((status, at) => {
        // A record that is gone (Redis restarted without persistence) will never resolve:
        // its waiters end now with NOT_FOUND instead of holding on to a PENDING copy.
        if (status === null) o.waiters.vanish(batch[at]!);
        else if (status !== 'PENDING') closed.push(batch[at]!);
      });
      if (closed.length === 0) continue;
      const records = await o.store.getMany(closed);
      records.forEach((q, at) => {
        if (q) o.waiters.notify(q);
        else o.waiters.vanish(closed[at]!);
      });
    }
  }

  async function tick(): Promise<void> {
    await expire();
    // After the timeouts: a step never fires for a question that is already past its deadline.
    await escalate();
    const now = o.clock();
    if (now - lastSweep >= o.sweepIntervalMs) {
      lastSweep = now;
      await sweep();
    }
    if (now - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = now;
      await o.store.prune(now, o.retentionMs);
      // The audit log outlives the questions: its own retention, trimmed from the oldest end.
      await o.store.audit.trim(now - (o.auditRetentionMs ?? DEFAULT_AUDIT_RETENTION_DAYS * 86_400_000));
    }
  }

  function schedule(): void {
    timer = setTimeout(async () => {
      if (running) {
        try {
          await tick();
        } catch (err) {
          o.logger.error({ err }, 'reaper pass failed; retrying next interval');
        }
      }
      if (running) schedule();
    }, o.intervalMs);
    timer.unref();
  }

  return {
    start() {
      if (running) return;
      running = true;
      lastSweep = o.clock();
      schedule();
    },
    stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = null;
    },
    tick,
    sweep,
    escalateNow,
  };
}
