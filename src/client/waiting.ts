// Waiting, with retries: how the SDK keeps a call going through an unreachable or failing
// server (backoff, giving up after a while, or not before a pending question's deadline), and
// how it holds on `awaitAnswer` until a question leaves PENDING.
import { backoffDelay, type RetryPolicy, sleep } from './backoff.ts';
import { ClientAwaitAnswerDocument } from './generated/graphql.ts';
import { isTransient, type Transport } from './transport.ts';
import type { AskResult } from './types.ts';

/** Beyond a hold, how long a held response may take before the connection is presumed dead. */
const HOLD_GRACE_MS = 30_000;
/** The hold assumed when the client does not set one (the server's default is 50 s). */
const ASSUMED_HOLD_SECONDS = 60;
/** How long past a question's deadline the SDK keeps trying to learn how it ended. */
const DEADLINE_GRACE_MS = 60_000;

export interface WaitingOptions {
  transport: Transport;
  policy: RetryPolicy;
  /** The hold asked of the server (undefined: the server's own). */
  holdSeconds: number | undefined;
  onRetry: ((error: unknown, delayMs: number) => void) | undefined;
}

export interface Waiting {
  /** Runs `call` until it succeeds, retrying transient failures; never gives up before `keepTryingUntil`. */
  retrying<T>(call: () => Promise<T>, signal: AbortSignal | undefined, keepTryingUntil?: number): Promise<T>;
  /** Holds on `awaitAnswer` until the question leaves PENDING. */
  settle(first: AskResult, signal: AbortSignal | undefined): Promise<AskResult>;
}

export function createWaiting({ transport, policy, holdSeconds, onRetry }: WaitingOptions): Waiting {
  const holdTimeoutMs = (holdSeconds ?? ASSUMED_HOLD_SECONDS) * 1000 + HOLD_GRACE_MS;
  /** Runs `call` until it succeeds, retrying transient failures with backoff. */
  async function retrying<T>(
    call: () => Promise<T>,
    signal: AbortSignal | undefined,
    keepTryingUntil = 0,
  ): Promise<T> {
    let attempt = 0;
    let firstFailure: number | null = null;
    for (;;) {
      try {
        return await call();
      } catch (err) {
        if (!isTransient(err) || signal?.aborted) throw err;
        const now = Date.now();
        firstFailure ??= now;
        const limit = Math.max(firstFailure + policy.giveUpAfterMs, keepTryingUntil);
        if (now >= limit) throw err;
        const delay = Math.min(backoffDelay(policy, attempt++), limit - now);
        onRetry?.(err, delay);
        await sleep(delay, signal);
      }
    }
  }

  /** Holds on `awaitAnswer` until the question leaves PENDING. */
  async function settle(first: AskResult, signal: AbortSignal | undefined): Promise<AskResult> {
    let result = first;
    const id = first.question.id;
    const deadline = Date.parse(first.question.timeoutAt) + DEADLINE_GRACE_MS;
    while (result.status === 'PENDING') {
      const started = Date.now();
      const r = await retrying(
        () =>
          transport.request(
            ClientAwaitAnswerDocument,
            { id, holdSeconds: holdSeconds ?? null },
            { signal, timeoutMs: holdTimeoutMs },
          ),
        signal,
        deadline,
      );
      result = r.awaitAnswer;
      // A server that holds for (almost) no time must not turn this into a busy loop.
      if (result.status === 'PENDING' && Date.now() - started < 1000) {
        await sleep(policy.minDelayMs, signal);
      }
    }
    return result;
  }

  return { retrying, settle };
}
