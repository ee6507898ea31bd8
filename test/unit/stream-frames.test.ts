// The REST stream's frames: a live change is serialized once for every stream of the process
// (the feed shares one event object per change); backlog frames stay per stream. A question with
// an escalation ladder carries `escalations` (API.md §18), read once per live change.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordOf } from '../../src/domain/question.ts';
import type { EscalationState } from '../../src/domain/question-view.ts';
import type { FeedEvent } from '../../src/engine/types.ts';
import { framesOf, type LaddersOf, type StreamState } from '../../src/http/routes/stream.ts';
import { specOf } from '../support/fixtures.ts';

const fresh = (): StreamState => ({ first: false, replayed: 0 });
const noLadder: LaddersOf = async () => {
  throw new Error('a question without a ladder is not looked up');
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('REST stream frames', () => {
  it('serializes a live change once for every stream that sends it', async () => {
    const q = recordOf(specOf({ text: 'Shared?' }), null);
    const ev: FeedEvent = { type: 'ASKED', questions: [q], more: false };
    const stringify = vi.spyOn(JSON, 'stringify');
    const frames = await Promise.all([fresh(), fresh(), fresh()].map((s) => framesOf(ev, s, noLadder)));
    expect(stringify).toHaveBeenCalledTimes(1);
    expect(new Set(frames).size).toBe(1);
    expect(frames[0]).toMatch(/^event: interaction\.add\ndata: \{.*"text":"Shared\?".*\}\n\n$/);
    expect(frames[0]).toContain('"escalations":[]');
    // Another change is another frame.
    const other: FeedEvent = { type: 'CANCELLED', questions: [{ ...q, status: 'CANCELLED' }], more: false };
    expect(await framesOf(other, fresh(), noLadder)).toMatch(/^event: interaction\.removed\n/);
    expect(stringify).toHaveBeenCalledTimes(2);
  });

  it('counts each stream’s own backlog for its ready frame', async () => {
    const q = recordOf(specOf({}), null);
    const part: FeedEvent = { type: 'ASKED', questions: [q], more: false, backlog: true };
    const a: StreamState = { first: false, replayed: 2 };
    const b = fresh();
    expect(await framesOf(part, a, noLadder)).toMatch(
      /event: interaction\.ready\ndata: \{"pending":3\}\n\n$/,
    );
    expect(await framesOf(part, b, noLadder)).toMatch(
      /event: interaction\.ready\ndata: \{"pending":1\}\n\n$/,
    );
  });

  it('a question with a ladder shows its steps, fired ones with firedAt (RFC 3339) and outcome', async () => {
    const steps = [
      { afterSeconds: 10, action: 'REMIND' as const, channel: null, recipient: null },
      { afterSeconds: 20, action: 'REROUTE' as const, channel: 'oncall', recipient: '+15550100' },
    ];
    const q = recordOf({ ...specOf({}), escalation: steps }, null);
    const state: EscalationState[] = [
      { ...steps[0]!, firedAt: Date.UTC(2026, 0, 2, 3, 4, 5), outcome: 'DELIVERED' },
      { ...steps[1]!, firedAt: null, outcome: null },
    ];
    let reads = 0;
    const ladders: LaddersOf = async (asked) => {
      expect(asked.id).toBe(q.id);
      reads++;
      return state;
    };
    const ev: FeedEvent = { type: 'UPDATED', questions: [q], more: false };
    const frames = await Promise.all([fresh(), fresh()].map((s) => framesOf(ev, s, ladders)));
    expect(reads).toBe(1);
    const data = JSON.parse(frames[0]!.split('\n')[1]!.slice('data: '.length)) as Record<string, unknown>;
    expect(frames[0]).toMatch(/^event: interaction\.add\n/);
    expect(data.escalations).toEqual([
      {
        afterSeconds: 10,
        action: 'REMIND',
        channel: null,
        recipient: null,
        firedAt: '2026-01-02T03:04:05.000Z',
        outcome: 'DELIVERED',
      },
      {
        afterSeconds: 20,
        action: 'REROUTE',
        channel: 'oncall',
        recipient: '+15550100',
        firedAt: null,
        outcome: null,
      },
    ]);
    const backlog = await framesOf({ ...ev, type: 'ASKED', backlog: true }, fresh(), ladders);
    expect(backlog).toContain('"outcome":"DELIVERED"');
  });
});
