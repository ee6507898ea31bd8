// What the outbox worker knows of each delivery target on this instance (worker.ts): the
// deliveries in flight to it and when each began, its recent failures and backoff, how long one
// delivery to it takes lately (its pace), and when its last handed-back item is due. Every map
// is keyed by target and loses a target's entry once it has nothing to say of it, so all of
// them are bounded by the targets. No store calls and no timers here: only the bookkeeping the
// worker's decisions read.
import { LINE_ROUNDS, MAX_PACE_MS, MIN_DEFER_MS } from './worker-options.ts';

/** A target's recent record: consecutive failures and when it may be tried again. */
interface Health {
  failures: number;
  until: number;
}

export interface OutboxTargetOptions {
  clock: () => number;
  perTarget: number;
  /** A target's own cap in place of `perTarget` (undefined: `perTarget`). */
  perTargetOf?: (target: string) => number | undefined;
  leaseMs: number;
  defaultPace: number;
  targetBackoff: (failures: number) => number;
}

export interface OutboxTargets {
  /** A delivery to `target` begins now; the function returned says it ended (records its pace). */
  begin(target: string): () => void;
  inFlightTo(target: string): number;
  /** A delivery failed because of its target: the target backs off, then is probed one at a time. */
  failed(target: string): void;
  /** A delivery succeeded (or the target is gone): its failures are forgotten. */
  recovered(target: string): void;
  /** In flight at once: `perTarget` (or its own cap), or one while the target failed lately. */
  capOf(target: string): number;
  /** When a backing-off target may be tried again; null when it may be now. */
  pausedUntil(target: string, now: number): number | null;
  /** How many leased items may wait in `target`'s line. */
  lineMax(target: string, now: number): number;
  /** When the next item handed back for `target` is due (and it becomes the schedule's last). */
  handBackAt(target: string, from: number, now: number): number;
  /** Each target with a hand-back schedule, and when its last hand-back is due. */
  schedules(): IterableIterator<[string, number]>;
  forgetSchedule(target: string): void;
}

export function createOutboxTargets(o: OutboxTargetOptions): OutboxTargets {
  /** When each delivery in flight to a target began; a target with none has no entry. */
  const busy = new Map<string, number[]>();
  /** Targets that failed lately; a success removes the entry. */
  const health = new Map<string, Health>();
  /** How long one delivery to a target took lately (a moving average), for spacing hand-backs. */
  const pace = new Map<string, number>();
  /**
   * Per target, when its last handed-back item is due: the next one is due a spacing after it,
   * so hand-backs of successive lease rounds queue up behind each other instead of each round
   * starting its own schedule at `now` (which made them come back all at once).
   */
  const handBacks = new Map<string, number>();

  const capOf = (target: string): number =>
    // A target that failed lately is probed with one delivery at a time until one succeeds.
    health.has(target) ? 1 : (o.perTargetOf?.(target) ?? o.perTarget);

  /**
   * How long one delivery to `target` takes: its recent average, or, while a delivery in flight
   * has already taken longer (a receiver that stopped answering), that delivery's age, so a
   * hung target's queue is spread out more and more instead of coming back again and again.
   */
  const paceOf = (target: string, now: number): number => {
    const oldest = busy.get(target)?.[0];
    return Math.max(1, pace.get(target) ?? o.defaultPace, oldest === undefined ? 0 : now - oldest);
  };

  return {
    begin(target) {
      const started = o.clock();
      const since = busy.get(target);
      if (since) since.push(started);
      else busy.set(target, [started]);
      return () => {
        const took = Math.max(0, o.clock() - started);
        pace.set(target, Math.min(MAX_PACE_MS, ((pace.get(target) ?? took) + took) / 2));
        const list = busy.get(target);
        const at = list ? list.indexOf(started) : -1;
        if (list && at >= 0) list.splice(at, 1);
        if (list?.length === 0) busy.delete(target);
      };
    },
    inFlightTo: (target) => busy.get(target)?.length ?? 0,
    failed(target) {
      const h = health.get(target) ?? { failures: 0, until: 0 };
      h.until = o.clock() + o.targetBackoff(h.failures);
      h.failures++;
      health.set(target, h);
    },
    recovered(target) {
      health.delete(target);
    },
    capOf,
    pausedUntil(target, now) {
      const h = health.get(target);
      return h && h.until > now ? h.until : null;
    },
    /**
     * LINE_ROUNDS rounds of the target's cap, so a busy target's slots are fed from its line
     * rather than by a lease (and a hand-back) per delivery; fewer when its pace would not start
     * the last of them within half a lease.
     */
    lineMax(target, now) {
      const cap = capOf(target);
      return Math.min(LINE_ROUNDS * cap, Math.floor((cap * o.leaseMs) / (2 * paceOf(target, now))));
    },
    /**
     * One spacing (pace / cap: the target takes `cap` at a time) after the one handed back
     * before it, never before `from` (now, or the end of the target's backoff) plus that
     * spacing, and never sooner than MIN_DEFER_MS.
     */
    handBackAt(target, from, now) {
      const spacing = paceOf(target, now) / capOf(target);
      // Whole milliseconds, as the store takes them; the schedule holds the due time as handed
      // back, so the worker looks again until the last of them is due.
      const at = Math.ceil(
        Math.max(Math.max(from, handBacks.get(target) ?? 0) + spacing, now + MIN_DEFER_MS),
      );
      handBacks.set(target, at);
      return at;
    },
    schedules: () => handBacks.entries(),
    forgetSchedule(target) {
      handBacks.delete(target);
    },
  };
}
