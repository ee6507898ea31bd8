// How every retrying client in this repository waits: the SDK's calls and feed, and the inbox's
// feed. Browser-safe: timers and AbortSignal only.

/** How calls that retry back off, and when they give up. */
export interface RetryPolicy {
  /** First delay after a failure (doubles each time, with jitter). Default 250 ms. */
  minDelayMs: number;
  /** Longest delay between attempts. Default 5 s. */
  maxDelayMs: number;
  /**
   * How long a run of consecutive failures may last before the last error is thrown. Default
   * 5 minutes. While a question is known to be pending, the SDK keeps trying until its
   * `timeoutAt` as well, since it may still be answered.
   */
  giveUpAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { minDelayMs: 250, maxDelayMs: 5000, giveUpAfterMs: 5 * 60_000 };

/** The delay before retry number `attempt` (0-based): exponential, capped, with jitter in [50%, 100%]. */
export function backoffDelay(policy: RetryPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling * (0.5 + Math.random() * 0.5));
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
