// A follow-up the outbox gave up on, as operators see it (`outboxDeadLetters`, `tai outbox
// dead`): the engine reports it and the SDK returns it, so the one shape lives here,
// import-free for the client. It names the item and why it was dropped; never a secret or an
// answer (the reason is what the handler said: an HTTP status, "the question is gone").

export interface DeadLetterView {
  /** The outbox item id, `<questionId>:<kind>:<target>`. */
  id: string;
  questionId: string;
  /** What the follow-up was: `webhook` (a resume webhook) or `channel` (a message edit). */
  kind: string;
  /** The endpoint or channel name. */
  target: string;
  /** Attempts made, the last one included. */
  attempts: number;
  /** Why the last attempt failed or the item was dropped. */
  lastError: string;
  /** When the resolution enqueued it (epoch ms). */
  enqueuedAt: number;
  /** When it was given up (epoch ms). */
  droppedAt: number;
}

export interface DeadLetterList {
  /** Dead letters kept now (the retention and the cap of 10,000 bound them). */
  totalCount: number;
  /** The newest first. */
  items: DeadLetterView[];
}

/** Most dead letters one listing returns, and the default. */
export const MAX_DEAD_LETTERS_LISTED = 1000;
export const DEFAULT_DEAD_LETTERS_LISTED = 50;
