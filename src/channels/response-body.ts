// Reading what a provider or receiver answers, bounded. A receiver may answer 200 with a body
// that claims 512 MiB, or never ends; reading it whole (`arrayBuffer()`, `json()`) would hold
// it all in memory until the call's timeout. These read at most a few KiB, then cancel the
// rest (which closes the connection), so an outgoing call costs the same whatever comes back.

/** Most bytes read of a response only its status matters for (the rest is cancelled). */
export const DISCARD_MAX_BYTES = 4096;
/** Most bytes of a small JSON answer we parse (a Twilio resource is 1–3 KiB). */
export const JSON_MAX_BYTES = 64 * 1024;
/**
 * Most bytes of any response a channel plugin's `ctx.fetch` lets through (provider client
 * libraries read whole bodies): a larger body fails the call. Slack's largest replies echo a
 * message of 50 blocks, well under this.
 */
export const PROVIDER_RESPONSE_MAX_BYTES = 1024 * 1024;

/**
 * At most `max` bytes of the body; the rest is cancelled. `complete` says whether the whole
 * body fit. A body that fails while being read counts as what was read so far, not complete.
 */
export async function readCapped(res: Response, max: number): Promise<{ bytes: Buffer; complete: boolean }> {
  const body = res.body;
  if (!body) return { bytes: Buffer.alloc(0), complete: true };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes: Buffer.concat(chunks, size), complete: true };
      if (size + value.byteLength > max) {
        chunks.push(value.subarray(0, max - size));
        size = max;
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    return { bytes: Buffer.concat(chunks, size), complete: false };
  }
  await reader.cancel().catch(() => {});
  return { bytes: Buffer.concat(chunks, size), complete: false };
}

/** Reads a few KiB at most, so a small answer leaves its connection reusable, and drops the rest. */
export async function discardBody(res: Response): Promise<void> {
  await readCapped(res, DISCARD_MAX_BYTES);
}

/** The body as JSON when it is whole, within `max` bytes and valid; else null. */
export async function cappedJson(res: Response, max = JSON_MAX_BYTES): Promise<unknown> {
  const { bytes, complete } = await readCapped(res, max);
  if (!complete) return null;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
}

/** Statuses whose Response cannot be rebuilt with a body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * `fetch` whose responses' bodies fail once more than `max` bytes arrive: what a plugin's
 * `ctx.fetch` is, so a provider client library that reads whole bodies reads a bounded one.
 */
export function cappedFetch(inner: typeof fetch, max = PROVIDER_RESPONSE_MAX_BYTES): typeof fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    if (!res.body || NULL_BODY.has(res.status)) return res;
    const reader = res.body.getReader();
    let seen = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        seen += value.byteLength;
        if (seen > max) {
          await reader.cancel().catch(() => {});
          controller.error(new RangeError(`the response body is over ${max} bytes`));
          return;
        }
        controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    const capped = new Response(body, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
    // What a Response built here cannot be given in its constructor.
    Object.defineProperty(capped, 'url', { value: res.url });
    Object.defineProperty(capped, 'redirected', { value: res.redirected });
    return capped;
  };
}
