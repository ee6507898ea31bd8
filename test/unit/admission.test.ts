// How many /graphql executions run at once (src/http/admission.ts): at most the limit, first come
// first served, a place freed by its execution or by its budget running out (an execution that
// runs on gives way), and no timer left when nobody waits.
import { describe, expect, it } from 'vitest';
import { type Admission, createAdmission, type Place } from '../../src/http/admission.ts';

const timeouts = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

/** Enters and returns the place if it was given at once (synchronously), else undefined. */
function enterNow(a: Admission): Place | undefined {
  let got: Place | undefined;
  a.enter({
    admitted(p) {
      got = p;
    },
  });
  return got;
}

/** Enters and resolves with the place whenever it is given. */
function enter(a: Admission): Promise<Place> {
  return new Promise((resolve) => a.enter({ admitted: resolve }));
}

describe('admission', () => {
  it('admits up to the limit at once, then one waiting caller per place freed, in arrival order', async () => {
    const a = createAdmission(2, 60_000);
    const first = enterNow(a)!;
    const second = enterNow(a)!;
    expect([first, second].every((p) => p !== undefined)).toBe(true);
    const order: number[] = [];
    const later = [3, 4, 5].map((n) =>
      enter(a).then((p) => {
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
    // Free places are given at once again.
    expect(enterNow(a)).toBeDefined();
  });

  it('a place held past its budget goes to the next caller; its late leave changes nothing', async () => {
    const a = createAdmission(1, 30);
    const stuck = enterNow(a)!;
    const start = performance.now();
    const next = await enter(a);
    expect(performance.now() - start).toBeGreaterThanOrEqual(29);
    expect([a.running(), a.waiting()]).toEqual([1, 0]);
    a.leave(stuck);
    expect(a.running()).toBe(1);
    const third = enter(a);
    expect(a.waiting()).toBe(1);
    a.leave(next);
    await third;
    expect(a.running()).toBe(1);
  });

  it('keeps a timer only while someone waits', async () => {
    const before = timeouts();
    const a = createAdmission(1, 60_000);
    const p = enterNow(a)!;
    expect(timeouts()).toBe(before);
    const waiting = enter(a);
    expect(timeouts()).toBe(before + 1);
    a.leave(p);
    a.leave(await waiting);
    expect(timeouts()).toBe(before);
  });
});
