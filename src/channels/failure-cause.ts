// Why an outgoing call to a provider failed, in words safe to show the asker in
// CHANNEL_DELIVERY_FAILED (API.md §9): "timed out", or the network error's code
// (ECONNREFUSED, ENOTFOUND, …). Never the error's message or the request, which may hold a
// host, a URL (Telegram's carries the bot token) or a header.

/** The `code` of an error or of the errors it wraps (fetch's `cause`, an AggregateError). */
function codeOf(err: unknown, depth = 0): string | null {
  if (typeof err !== 'object' || err === null || depth > 4) return null;
  const { code, cause, errors } = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code)) return code;
  const inner = codeOf(cause, depth + 1);
  if (inner) return inner;
  return Array.isArray(errors) ? codeOf(errors[0], depth + 1) : null;
}

/** "timed out", "network error ECONNREFUSED", or "network error" when nothing more is known. */
export function requestFailure(err: unknown): string {
  const name = (err as { name?: unknown } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return 'timed out';
  const code = codeOf(err);
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') return 'timed out';
  return code ? `network error ${code}` : 'network error';
}
