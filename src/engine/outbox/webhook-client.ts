// The resume webhooks' HTTP client (resume-webhooks.ts): undici's `request` on one keep-alive
// Agent of its own, not `fetch`. The outbox benchmark showed `fetch` (its Request, Headers,
// web streams and abort signal around the same undici core) costing four times the client CPU
// per POST of a plain `request`, and a delivery is little more than its POST. What `fetch` was
// given is kept: one timer bounds the whole call, answer and body alike; a redirect is an
// answer (the Agent follows none: maxRedirections 0), retried like any other non-2xx; and the
// answer's body is read until RESPONSE_READ_MAX_BYTES have come (one socket read past them at
// most), then dropped, so a receiver that streams without end costs a few KiB and a small
// answer leaves its connection reusable.
import { Agent, request } from 'undici';

/** Most bytes read of an answer only its status matters for; past them the connection is closed. */
export const RESPONSE_READ_MAX_BYTES = 4096;

/** A status, or why there is none. */
export type PostOutcome = number | 'timeout' | 'unreachable';

export interface WebhookClient {
  /** POSTs `body` to `url`: the answer's status, `timeout` past timeoutMs, else `unreachable`. */
  post(url: string, headers: Record<string, string>, body: string): Promise<PostOutcome>;
  /** Closes the kept-alive connections (once; again is a no-op); posts after this are unreachable. */
  close(): Promise<void>;
}

export function createWebhookClient(timeoutMs: number): WebhookClient {
  const agent = new Agent({ maxRedirections: 0 });
  let closed = false;
  return {
    async post(url, headers, body) {
      if (closed) return 'unreachable';
      const abort = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        abort.abort();
      }, timeoutMs);
      try {
        const res = await request(url, {
          dispatcher: agent,
          method: 'POST',
          headers,
          body,
          signal: abort.signal,
        });
        // The status is the answer; the body is read only to keep the connection, within the same
        // time bound: the timer's abort destroys a body still arriving (the status stands).
        await res.body.dump({ limit: RESPONSE_READ_MAX_BYTES }).catch(() => {});
        return res.statusCode;
      } catch {
        return timedOut ? 'timeout' : 'unreachable';
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await agent.close();
    },
  };
}
