// The outbox worker over both real stores: each follow-up performed once per attempt, handler
// outcomes settle the item (done, retry, drop), a throwing handler is retried, and two workers
// on one store never perform the same attempt.
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/engine/logger.ts';
import {
  createOutboxWorker,
  type FollowUpHandler,
  type OutboxWorker,
  targetParts,
} from '../../src/engine/outbox/worker.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { startEngines } from '../support/engines.ts';
import { deferred } from '../support/fixtures.ts';
import { resolvedWithFollowUps } from '../support/resolved.ts';

describe.each(['memory', 'redis'] as const)('outbox worker (%s store)', (kind) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function storeOf(count = 1): Promise<QuestionStore[]> {
    const set = await startEngines(kind, count);
    cleanups.push(() => set.close());
    return set.stores;
  }

  function worker(store: QuestionStore, handlers: Record<string, FollowUpHandler>): OutboxWorker {
    const w = createOutboxWorker({ store, handlers, logger: silentLogger, pollMs: 20, leaseMs: 5_000 });
    cleanups.push(() => w.stop());
    w.start();
    return w;
  }

  const resolved = resolvedWithFollowUps;

  it('performs each follow-up with the resolved question and the target name, then acks it', async () => {
    const [store] = await storeOf();
    const [id] = await resolved(store!, 1, ['channel:ops-slack', 'webhook:runs']);
    const seen: string[] = [];
    const all = deferred<void>();
    const handler: FollowUpHandler = async (item, q, name) => {
      expect(q?.id).toBe(id);
      expect(q?.status).toBe('ANSWERED');
      seen.push(`${targetParts(item.target).kind}/${name}`);
      if (seen.length === 2) all.resolve();
      return { kind: 'done' };
    };
    const w = worker(store!, { channel: handler, webhook: handler });
    await all.promise;
    await w.stop();
    expect(seen.sort()).toEqual(['channel/ops-slack', 'webhook/runs']);
    expect(await store!.outbox.leaseDue(Date.now() + 3_600_000, 10, 1000, 'x')).toEqual([]);
  });

  it('a retry makes the item due again as the next attempt; a drop removes it', async () => {
    const [store] = await storeOf();
    await resolved(store!, 1, ['webhook:runs', 'channel:gone']);
    const attempts: number[] = [];
    const twice = deferred<void>();
    const w = worker(store!, {
      webhook: async (item) => {
        attempts.push(item.attempt);
        if (item.attempt === 0) return { kind: 'retry', at: Date.now(), reason: 'HTTP 503' };
        twice.resolve();
        return { kind: 'done' };
      },
      channel: async () => ({ kind: 'drop', reason: 'HTTP 410' }),
    });
    await twice.promise;
    await w.stop();
    expect(attempts).toEqual([0, 1]);
    expect(await store!.outbox.leaseDue(Date.now() + 3_600_000, 10, 1000, 'x')).toEqual([]);
  });

  it('a handler that throws is retried with backoff; an unknown kind is dropped', async () => {
    const [store] = await storeOf();
    await resolved(store!, 1, ['channel:flaky', 'nobody:here']);
    let calls = 0;
    const ok = deferred<void>();
    const w = createOutboxWorker({
      store: store!,
      logger: silentLogger,
      pollMs: 20,
      backoffMs: () => 0,
      handlers: {
        channel: async () => {
          calls++;
          if (calls < 3) throw new Error('provider down');
          ok.resolve();
          return { kind: 'done' };
        },
      },
    });
    cleanups.push(() => w.stop());
    w.start();
    await ok.promise;
    await w.stop();
    expect(calls).toBe(3);
    expect(await store!.outbox.leaseDue(Date.now() + 3_600_000, 10, 1000, 'x')).toEqual([]);
  });

  it('two workers on one store perform each of 100 follow-ups exactly once', async () => {
    const stores = await storeOf(2);
    const ids = await resolved(stores[0]!, 100, ['webhook:runs']);
    const performed = new Map<string, number>();
    const all = deferred<void>();
    const handler: FollowUpHandler = async (item) => {
      performed.set(item.questionId, (performed.get(item.questionId) ?? 0) + 1);
      if (performed.size === ids.length) all.resolve();
      return { kind: 'done' };
    };
    const a = worker(stores[0]!, { webhook: handler });
    const b = worker(stores[1]!, { webhook: handler });
    a.kick();
    b.kick();
    await all.promise;
    await a.stop();
    await b.stop();
    expect([...performed.values()].every((n) => n === 1)).toBe(true);
    expect([...performed.keys()].sort()).toEqual([...ids].sort());
  });
});
