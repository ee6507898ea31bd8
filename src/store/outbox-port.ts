// The outbox's port: what a worker leases, settles and reads back (the rules both stores share
// are in outbox.ts). Kept apart from types.ts, which re-exports it, so the QuestionStore contract
// stays one screen per concern.

/** One follow-up of a resolved question, as leased to one worker (see outbox.ts). */
export interface OutboxItem {
  /** `<questionId>:<target>`: stable, so receivers can deduplicate. */
  id: string;
  questionId: string;
  target: string;
  /** Attempts before this one: 0 first, +1 per retry and per lease that expired unacknowledged. */
  attempt: number;
  /** When this attempt became due. */
  dueAt: number;
  /** When the claim enqueued it. */
  enqueuedAt: number;
  /** Proves this lease to ack, retry and drop. */
  leaseToken: string;
}

/** Why and when an item was given up (kept with its dead letter). */
export interface DeadNote {
  /** What the handler said (an HTTP status, "the question is gone"): never a secret or an answer. */
  reason: string;
  now: number;
  /** How long the dead letter is kept. */
  retentionMs: number;
}

/** An item that was given up (dropped), kept for operators (see outbox.ts). */
export interface DeadLetter {
  /** The item id, `<questionId>:<target>`. */
  id: string;
  questionId: string;
  target: string;
  /** Attempts made, the last one included. */
  attempts: number;
  lastError: string;
  enqueuedAt: number;
  droppedAt: number;
}

/** Follow-up work enqueued by claims; any instance leases, performs and settles it. */
export interface Outbox {
  /**
   * Enqueues one item per target of a question, due at `now`, outside any claim: work whose
   * targets are known only later (a new question's pushes, one per device, API.md §19). An item
   * already there is left as it is. Resolves with how many were added. At most MAX_ADD_BATCH
   * targets a call.
   */
  add(questionId: string, targets: readonly string[], now: number): Promise<number>;
  /** Due items (dueAt <= now), oldest first, at most `max`, each leased to this call until now + leaseMs. */
  leaseDue(now: number, max: number, leaseMs: number, owner: string): Promise<OutboxItem[]>;
  /** Done: the item is removed. False when the lease is no longer held. */
  ack(itemId: string, leaseToken: string): Promise<boolean>;
  /** Failed for now: attempt + 1, due again at `dueAt`. False when the lease is no longer held. */
  retry(itemId: string, leaseToken: string, dueAt: number): Promise<boolean>;
  /**
   * Not performed now (its target is busy or backing off): due again at `dueAt`, the attempt not
   * counted. False when the lease is no longer held.
   */
  defer(itemId: string, leaseToken: string, dueAt: number): Promise<boolean>;
  /**
   * Given up: the item is removed and a dead letter kept (reason "dropped" and the default
   * retention without a note). False when the lease is no longer held.
   */
  drop(itemId: string, leaseToken: string, note?: DeadNote): Promise<boolean>;
  /** Dead letters alive at `now`, newest first, at most `first`. */
  deadLetters(now: number, first: number): Promise<DeadLetter[]>;
  /** Items in the outbox (due, leased or scheduled) and dead letters alive at `now`. */
  stats(now: number): Promise<{ items: number; deadLetters: number }>;
}
