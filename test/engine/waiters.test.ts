// The waiter registry (src/engine/waiting/waiters.ts): one waiter is the map's value itself, two or more
// share a Set; every waiter of a question is settled, including when waiters remove themselves
// while being settled; released, it settles every waiter and every later one with null.
import { describe, expect, it } from 'vitest';
import type { QuestionRecord } from '../../src/domain/question.ts';
import {
  createWaiterRegistry,
  GONE,
  type Settlement,
  type WaitTarget,
} from '../../src/engine/waiting/waiters.ts';

const resolved = (id: string): QuestionRecord => ({ id, status: 'ANSWERED' }) as QuestionRecord;
const pending = (id: string): QuestionRecord => ({ id, status: 'PENDING' }) as QuestionRecord;

/** A waiter that records what it is settled with (and, if asked, leaves when settled). */
function target(onSettle?: (t: WaitTarget) => void): WaitTarget & { got: Settlement[] } {
  const t = {
    got: [] as Settlement[],
    settle(s: Settlement) {
      t.got.push(s);
      onSettle?.(t);
    },
  };
  return t;
}

describe('waiter registry', () => {
  it('settles the one waiter and every waiter of a question, and no other question', () => {
    const r = createWaiterRegistry();
    const a = target();
    const b = target();
    const c = target();
    const other = target();
    r.add('q', a);
    expect([r.size(), r.held()]).toEqual([1, 1]);
    r.add('q', b);
    r.add('q', c);
    r.add('p', other);
    expect([r.size(), r.held()]).toEqual([2, 4]);
    r.notify(pending('q'));
    expect(a.got).toEqual([]);
    r.notify(resolved('q'));
    expect([a.got, b.got, c.got].map((g) => g.length)).toEqual([1, 1, 1]);
    expect(other.got).toEqual([]);
    r.vanish('p');
    expect(other.got).toEqual([GONE]);
  });

  it('waiters that remove themselves while settled: all are settled, and the question is forgotten', () => {
    for (const n of [1, 2, 5]) {
      const r = createWaiterRegistry();
      const leave = (t: WaitTarget) => r.remove('q', t);
      const ts = Array.from({ length: n }, () => target(leave));
      for (const t of ts) r.add('q', t);
      r.notify(resolved('q'));
      expect(ts.every((t) => t.got.length === 1)).toBe(true);
      expect([r.has('q'), r.size(), r.held()]).toEqual([false, 0, 0]);
    }
  });

  it('removing one of two leaves the other waiting; removing a stranger changes nothing', () => {
    const r = createWaiterRegistry();
    const a = target();
    const b = target();
    r.add('q', a);
    r.remove('q', target());
    expect(r.held()).toBe(1);
    r.add('q', b);
    r.remove('q', a);
    r.remove('q', a);
    expect(r.held()).toBe(1);
    r.notify(resolved('q'));
    expect([a.got.length, b.got.length]).toEqual([0, 1]);
    r.remove('q', b);
    expect([r.has('q'), r.held()]).toEqual([false, 0]);
  });

  it('release settles every waiter with null, and every later one at once, until reopened', () => {
    const r = createWaiterRegistry();
    const leave = (t: WaitTarget) => r.remove('q', t);
    const a = target(leave);
    const b = target(leave);
    r.add('q', a);
    r.add('q', b);
    r.release();
    expect([a.got, b.got]).toEqual([[null], [null]]);
    expect(r.held()).toBe(0);
    const late = target();
    r.add('p', late);
    expect(late.got).toEqual([null]);
    r.remove('p', late);
    r.reopen();
    const again = target();
    r.add('p', again);
    expect(again.got).toEqual([]);
  });
});
