// The channel follow-up handler: edits after resolution, never for a message that was never
// sent (a failed delivery, or one held by quiet hours), retried with backoff while the receipt is not yet recorded or the edit throws, and given
// up after a bounded number of attempts.
import { describe, expect, it } from 'vitest';
import type { ChannelInstance, ChannelQuestion, DeliveryRecord } from '../../src/channels/types.ts';
import {
  createChannelFollowUp,
  MAX_CHANNEL_FOLLOW_UP_ATTEMPTS,
} from '../../src/engine/deliveries/follow-up.ts';
import { heldMarks } from '../../src/engine/people/quiet-channels.ts';
import type { ChannelPort } from '../../src/engine/ports.ts';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import type { OutboxItem } from '../../src/store/types.ts';
import { specOf } from '../support/fixtures.ts';

function setup(onResolved: ChannelInstance['onResolved']) {
  const store = createMemoryStore();
  const edits: { q: ChannelQuestion; receipt: DeliveryRecord | null }[] = [];
  const instance: ChannelInstance = {
    deliver: async () => ({}),
    onResolved: async (q, receipt) => {
      edits.push({ q, receipt });
      await onResolved?.(q, receipt);
    },
  };
  const channels: ChannelPort = {
    names: () => new Set(['ch']),
    deliver: async () => ({}),
    instance: () => instance,
  };
  const handler = createChannelFollowUp({ store, channels, clock: () => 1000, backoffMs: () => 10 });
  const item = (questionId: string, attempt = 0): OutboxItem => ({
    id: `${questionId}:channel:ch`,
    questionId,
    target: 'channel:ch',
    attempt,
    dueAt: 0,
    enqueuedAt: 0,
    leaseToken: 't',
  });
  async function resolved(): Promise<string> {
    const spec = specOf({ channel: 'ch' });
    await store.create(spec, { maxPending: 10, retentionMs: 60_000 });
    await store.claim(spec.id, {
      status: 'CANCELLED',
      cancelReason: 'x',
      now: Date.now(),
      retentionMs: 60_000,
    });
    return spec.id;
  }
  return { store, edits, handler, item, resolved };
}

describe('channel follow-up', () => {
  it('edits with the stored receipt', async () => {
    const s = setup(undefined);
    const id = await s.resolved();
    await s.store.deliveries.save(id, { ts: '1.2' });
    expect(await s.handler(s.item(id), await s.store.get(id), 'ch')).toEqual({ kind: 'done' });
    expect(s.edits).toHaveLength(1);
    expect(s.edits[0]!.receipt).toEqual({ ts: '1.2' });
    expect(s.edits[0]!.q.status).toBe('CANCELLED');
  });

  it('a failed delivery (receipt null) is done without any edit', async () => {
    const s = setup(undefined);
    const id = await s.resolved();
    await s.store.deliveries.save(id, null);
    expect(await s.handler(s.item(id), await s.store.get(id), 'ch')).toEqual({ kind: 'done' });
    expect(s.edits).toHaveLength(0);
  });

  it('no receipt yet: retried, and dropped at the last attempt', async () => {
    const s = setup(undefined);
    const id = await s.resolved();
    const q = await s.store.get(id);
    expect(await s.handler(s.item(id), q, 'ch')).toMatchObject({ kind: 'retry', at: 1010 });
    const last = s.item(id, MAX_CHANNEL_FOLLOW_UP_ATTEMPTS - 1);
    expect(await s.handler(last, q, 'ch')).toMatchObject({ kind: 'drop' });
    expect(s.edits).toHaveLength(0);
  });

  it('a question held by quiet hours and closed before it was sent: done at once, no edit (API.md §22)', async () => {
    const s = setup(undefined);
    const id = await s.resolved();
    const q = await s.store.get(id);
    await heldMarks(s.store.people).mark(q!);
    expect(await s.handler(s.item(id), q, 'ch')).toEqual({ kind: 'done' });
    expect(s.edits).toHaveLength(0);
  });

  it('an edit that throws is retried until the last attempt, then dropped', async () => {
    const s = setup(async () => {
      throw new Error('slack chat.update failed: ratelimited');
    });
    const id = await s.resolved();
    await s.store.deliveries.save(id, { ts: '1' });
    const q = await s.store.get(id);
    const before = s.item(id, MAX_CHANNEL_FOLLOW_UP_ATTEMPTS - 2);
    expect(await s.handler(before, q, 'ch')).toMatchObject({
      kind: 'retry',
      reason: 'slack chat.update failed: ratelimited',
    });
    const last = s.item(id, MAX_CHANNEL_FOLLOW_UP_ATTEMPTS - 1);
    expect(await s.handler(last, q, 'ch')).toMatchObject({ kind: 'drop' });
  });

  it('a question that is gone, or a channel no longer configured, is dropped', async () => {
    const s = setup(undefined);
    expect(await s.handler(s.item('gone'), null, 'ch')).toMatchObject({ kind: 'drop' });
    const id = await s.resolved();
    const none = createChannelFollowUp({
      store: s.store,
      channels: { names: () => new Set(), deliver: async () => ({}) },
    });
    expect(await none(s.item(id), await s.store.get(id), 'ch')).toMatchObject({ kind: 'drop' });
  });
});
