// A fetch for graphql-sse's client whose event-stream bodies arrive in whole lines.
//
// graphql-sse 2.6's parser hands back the messages it parsed only when a chunk happens to end
// on a line boundary (upstream issue enisdenjo/graphql-sse#128); otherwise it keeps them and
// waits for the next chunk. While a large backlog streams, the network almost never cuts
// there, so the inbox saw its first SNAPSHOT part only when the whole 10,000-question backlog
// had arrived (seconds later), and each chunk inside a long line was copied onto all the ones
// before it. Cutting every chunk after its last line break gives the parser what it waits for:
// each message is delivered as soon as its bytes are complete, and a long line is joined once.
// Browser-safe (web streams only): the inbox and the SDK both use it.
import type { FetchLike } from './transport.ts';

const LF = 10;
const CR = 13;

function joined(parts: readonly Uint8Array[], bytes: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Re-cuts a byte stream so that every chunk but the last ends right after a line break. */
export function wholeLines(): TransformStream<Uint8Array, Uint8Array> {
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  return new TransformStream({
    transform(chunk, out) {
      // The native searches, not a loop over bytes: a long line's chunks have no break at all.
      const end = Math.max(chunk.lastIndexOf(LF), chunk.lastIndexOf(CR)) + 1;
      if (end === 0) {
        // Inside a long line: keep it until its end arrives, and join the pieces once.
        if (chunk.length > 0) {
          held.push(chunk);
          heldBytes += chunk.length;
        }
        return;
      }
      held.push(end === chunk.length ? chunk : chunk.subarray(0, end));
      out.enqueue(joined(held, heldBytes + end));
      held = end === chunk.length ? [] : [chunk.subarray(end)];
      heldBytes = chunk.length - end;
    },
    flush(out) {
      if (heldBytes > 0) out.enqueue(joined(held, heldBytes));
    },
  });
}

/** `fetch` whose successful event-stream responses have their body cut in whole lines. */
export function lineAlignedFetch(fetchFn: FetchLike): FetchLike {
  return async (input, init) => {
    const res = await fetchFn(input, init);
    if (!res.ok || !res.body || !res.headers.get('content-type')?.includes('text/event-stream')) return res;
    return new Response(res.body.pipeThrough(wholeLines()), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}
