// The two ends around graphql-sse's private per-stream queue. The library pushes every event
// of every operation into that queue whether or not anyone reads; we count what goes in (its
// onNext hook) and what comes out (the response body it hands to the HTTP layer), and end an
// operation whose stream is too far behind, as the feed's own cap resynchronises a slow reader.
import { behind, type StreamState } from './stream-tokens.ts';

type Source<T> = AsyncIterator<T> & { return?(value?: unknown): Promise<IteratorResult<T>> };

/**
 * `source`, ended (and returned) once its stream is `maxBehind` events behind its reader. The
 * library then sends the operation's `complete`; subscribing again starts afresh (a feed
 * with a new SNAPSHOT). Hand-written rather than an async generator: `return()` must reach
 * the source at once, even while a `next()` waits on it (a generator would queue it).
 */
export function boundedSource<T>(
  source: Source<T>,
  state: StreamState,
  maxBehind: number,
): AsyncGenerator<T, undefined> {
  const finished: IteratorReturnResult<undefined> = { done: true, value: undefined };
  let ended = false;
  const end = async (): Promise<IteratorReturnResult<undefined>> => {
    if (!ended) {
      ended = true;
      await source.return?.();
    }
    return finished;
  };
  const bounded: AsyncGenerator<T, undefined> = {
    async next() {
      if (ended || behind(state) >= maxBehind) return end();
      const r = await source.next();
      if (r.done) {
        ended = true;
        return finished;
      }
      // Checked again: the reader may have fallen behind while this event was awaited.
      if (ended || behind(state) >= maxBehind) return end();
      return r;
    },
    return: end,
    async throw(err?: unknown) {
      await end();
      throw err;
    },
    [Symbol.asyncIterator]() {
      return bounded;
    },
  };
  return bounded;
}

const NEXT_EVENT = new TextEncoder().encode('event: next');

/** The library encodes one message per chunk; a `next` event starts with its event line. */
function isNextEvent(chunk: Uint8Array): boolean {
  if (chunk.length < NEXT_EVENT.length) return false;
  for (let i = 0; i < NEXT_EVENT.length; i++) if (chunk[i] !== NEXT_EVENT[i]) return false;
  return true;
}

/**
 * `body` passed on chunk by chunk as the HTTP layer pulls it (no buffer of its own), counting
 * the `next` events that leave; `onEnd` once when the stream ends or its reader cancels it.
 */
export function countedBody(
  body: ReadableStream<Uint8Array>,
  state: StreamState,
  onEnd: () => void,
  Readable: typeof ReadableStream,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let over = false;
  const finish = (): void => {
    if (over) return;
    over = true;
    onEnd();
  };
  return new Readable<Uint8Array>(
    {
      async pull(controller) {
        let r: ReadableStreamReadResult<Uint8Array>;
        try {
          r = await reader.read();
        } catch (err) {
          finish();
          controller.error(err);
          return;
        }
        if (r.done) {
          finish();
          controller.close();
          return;
        }
        if (isNextEvent(r.value)) state.written++;
        controller.enqueue(r.value);
      },
      cancel(reason) {
        finish();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
