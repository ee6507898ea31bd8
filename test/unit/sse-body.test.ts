// The SSE body's direct path (sse-body.ts): results that are ready are pushed in the caller's
// turn, in order with those that come through the iterator; a body above its high-water mark
// takes nothing until it is read; destroying it disarms the ready callback.
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../src/graphql/graphql-js.ts';
import { type DirectResults, sseBody } from '../../src/graphql/sse-body.ts';

/** A source of results, taken directly or through the iterator, as shared-results.ts offers them. */
function source() {
  const ready: (ExecutionResult | 'iterator')[] = [];
  const viaIterator: ExecutionResult[] = [];
  let onReady: (() => void) | null = null;
  let ended = false;
  const direct: DirectResults = {
    take() {
      if (ended) return undefined;
      const next = ready[0];
      if (next === undefined) return null;
      if (next === 'iterator') return undefined;
      ready.shift();
      return next;
    },
    onReady(r) {
      onReady = r;
    },
  };
  const iterator: AsyncIterator<ExecutionResult> = {
    async next() {
      if (ready[0] === 'iterator') {
        ready.shift();
        return { done: false, value: viaIterator.shift()! };
      }
      ended = true;
      return { done: true, value: undefined };
    },
    async return() {
      ended = true;
      return { done: true, value: undefined };
    },
  };
  return {
    direct,
    iterator,
    armed: () => onReady !== null,
    /** Queues results and calls the armed callback, as the feed does on an announcement. */
    arrive(...items: (ExecutionResult | { viaIterator: ExecutionResult })[]) {
      for (const item of items) {
        if ('viaIterator' in item) {
          ready.push('iterator');
          viaIterator.push(item.viaIterator);
        } else ready.push(item);
      }
      const r = onReady;
      onReady = null;
      r?.();
    },
    end() {
      ended = true;
      const r = onReady;
      onReady = null;
      r?.();
    },
  };
}

const result = (n: number): ExecutionResult => ({ data: { n } });

function chunksOf(body: Readable): string[] {
  const out: string[] = [];
  body.on('data', (c: Buffer) => out.push(c.toString()));
  return out;
}

const frame = (n: number) => `event: next\ndata: {"data":{"n":${n}}}\n\n`;
const tick = () => new Promise<void>((r) => setImmediate(r));

describe('sseBody with direct results', () => {
  it('pushes ready results in the caller’s turn, and keeps the order with results from the iterator', async () => {
    const s = source();
    const body = sseBody(s.iterator, s.direct);
    const chunks = chunksOf(body);
    await tick();
    expect(s.armed()).toBe(true);
    s.arrive(result(1), result(2));
    // Flowing with an empty buffer: written before arrive() returned.
    expect(chunks.slice(1)).toEqual([frame(1), frame(2)]);
    s.arrive(result(3), { viaIterator: result(4) }, result(5));
    await tick();
    expect(chunks.slice(1)).toEqual([1, 2, 3, 4, 5].map(frame));
    s.end();
    await tick();
    expect(chunks.at(-1)).toBe('event: complete\ndata:\n\n');
    expect(body.readableEnded).toBe(true);
  });

  it('takes nothing while above its high-water mark, and resumes when read', async () => {
    const s = source();
    const body = sseBody(s.iterator, s.direct);
    await tick();
    const big: ExecutionResult = { data: { n: 'x'.repeat(body.readableHighWaterMark) } };
    s.arrive(big, result(2), result(3));
    // One frame over the mark is buffered; the rest wait in the source.
    expect(body.readableLength).toBeGreaterThanOrEqual(body.readableHighWaterMark);
    expect(s.armed()).toBe(false);
    const chunks = chunksOf(body);
    await tick();
    expect(chunks.join('')).toContain(frame(3));
    expect(s.armed()).toBe(true);
  });

  it('destroying the body disarms the ready callback and returns the iterator', async () => {
    const s = source();
    const body = sseBody(s.iterator, s.direct);
    chunksOf(body);
    await tick();
    expect(s.armed()).toBe(true);
    body.destroy();
    await tick();
    expect(s.armed()).toBe(false);
    expect(s.direct.take()).toBeUndefined();
  });
});
