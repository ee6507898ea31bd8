// How many GraphQL executions run at once on /graphql. A burst of requests (500 held asks sent
// together) would otherwise all be inside Yoga at the same time, each keeping its fetch Request,
// context, execution state and store round trips alive while the others run: alive across
// several young collections, all of it is promoted to the old space and dies there, leaving its
// pages half empty (bench/README.md, "Held askUser calls"). Admitted a few at a time, each
// execution's garbage dies young; a request waiting for its place is its own queue entry, so
// the wait itself makes nothing to promote either. A place is held until the execution has its response (not
// while the response is sent, nor while a held call waits) and at most `budgetMs`: an
// execution that runs longer (an operation that holds inside its execution, a slow resolver)
// keeps running but gives its place to the next, so nothing waits on it for long and no
// request can block another for good.

/** One admitted execution. */
export interface Place {
  /** When it was admitted (monotonic ms). */
  readonly since: number;
}

/** What waits for a place: itself, not a promise and a frame suspended on it. */
export interface Admitted {
  /** It may run now (called once, from enter or later when a place frees). */
  admitted(place: Place): void;
}

export interface Admission {
  /** `t.admitted` runs now while a place is free, else once one frees; first come, first served. */
  enter(t: Admitted): void;
  /** The execution has its response (again, or after its budget ran out: nothing happens). */
  leave(place: Place): void;
  /** Executions admitted and waiting now (tests, metrics). */
  running(): number;
  waiting(): number;
}

export function createAdmission(
  limit: number,
  budgetMs: number,
  now: () => number = () => performance.now(),
): Admission {
  // Insertion order is admission order: the first is the oldest.
  const active = new Set<Place>();
  const queue: Admitted[] = [];
  let head = 0;
  let timer: NodeJS.Timeout | null = null;

  const admit = (): Place => {
    const p = { since: now() };
    active.add(p);
    return p;
  };

  function next(): void {
    while (active.size < limit && head < queue.length) {
      const t = queue[head]!;
      queue[head++] = undefined as never;
      t.admitted(admit());
    }
    if (head < queue.length) {
      if (!timer) arm();
      return;
    }
    queue.length = 0;
    head = 0;
    if (timer) clearTimeout(timer);
    timer = null;
  }

  /**
   * While anyone waits: a timer for when the oldest place's budget runs out. Places only get
   * younger as the oldest leave, so a timer set earlier fires early at worst and sets itself again.
   */
  function arm(): void {
    const oldest = active.values().next().value;
    if (oldest === undefined) return;
    timer = setTimeout(expire, Math.max(0, Math.ceil(oldest.since + budgetMs - now())));
  }

  function expire(): void {
    timer = null;
    const t = now();
    for (const p of active) {
      if (p.since + budgetMs > t) break;
      active.delete(p);
    }
    next();
  }

  return {
    enter(t) {
      if (active.size < limit && head === queue.length) {
        t.admitted(admit());
        return;
      }
      queue.push(t);
      if (!timer) arm();
    },
    leave(p) {
      if (active.delete(p)) next();
    },
    running: () => active.size,
    waiting: () => queue.length - head,
  };
}
