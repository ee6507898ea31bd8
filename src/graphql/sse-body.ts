// The SSE body of a shared subscription (shared-results.ts) on /graphql: the same wire format
// as Yoga's own encoder (an opening ":" comment, `event: next` frames, a ":" keepalive every
// 12 s, `event: complete` at the end), but as a Node stream whose pipe to an HTTP response
// writes each frame with res.write, and with each result's frame encoded once: every
// subscriber of one event is sent the very same bytes. Pulled one event at a time, so a slow
// reader still holds the server to the socket's buffer and the feed's bounded queue, as before.
import { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
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
 *
 * Piped to an HTTP response (Fastify's `reply.send` pipes a stream payload, after its hooks
 * and headers), the frames skip the stream's own buffer: each is given to `res.write`, and a
 * `false` from it waits for the response's `drain`. Node's HTTP layer still does the framing
 * (chunked or not, as the request allows), so the bytes are those the pipe would send. Piped
 * anywhere else or read, it is an ordinary Readable.
 */
export function sseBody(
  results: AsyncIterator<ExecutionResult | null | undefined>,
  direct?: DirectResults,
): Readable {
  let pulling = false;
  let over = false;
  let keepalive: NodeJS.Timeout | undefined;
  /** The response written to directly, once piped to one; until then, the Readable's buffer. */
  let res: ServerResponse | null = null;
  let endRes = true;
  let draining = false;
  const fail = (err: unknown): void => {
    pulling = false;
    body.destroy(err instanceof Error ? err : new Error(String(err)));
  };
  /** Sends one frame; false when the reader is behind (then fill() runs again once it drains). */
  const send = (frame: Buffer): boolean => {
    if (!res) return body.push(frame);
    corkForTurn(res);
    if (res.write(frame)) return true;
    if (!draining) {
      draining = true;
      res.once('drain', onDrain);
    }
    return false;
  };
  const onDrain = (): void => {
    draining = false;
    fill();
  };
  const finish = (): void => {
    over = true;
    clearInterval(keepalive);
    send(COMPLETE);
    if (res) {
      if (endRes) res.end();
      // Nothing reads the Readable now: it ends empty, so a pipe's end-of-stream still fires.
      body.push(null);
      body.resume();
    } else body.push(null);
  };
  const pull = (): void => {
    pulling = true;
    results
      .next()
      .then((r) => {
        pulling = false;
        if (body.destroyed) return;
        if (r.done) {
          if (r.value != null) send(frameOf(r.value));
          finish();
        } else if (r.value == null) {
          pull();
        } else if (send(frameOf(r.value)) && res) {
          // A Readable asks again by itself (read()); the response is asked here.
          fill();
        }
      })
      // A failed read or a result that cannot be encoded ends this stream, never the process.
      .catch(fail);
  };
  /**
   * Called when the stream wants data (read, or the response drained) and, with `direct`, when
   * the feed has some.
   */
  const fill = (): void => {
    if (pulling || over || draining || body.destroyed) return;
    if (direct) {
      try {
        for (;;) {
          const r = direct.take();
          if (r === undefined) break;
          if (r === null) {
            direct.onReady(fill);
            return;
          }
          // Above the mark: read() or 'drain' calls again once the socket has drained.
          if (!send(frameOf(r))) return;
        }
      } catch (err) {
        fail(err);
        return;
      }
      direct.onReady(null);
    }
    pull();
  };
  let opened = false;
  /** The opening comment and the keepalive, on the first read or pipe to a response. */
  const open = (): void => {
    opened = true;
    // Some browsers hold a response until its first bytes: open with a comment, as Yoga does.
    send(OPENING);
    keepalive = setInterval(() => {
      if (res ? !res.writableNeedDrain : body.readableLength < body.readableHighWaterMark) send(KEEPALIVE);
    }, KEEPALIVE_MS);
    keepalive.unref();
  };
  const body = new Readable({
    read() {
      if (res) return;
      if (!opened) open();
      fill();
    },
    destroy(err, callback) {
      clearInterval(keepalive);
      direct?.onReady(null);
      res?.removeListener('drain', onDrain);
      Promise.resolve(results.return?.()).then(
        () => callback(err),
        () => callback(err),
      );
    },
  });
  const pipe = body.pipe.bind(body);
  body.pipe = <T extends NodeJS.WritableStream>(dest: T, options?: { end?: boolean }): T => {
    if (opened || !(dest instanceof ServerResponse)) return pipe(dest, options);
    res = dest;
    endRes = options?.end !== false;
    // The client left or the response failed: the stream ends (Fastify also destroys it).
    dest.once('close', () => body.destroy());
    open();
    fill();
    return dest;
  };
  return body;
}

/** Sockets corked in this turn, uncorked together at its end (see corkForTurn). */
let corked: Socket[] = [];

function uncorkAll(): void {
  const sockets = corked;
  corked = [];
  for (const s of sockets) s.uncork();
}

/**
 * One event goes to many responses in one turn. Node corks a socket on each write and uncorks
 * it on its own next tick; corking them here, with one tick for all, keeps one write to the
 * kernel per socket and event and saves a tick per subscriber. The bytes are unchanged: only
 * when they leave.
 */
function corkForTurn(res: ServerResponse): void {
  const s = res.socket;
  if (!s || s.writableCorked) return;
  s.cork();
  if (corked.push(s) === 1) process.nextTick(uncorkAll);
}
