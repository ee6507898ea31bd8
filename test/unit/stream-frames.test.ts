// The REST stream's frames: a live change is serialized once for every stream of the process
// (the feed shares one event object per change); backlog frames stay per stream.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordOf } from '../../src/domain/question.ts';
import type { FeedEvent } from '../../src/engine/types.ts';
import { framesOf, type StreamState } from '../../src/http/routes/stream.ts';
import { specOf } from '../support/fixtures.ts';

const fresh = (): StreamState => ({ first: false, replayed: 0 });

afterEach(() => {
  vi.restoreAllMocks();
});

describe('REST stream frames', () => {
  it('serializes a live change once for every stream that sends it', () => {
    const q = recordOf(specOf({ text: 'Shared?' }), null);
    const ev: FeedEvent = { type: 'ASKED', questions: [q], more: false };
    const stringify = vi.spyOn(JSON, 'stringify');
    const frames = [fresh(), fresh(), fresh()].map((s) => framesOf(ev, s));
    expect(stringify).toHaveBeenCalledTimes(1);
    expect(new Set(frames).size).toBe(1);
    expect(frames[0]).toMatch(/^event: interaction\.add\ndata: \{.*"text":"Shared\?".*\}\n\n$/);
    // Another change is another frame.
    const other: FeedEvent = { type: 'CANCELLED', questions: [{ ...q, status: 'CANCELLED' }], more: false };
    expect(framesOf(other, fresh())).toMatch(/^event: interaction\.removed\n/);
    expect(stringify).toHaveBeenCalledTimes(2);
  });

  it('counts each stream’s own backlog for its ready frame', () => {
    const q = recordOf(specOf({}), null);
    const part: FeedEvent = { type: 'ASKED', questions: [q], more: false, backlog: true };
    const a: StreamState = { first: false, replayed: 2 };
    const b = fresh();
    expect(framesOf(part, a)).toMatch(/event: interaction\.ready\ndata: \{"pending":3\}\n\n$/);
    expect(framesOf(part, b)).toMatch(/event: interaction\.ready\ndata: \{"pending":1\}\n\n$/);
  });
});
