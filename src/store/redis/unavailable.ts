// A Redis that does not answer (paused, overloaded, partitioned) fails a command after the
// command timeout, or after a few reconnect attempts; either way the command may still be
// applied when Redis resumes. Such failures leave the store as UNAVAILABLE (503, retryable),
// not as INTERNAL, so callers learn the outcome is unknown and that a retry is safe (an answer's
// retry is idempotent, an ask's is with its idempotency key).
import { isDomainError, storeUnavailable } from '../../domain/errors.ts';

/** ioredis's errors for "no reply": the command timeout, the retry limit, a closed connection. */
function noReply(err: unknown): boolean {
  if (!(err instanceof Error) || isDomainError(err)) return false;
  return (
    err.message === 'Command timed out' ||
    err.name === 'MaxRetriesPerRequestError' ||
    err.message === 'Connection is closed.'
  );
}

function reporting<F extends (...args: never[]) => unknown>(fn: F): F {
  return ((...args: Parameters<F>) => {
    const r = fn(...args);
    if (!(r instanceof Promise)) return r;
    return r.catch((err: unknown) => {
      throw noReply(err) ? storeUnavailable() : err;
    });
  }) as F;
}

/** `target` with every method's "no reply" failure turned into UNAVAILABLE (one level deep). */
export function reportingUnavailable<T extends object>(target: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(target)) {
    out[key] = typeof value === 'function' ? reporting(value as (...args: never[]) => unknown) : value;
  }
  return out as T;
}
