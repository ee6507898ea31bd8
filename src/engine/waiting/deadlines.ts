// The ends of this process's holds: one timer for all of them. A Node timer per held call costs
// a Timeout and a closure (about 200 bytes each, for as long as the call is held); here a held
// call is a slot in a binary heap ordered by when it ends, and a single timer is set for the
// earliest. Times are monotonic milliseconds (performance.now), as Node's timers count them,
// so the hold ends after the time it was given whatever the engine's clock says.

/** Something that ends at `at`; `slot` is the heap's to keep (-1 while not in the heap). */
export interface Timed {
  at: number;
  slot: number;
  /** Called once when `at` is reached, unless removed first. */
  expire(): void;
}

export interface Deadlines {
  /** Ends `t` after `ms` milliseconds from now. */
  add(t: Timed, ms: number): void;
  /** Forgets `t` (nothing if it is not waiting). */
  remove(t: Timed): void;
  size(): number;
}

export function createDeadlines(now: () => number = () => performance.now()): Deadlines {
  const heap: Timed[] = [];
  let timer: NodeJS.Timeout | null = null;
  /** When the timer fires (Infinity: no timer). */
  let timerAt = Number.POSITIVE_INFINITY;

  function place(t: Timed, i: number): void {
    heap[i] = t;
    t.slot = i;
  }

  function up(i: number): void {
    const t = heap[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (p.at <= t.at) break;
      place(p, i);
      i = parent;
    }
    place(t, i);
  }

  function down(i: number): void {
    const t = heap[i]!;
    const n = heap.length;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && heap[child + 1]!.at < heap[child]!.at) child++;
      const c = heap[child]!;
      if (c.at >= t.at) break;
      place(c, i);
      i = child;
    }
    place(t, i);
  }

  function take(i: number): void {
    const t = heap[i]!;
    const last = heap.pop()!;
    t.slot = -1;
    if (last === t) return;
    place(last, i);
    up(i);
    down(last.slot);
  }

  /** Sets the timer for the earliest end, unless one is set for that time or before it. */
  function schedule(): void {
    const first = heap[0];
    if (first === undefined) {
      if (timer) clearTimeout(timer);
      timer = null;
      timerAt = Number.POSITIVE_INFINITY;
      return;
    }
    if (timer && timerAt <= first.at) return;
    if (timer) clearTimeout(timer);
    timerAt = first.at;
    timer = setTimeout(fire, Math.max(0, Math.ceil(first.at - now())));
  }

  function fire(): void {
    timer = null;
    timerAt = Number.POSITIVE_INFINITY;
    const t0 = now();
    // Ends that fall due meanwhile are taken too; each expire() may add or remove others.
    while (heap.length > 0 && heap[0]!.at <= t0) {
      const t = heap[0]!;
      take(0);
      t.expire();
    }
    schedule();
  }

  return {
    add(t, ms) {
      if (t.slot >= 0) take(t.slot);
      t.at = now() + Math.max(0, ms);
      heap.push(t);
      up(heap.length - 1);
      schedule();
    },
    remove(t) {
      if (t.slot < 0 || heap[t.slot] !== t) return;
      take(t.slot);
      // A timer set for an end that is gone fires early and sets itself again; none is left
      // running for an empty heap.
      if (heap.length === 0) schedule();
    },
    size: () => heap.length,
  };
}
