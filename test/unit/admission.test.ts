// How many /graphql executions run at once (src/http/admission.ts): at most the limit, first come
// first served, a place freed by its execution or by its budget running out (an execution that
// runs on gives way), and no timer left when nobody waits.
import { describe, expect, it } from 'vitest';
import { createAdmission, type Place } from '../../src/http/admission.ts';

const timeouts = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('admission', () => {
  it('admits up to the limit at once, then one waiting caller per place freed, in arrival order', async () => {
    const a = createAdmission(2, 60_000);
    const first = a.enter() as Place;
    const second = a.enter() as Place;
    expect(first).not.toBeInstanceOf(Promise);
    expect(second).not.toBeInstanceOf(Promise);
    const order: number[] = [];
    const later = [3, 4, 5].map((n) =>
      Promise.resolve(a.enter()).then((p) => {
        order.push(n);
        return p;
      }),
    );
    expect([a.running(), a.waiting()]).toEqual([2, 3]);
    a.leave(first);
    a.leave(first);
    const third = await later[0]!;
    expect([a.running(), a.waiting()]).toEqual([2, 2]);
    a.leave(second);
    a.leave(third);
    const [, fourth, fifth] = await Promise.all(later);
    expect(order).toEqual([3, 4, 5]);
    a.leave(fourth!);
    a.leave(fifth!);
    expect([a.running(), a.waiting()]).toEqual([0, 0]);
    // Free places are given at once again, without a promise.
    const again = a.enter();
    expect(again).not.toBeInstanceOf(Promise);
  });

  it('a place held past its budget goes to the next caller; its late leave changes nothing', async () => {
    const a = createAdmission(1, 30);
    const stuck = a.enter() as Place;
    const start = performance.now();
    const next = await a.enter();
    expect(performance.now() - start).toBeGreaterThanOrEqual(29);
    expect([a.running(), a.waiting()]).toEqual([1, 0]);
    a.leave(stuck);
    expect(a.running()).toBe(1);
    const third = a.enter();
    expect(third).toBeInstanceOf(Promise);
    a.leave(next);
    await third;
    expect(a.running()).toBe(1);
  });

  it('keeps a timer only while someone waits', async () => {
    const before = timeouts();
    const a = createAdmission(1, 60_000);
    const p = a.enter() as Place;
    expect(timeouts()).toBe(before);
    const waiting = a.enter();
    expect(timeouts()).toBe(before + 1);
    a.leave(p);
    a.leave(await waiting);
    expect(timeouts()).toBe(before);
  });
});
