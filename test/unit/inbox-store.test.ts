// The inbox store shows feed events once per frame (a backlog of thousands of one-question ASKED
// events is one render per frame, not one each) and the page's own actions at once.
import { describe, expect, it } from 'vitest';
import { createInboxStore, type FrameScheduler } from '../../src/inbox/lib/inbox-store.ts';
import type { FeedEvent, Question } from '../../src/inbox/lib/model.ts';
import { questionBuilder } from '../support/inbox-question.ts';

const q = questionBuilder({
  id: (n) => `s${n}`,
  timeoutAt: (n) => new Date(Date.UTC(2025, 0, 1, 13, 0, 0, n)).toISOString(),
});

/** A scheduler whose frames the test runs by hand. */
function frames(): { schedule: FrameScheduler; waiting(): number; run(): void } {
  const queue = new Set<() => void>();
  return {
    schedule(flush) {
      queue.add(flush);
      return () => queue.delete(flush);
    },
    waiting: () => queue.size,
    run() {
      const due = [...queue];
      queue.clear();
      for (const f of due) f();
    },
  };
}

function event(type: FeedEvent['type'], more: boolean, ...questions: Question[]) {
  return { type: 'feed' as const, event: { type, questions, more } };
}

describe('the inbox store', () => {
  it('applies every feed event at once and tells its listeners once per frame', () => {
    const f = frames();
    const store = createInboxStore(f.schedule);
    let renders = 0;
    store.subscribe(() => renders++);
    store.dispatch(event('SNAPSHOT', true, q(), q()));
    for (let i = 0; i < 1000; i++) store.dispatch(event('ASKED', i < 999, q()));
    expect(store.getState().pending.size).toBe(1002);
    expect(store.getState().loadingMore).toBe(false);
    expect(renders).toBe(0);
    expect(f.waiting()).toBe(1);
    f.run();
    expect(renders).toBe(1);
    f.run();
    expect(renders).toBe(1);
  });

  it('shows the page’s own action at once, with the feed events still waiting', () => {
    const f = frames();
    const store = createInboxStore(f.schedule);
    let renders = 0;
    store.subscribe(() => renders++);
    const [a, b] = [q(), q()];
    store.dispatch(event('SNAPSHOT', false, a));
    store.dispatch(event('ASKED', false, b));
    store.dispatch({ type: 'answered-here', question: { ...a, status: 'ANSWERED' } });
    expect(renders).toBe(1);
    expect([...store.getState().pending.keys()]).toEqual([b.id]);
    // The frame was cancelled: the waiting events were shown with the answer.
    expect(f.waiting()).toBe(0);
  });

  it('shows the middle parts of a backlog on the slower schedule and the last at the next frame', () => {
    const f = frames();
    const slow = frames();
    const store = createInboxStore(f.schedule, slow.schedule);
    let renders = 0;
    store.subscribe(() => renders++);
    // The first part goes on screen at the next frame.
    store.dispatch(event('SNAPSHOT', true, q()));
    expect([f.waiting(), slow.waiting()]).toEqual([1, 0]);
    f.run();
    expect(renders).toBe(1);
    // The parts after it wait for the slower schedule.
    store.dispatch(event('ASKED', true, q()));
    store.dispatch(event('ASKED', true, q()));
    expect([f.waiting(), slow.waiting()]).toEqual([0, 1]);
    slow.run();
    expect(renders).toBe(2);
    // The last part cancels the slower wait and is shown at the next frame.
    store.dispatch(event('ASKED', true, q()));
    store.dispatch(event('ASKED', false, q()));
    expect([f.waiting(), slow.waiting()]).toEqual([1, 0]);
    f.run();
    expect(renders).toBe(3);
    expect(store.getState()).toMatchObject({ loadingMore: false });
    expect(store.getState().pending.size).toBe(5);
  });

  it('says nothing for an action that changes nothing', () => {
    const f = frames();
    const store = createInboxStore(f.schedule);
    let renders = 0;
    store.subscribe(() => renders++);
    store.dispatch({ type: 'dismiss', id: 'nothing' });
    expect(renders + f.waiting()).toBe(0);
  });
});
