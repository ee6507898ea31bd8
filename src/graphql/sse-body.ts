// The SSE body of a shared subscription (shared-results.ts) on /graphql: the same wire format
// as Yoga's own encoder (an opening ":" comment, `event: next` frames, a ":" keepalive every
// 12 s, `event: complete` at the end), but as a Node stream that the HTTP layer pipes to the
// socket as it is, and with each result's frame encoded once: every subscriber of one event
// is sent the very same bytes. Pulled one event at a time, so a slow reader still holds the
// server to the socket's buffer and the feed's bounded queue, as before.
import { Readable } from 'node:stream';
import { type ExecutionResult, GraphQLError } from './graphql-js.ts';

const OPENING = Buffer.from(':\n\n');
const KEEPALIVE = OPENING;
const COMPLETE = Buffer.from('event: complete\ndata:\n\n');
const KEEPALIVE_MS = 12_000;

/** Frames by result: a result shared by many subscribers is encoded once. */
const frames = new WeakMap<object, Buffer>();

/** Internal error details (the HTTP status, the unexpected flag) stay out of the stream, as in Yoga. */
function withoutInternals(result: ExecutionResult): unknown {
  if (!result.errors?.length && !result.extensions?.http) return result;
  const out: Record<string, unknown> = { ...result };
  if (result.errors) {
    out.errors = result.errors.map((e) => {
      if (!(e instanceof GraphQLError)) return e;
      const { http: _http, unexpected: _unexpected, ...extensions } = e.extensions ?? {};
      return new GraphQLError(e.message, {
        nodes: e.nodes ?? null,
        source: e.source ?? null,
        positions: e.positions ?? null,
        path: e.path ?? null,
        originalError: e.originalError ?? null,
        extensions: Object.keys(extensions).length ? extensions : null,
      });
    });
  }
  if (result.extensions) {
    const { http: _http, ...extensions } = result.extensions;
    out.extensions = Object.keys(extensions).length ? extensions : undefined;
  }
  return out;
}

function frameOf(result: ExecutionResult): Buffer {
  let frame = frames.get(result);
  if (!frame) {
    const own = (result as { stringify?: (r: unknown) => string }).stringify;
    const cleaned = withoutInternals(result);
    const json = own ? own(cleaned) : JSON.stringify(cleaned);
    frame = Buffer.from(`event: next\ndata: ${json}\n\n`);
    frames.set(result, frame);
  }
  return frame;
}

/**
 * Results to be had at once, beside the stream's iterator (shared-results.ts): `take` gives the
 * next one, null when none is ready yet (then `onReady` calls back once, synchronously, when
 * one may be), undefined when the next must come through the iterator (a SNAPSHOT, a result
 * that needs masking, the end).
 */
export interface DirectResults {
  take(): ExecutionResult | null | undefined;
  onReady(ready: (() => void) | null): void;
}

/**
 * The event stream of `results`; destroying it (the client left) returns the iterator. With
 * `direct`, a ready result is written in the same turn as its feed event, as long as the
 * stream is below its high-water mark: one subscriber of a fan-out costs a few calls, not a
 * chain of promise steps. A stream above its mark takes nothing until it drains, so a slow
 * reader still holds the server to its socket and its feed's bounded queue.
 */
export function sseBody(
  results: AsyncIterator<ExecutionResult | null | undefined>,
  direct?: DirectResults,
): Readable {
  let pulling = false;
  let over = false;
  let keepalive: NodeJS.Timeout | undefined;
  const fail = (err: unknown): void => {
    pulling = false;
    body.destroy(err instanceof Error ? err : new Error(String(err)));
  };
  const pull = (): void => {
    pulling = true;
    results
      .next()
      .then((r) => {
        pulling = false;
        if (body.destroyed) return;
        if (r.done) {
          clearInterval(keepalive);
          if (r.value != null) body.push(frameOf(r.value));
          over = true;
          body.push(COMPLETE);
          body.push(null);
        } else if (r.value != null) {
          body.push(frameOf(r.value));
        } else {
          pull();
        }
      })
      // A failed read or a result that cannot be encoded ends this stream, never the process.
      .catch(fail);
  };
  /** Called when the stream wants data (read) and, with `direct`, when the feed has some. */
  const fill = (): void => {
    if (pulling || over || body.destroyed) return;
    if (direct) {
      try {
        for (;;) {
          const r = direct.take();
          if (r === undefined) break;
          if (r === null) {
            direct.onReady(fill);
            return;
          }
          // Above the mark: read() calls again once the socket has drained.
          if (!body.push(frameOf(r))) return;
        }
      } catch (err) {
        fail(err);
        return;
      }
      direct.onReady(null);
    }
    pull();
  };
  const body = new Readable({
    read() {
      fill();
    },
    destroy(err, callback) {
      clearInterval(keepalive);
      direct?.onReady(null);
      Promise.resolve(results.return?.()).then(
        () => callback(err),
        () => callback(err),
      );
    },
  });
  // Some browsers hold a response until its first bytes: open with a comment, as Yoga does.
  body.push(OPENING);
  keepalive = setInterval(() => {
    if (body.readableLength < body.readableHighWaterMark) body.push(KEEPALIVE);
  }, KEEPALIVE_MS);
  keepalive.unref();
  return body;
}
