// The outbox worker: performs the follow-ups that claims enqueue (src/store/outbox.ts). Every
// instance runs one; the store's leases make sure no two instances perform the same attempt.
// A target is `<kind>:<name>` (e.g. `channel:ops-slack`, `webhook:runs`); one handler per kind
// performs it and says what became of it. A handler that throws is retried with the default
// backoff; the worker never lets one item stop the others.
//
// A rolling pool, so one slow receiver never holds the others: at most `concurrency` items are
// in flight, and a slot that frees leases more at once (never "lease a batch, await all of
// it"). Per target (deliveryTargetOf: the channel or the webhook endpoint) at most `perTarget`
// are in flight. A leased item whose target is full waits in a line of its own, up to
// LINE_ROUNDS × perTarget long and never longer than its target's pace starts within half a
// lease (lineMax); a busy target's slots are fed from its line, and a slot that frees leases
// only when the line is down to half, and only what the line can take, so a deep queue for one
// target costs no lease and no hand-back per delivery. Lines do not count against the pool:
// a hung target's line never keeps other targets' items from being leased. Past its line, or
// while its target backs off, an item is handed back with `defer` (its attempt not counted),
// spread out at about the pace the target has shown: one target's hand-backs form one
// schedule, each due `pace / cap` after the previous one (or after the backoff), whichever
// lease round handed it back. A target whose deliveries fail backs off exponentially and is
// then probed with one delivery at a time until one succeeds. All of this is per instance: N
// instances may have N × perTarget in flight to one target. What the worker knows of each
// target (in flight, failures, pace, hand-back schedule) is kept in outbox-targets.ts.
import { randomUUID } from 'node:crypto';
import { DEAD_LETTER_RETENTION_MS, deliveryTargetOf, MAX_LEASE_BATCH } from '../../store/outbox.ts';
import type { OutboxItem } from '../../store/types.ts';
import { createOutboxTargets } from './targets.ts';
import {
  DEFAULT_OUTBOX_CONCURRENCY,
  DEFAULT_OUTBOX_MAX_AGE_MS,
  DEFAULT_OUTBOX_MAX_ATTEMPTS,
  DEFAULT_OUTBOX_PER_TARGET,
  DEFAULT_PACE_MS,
  defaultBackoffMs,
  type FollowUpResult,
  LINE_ROUNDS,
  MIN_DEFER_MS,
  type OutboxWorker,
  type OutboxWorkerOptions,
  targetParts,
} from './worker-options.ts';

export * from './worker-options.ts';

export function createOutboxWorker(o: OutboxWorkerOptions): OutboxWorker {
  const clock = o.clock ?? Date.now;
  const pollMs = o.pollMs ?? 1000;
  const leaseMs = o.leaseMs ?? 60_000;
  const concurrency = o.concurrency ?? DEFAULT_OUTBOX_CONCURRENCY;
  const perTarget = o.perTarget ?? DEFAULT_OUTBOX_PER_TARGET;
  const backoff = o.backoffMs ?? defaultBackoffMs;
  const maxAttempts = o.maxAttempts ?? DEFAULT_OUTBOX_MAX_ATTEMPTS;
  const retentionMs = o.deadLetterRetentionMs ?? DEAD_LETTER_RETENTION_MS;
  const maxAgeMs = o.maxAgeMs ?? DEFAULT_OUTBOX_MAX_AGE_MS;
  const owner = randomUUID();
  const targets = createOutboxTargets({
    clock,
    perTarget,
    ...(o.perTargetOf ? { perTargetOf: o.perTargetOf } : {}),
    leaseMs,
    defaultPace: o.paceMs ?? DEFAULT_PACE_MS,
    targetBackoff: o.targetBackoffMs ?? defaultBackoffMs,
  });
  const { capOf, inFlightTo, lineMax, pausedUntil, handBackAt } = targets;
  /**
   * When the latest lease that came back with fewer items than it asked for looked (its `now`):
   * every item due by then was leased. A schedule whose last hand-back was due by then is done.
   */
  let sawAllAt = 0;
  /** Leased items waiting for a slot of their target, in lease order. */
  const waiting = new Map<string, OutboxItem[]>();
  let waitingCount = 0;
  const performing = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  /** Wakes the worker when the earliest handed-back item is due again. */
  let wake: { at: number; timer: NodeJS.Timeout; limit: number } | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  /** The most items a lease asked for while another was under way may take. */
  let againLimit = 0;
  /**
   * Targets whose freed slots asked for a lease while another was under way: what each can take
   * is counted when the next round begins, not when it asked (the round under way may have
   * filled its line meanwhile, and leasing that much again would hand it all back).
   */
  const refills = new Set<string>();
  /** Most leased items waiting in lines at once (a bound on memory, not on any one target). */
  const maxWaiting = concurrency * LINE_ROUNDS;
  let stopped = true;

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
      if (!result.targetOk) targets.failed(target);
      if (item.attempt + 1 >= maxAttempts) {
        result = { kind: 'drop', reason: `${result.reason}; gave up after ${maxAttempts} attempts` };
      }
    } else if (result.kind === 'done' || result.gone) targets.recovered(target);
    await settle(item, result);
  }

  /** Leases at `at` (at most `limit` items), unless a wake at or before it is already set. */
  function wakeAt(at: number, limit = Number.POSITIVE_INFINITY): void {
    if (stopped) return;
    // The earlier wake leases for both: as much as the larger of the two asks.
    if (wake && wake.at <= at) {
      wake.limit = Math.max(wake.limit, limit);
      return;
    }
    if (wake) {
      clearTimeout(wake.timer);
      limit = Math.max(wake.limit, limit);
    }
    const timer = setTimeout(
      () => {
        const asked = wake?.limit ?? limit;
        wake = null;
        run(asked);
      },
      Math.max(0, at - clock()),
    );
    timer.unref();
    wake = { at, timer, limit };
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
    // A target with deliveries in flight is fed by their completions (each leases what its line
    // can take); a wake per hand-back would lease, and hand back again, the queue behind it.
    if (inFlightTo(target) === 0 || pausedUntil(target, clock()) !== null) wakeAt(due);
  }

  function begin(item: OutboxItem, target: string): void {
    const ended = targets.begin(target);
    const p: Promise<void> = perform(item, target)
      .catch((err: unknown) => o.logger.error({ err, target: item.target }, 'follow-up failed'))
      .finally(() => {
        ended();
        performing.delete(p);
        next(target);
        // A slot is free: take the next due items now, not at the next poll.
        if (running) {
          refills.add(target);
          again = true;
        } else run(refillOf(target, clock()));
      });
    performing.add(p);
  }

  /**
   * What a freed slot of `target` leases: what its line and slots take, or nothing while the
   * target still has half a line of its own (its slots are fed from there, with no lease).
   */
  function refillOf(target: string, now: number): number {
    const queued = waiting.get(target)?.length ?? 0;
    const max = lineMax(target, now);
    return queued <= max / 2 ? max - queued + capOf(target) - inFlightTo(target) : 0;
  }

  /** What the asks made while a lease was under way take now; forgets them. */
  function askedMeanwhile(): number {
    const now = clock();
    const limit = againLimit;
    let refill = 0;
    for (const target of refills) refill += refillOf(target, now);
    refills.clear();
    again = false;
    againLimit = 0;
    return Math.max(limit, refill);
  }

  /** A slot of `target` freed: start its waiting items, or hand them back if it backs off. */
  function next(target: string): void {
    const line = waiting.get(target);
    if (!line || stopped) return;
    const now = clock();
    const until = pausedUntil(target, now);
    while (line.length > 0 && (until !== null || inFlightTo(target) < capOf(target))) {
      const item = line.shift()!;
      waitingCount--;
      if (until === null) begin(item, target);
      else
        later(item, target, handBackAt(target, until, now), now).catch((err: unknown) =>
          o.logger.error({ err, target: item.target }, 'outbox hand-back failed'),
        );
    }
    if (line.length === 0) waiting.delete(target);
  }

  /**
   * Starts the item, lines it up behind its target's deliveries, or hands it back for later when
   * its target backs off or its line is full (handBackAt: at about the pace the target takes
   * its queue, instead of all at once). Null when the item was taken on here.
   */
  function admit(item: OutboxItem, now: number): Promise<void> | null {
    const target = deliveryTargetOf(item);
    const until = pausedUntil(target, now);
    const cap = capOf(target);
    if (until === null) {
      if (inFlightTo(target) < cap) {
        begin(item, target);
        return null;
      }
      const line = waiting.get(target) ?? [];
      if (line.length < lineMax(target, now) && waitingCount < maxWaiting) {
        line.push(item);
        waiting.set(target, line);
        waitingCount++;
        return null;
      }
    }
    return later(item, target, handBackAt(target, until ?? now, now), now);
  }

  /**
   * Leases due items and admits them, at most `limit` (a slot that freed asks for what its
   * target's line and slots can take; a poll, a kick or a wake for what the pool has room for).
   * Stops when fewer came back than were asked for, or when a round handed any back.
   */
  async function pump(first: number): Promise<void> {
    let limit = first;
    do {
      if (again) limit = askedMeanwhile();
      // Items waiting in lines do not count against the room: they hold no slot, and a line
      // that counted would let a hung target's line keep other targets' items from being leased.
      const room = () => Math.min(concurrency - performing.size, limit);
      for (let free = room(); free > 0 && !stopped; free = room()) {
        const want = Math.min(free, MAX_LEASE_BATCH);
        limit -= want;
        const now = clock();
        const items = await o.store.outbox.leaseDue(now, want, leaseMs, owner);
        if (items.length < want) sawAllAt = Math.max(sawAllAt, now);
        const returns = items.map((item) => admit(item, now)).filter((r) => r !== null);
        await Promise.all(returns);
        // A round that handed anything back met a full target: the rest of the queue is most
        // likely its too (leasing on would hand that back as well); its completions lease more.
        if (items.length < want || returns.length > 0) break;
      }
    } while (again && !stopped);
    wakeForIdle(clock());
  }

  /**
   * A target with nothing in flight or waiting while some of its items are handed back for
   * later has no completion left to lease them: look again shortly (at once if they are all due
   * already) rather than leaving it idle until the next poll. A target that backs off was woken
   * for its own hand-backs (later()). A schedule is forgotten once a lease has looked after its
   * last hand-back fell due, not merely once that time has passed: a lease that found nothing
   * due may take long enough for the rest to fall due before it returns.
   */
  function wakeForIdle(now: number): void {
    for (const [target, last] of targets.schedules()) {
      if (last <= sawAllAt) targets.forgetSchedule(target);
      else if (inFlightTo(target) === 0 && !waiting.has(target) && pausedUntil(target, now) === null) {
        // As much as the target's slots and line take, as a completion would lease.
        wakeAt(last <= now ? now : now + MIN_DEFER_MS, lineMax(target, now) + capOf(target));
      }
    }
  }

  /** Leases now (at most `limit` items), or once more after the lease under way. */
  function run(limit = Number.POSITIVE_INFINITY): void {
    if (stopped || limit <= 0) return;
    if (running) {
      again = true;
      againLimit = Math.max(againLimit, limit);
      return;
    }
    running = pump(limit)
      .catch((err: unknown) => o.logger.error({ err }, 'outbox poll failed'))
      .finally(() => {
        running = null;
        // Asked for after the pump's last look (its end is a few ticks before this): run now, or
        // the ask is lost, and a freed slot's ask may be its target's last way to lease again.
        if (again) run(askedMeanwhile());
      });
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setInterval(() => run(), pollMs);
      timer.unref();
      run();
    },
    kick: () => run(),
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
