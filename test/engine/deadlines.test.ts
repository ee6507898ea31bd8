// The one timer behind every hold (src/engine/waiting/deadlines.ts): ends come in the order of their
// times whatever the order they were added and removed in, a removed end never comes, and an
// empty heap leaves no timer running.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDeadlines, type Timed } from '../../src/engine/waiting/deadlines.ts';

interface Entry extends Timed {
  name: number;
}

function entry(name: number, onExpire: (e: Entry) => void): Entry {
  const e: Entry = { name, at: 0, slot: -1, expire: () => onExpire(e) };
  return e;
}

const timeouts = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('deadlines', () => {
  it('ends come in time order and removed ones never come (random adds and removes)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ ms: fc.integer({ min: 0, max: 40 }), removed: fc.boolean() }), {
          minLength: 1,
          maxLength: 60,
        }),
        async (plan) => {
          // A clock of our own that stands still: every end falls due at once when it jumps.
          let now = 0;
          const d = createDeadlines(() => now);
          const seen: Entry[] = [];
          const kept = plan.filter((p) => !p.removed).length;
          const all = new Promise<void>((resolve) => {
            const entries = plan.map((_, i) =>
              entry(i, (e) => {
                seen.push(e);
                if (seen.length === kept) resolve();
              }),
            );
            for (const [i, e] of entries.entries()) d.add(e, plan[i]!.ms);
            for (const [i, e] of entries.entries()) if (plan[i]!.removed) d.remove(e);
            if (kept === 0) resolve();
          });
          expect(d.size()).toBe(kept);
          now = 1000;
          await all;
          expect(seen.map((e) => e.name).sort((a, b) => a - b)).toEqual(
            plan.flatMap((p, i) => (p.removed ? [] : [i])),
          );
          const ats = seen.map((e) => e.at);
          expect(ats).toEqual([...ats].sort((a, b) => a - b));
          expect(seen.every((e) => e.slot === -1)).toBe(true);
          expect(d.size()).toBe(0);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('an end is seen after its time on the real clock, and a later one after it', async () => {
    const d = createDeadlines();
    const order: number[] = [];
    const start = performance.now();
    let second!: number;
    await new Promise<void>((resolve) => {
      d.add(
        entry(2, () => {
          second = performance.now() - start;
          order.push(2);
          resolve();
        }),
        60,
      );
      d.add(
        entry(1, () => order.push(1)),
        20,
      );
    });
    expect(order).toEqual([1, 2]);
    expect(second).toBeGreaterThanOrEqual(59);
  });

  it('adding an entry again moves its end; removing the last one leaves no timer running', async () => {
    const before = timeouts();
    const d = createDeadlines();
    const fired: number[] = [];
    const a = entry(1, () => fired.push(1));
    d.add(a, 10_000);
    expect(timeouts()).toBe(before + 1);
    const moved = new Promise<void>((resolve) => {
      a.expire = () => {
        fired.push(1);
        resolve();
      };
    });
    d.add(a, 5);
    expect(d.size()).toBe(1);
    await moved;
    expect(fired).toEqual([1]);
    const b = entry(2, () => fired.push(2));
    d.add(b, 10_000);
    d.remove(b);
    d.remove(b);
    expect(d.size()).toBe(0);
    expect(timeouts()).toBe(before);
  });
});
