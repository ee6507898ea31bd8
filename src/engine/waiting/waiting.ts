// Holding a caller until its question leaves PENDING, its hold ends, or it goes away; and
// shaping what the caller gets back (a sensitive answer only for its asker, once).
//
// A held call is one Holding object: the waiter in the registry, the slot in the shared
// deadline heap, and (for an AbortSignal) the one listener. Nothing is suspended while it is
// held: no async frame, promise chain or timer of its own, so a call held for minutes keeps
// only this object and what it was given (see bench/README.md, "Held askUser calls").
import { notFound } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import type { EngineContext } from '../context.ts';
import type { AskResult, HoldHandle, HoldSink } from '../types.ts';
import { createDeadlines, type Deadlines, type Timed } from './deadlines.ts';
import { type CancelSignal, GONE, type Settlement, type WaitTarget } from './waiters.ts';

export interface Waiting {
  /** Holds, then resolves with the result (its `callbackUrl` as given). */
  wait(
    p: Principal,
    id: string,
    holdSeconds: number,
    signal: CancelSignal | undefined,
    callbackUrl: string | null,
  ): Promise<AskResult>;
  /** The same for a caller that keeps nothing suspended: the result goes to `sink`. */
  hold(p: Principal, id: string, holdSeconds: number, callbackUrl: string | null, sink: HoldSink): HoldHandle;
  resultOf(p: Principal, q: QuestionRecord, callbackUrl: string | null): Promise<AskResult>;
}

/** How a hold ended. */
const End = { Settled: 0, Gone: 1, Timer: 2, Aborted: 3 } as const;
type End = (typeof End)[keyof typeof End];

const READING = 0;
const HOLDING = 1;
const ENDED = 2;

/** What every Holding shares (one per engine). */
interface Env {
  ctx: EngineContext;
  deadlines: Deadlines;
  resultOf: Waiting['resultOf'];
}

class Holding implements WaitTarget, Timed, HoldHandle {
  at = 0;
  slot = -1;
  private phase = READING;
  /** A settlement that came while the question was being read (the first one counts). */
  private early: Settlement | undefined = undefined;
  private cancelled = false;
  /** Whether the hold ends at the question's own deadline. */
  private reachesDeadline = false;
  private onAbort: (() => void) | null = null;

  constructor(
    private readonly env: Env,
    private readonly p: Principal,
    private readonly id: string,
    private readonly callbackUrl: string | null,
    private readonly sink: HoldSink,
    private readonly signal: CancelSignal | undefined,
  ) {}

  /** Registers first, then reads: an answer landing in between is never missed. */
  start(holdSeconds: number): void {
    this.env.ctx.waiters.add(this.id, this);
    void this.read(holdSeconds);
  }

  /**
   * The question if the caller is not to wait, else its hold. A hold on a question this process
   * heard asked and not yet resolved needs no read: its waiter is registered, so the
   * resolution's announcement, handled after this, settles it (were it lost, the read at the
   * hold's end has the truth). A call that does not wait reads.
   */
  private async read(holdSeconds: number): Promise<void> {
    const { ctx } = this.env;
    let q: QuestionRecord;
    try {
      q =
        holdSeconds === 0
          ? await ctx.visible(this.p, this.id)
          : (ctx.visibleAnnounced(this.p, this.id) ?? (await ctx.visible(this.p, this.id)));
    } catch (error) {
      this.leave();
      this.sink.failed(error);
      return;
    }
    if (holdSeconds === 0 || q.status !== 'PENDING') {
      this.leave();
      return this.deliver(q);
    }
    const holdEnd = ctx.clock() + holdSeconds * 1000;
    const until = Math.min(holdEnd, q.timeoutAt);
    this.reachesDeadline = q.timeoutAt <= holdEnd;
    if (this.cancelled || this.signal?.aborted) {
      this.leave();
      return this.end(End.Aborted);
    }
    const early = this.early;
    if (early !== undefined) {
      this.leave();
      return this.end(endOf(early), early);
    }
    this.phase = HOLDING;
    this.env.deadlines.add(this, until - ctx.clock());
    if (this.signal) {
      this.onAbort = () => this.cancel();
      this.signal.addEventListener('abort', this.onAbort);
    }
  }

  settle(s: Settlement): void {
    if (this.phase === READING) {
      if (this.early === undefined) this.early = s;
    } else if (this.phase === HOLDING) {
      this.stop();
      void this.end(endOf(s), s);
    }
  }

  expire(): void {
    if (this.phase !== HOLDING) return;
    this.stop();
    void this.end(End.Timer);
  }

  cancel(): void {
    if (this.phase === READING) this.cancelled = true;
    else if (this.phase === HOLDING) {
      this.stop();
      void this.end(End.Aborted);
    }
  }

  /** Out of the registry (before holding). */
  private leave(): void {
    this.phase = ENDED;
    this.env.ctx.waiters.remove(this.id, this);
  }

  /** Out of the registry, the deadline heap and the signal's listeners. */
  private stop(): void {
    this.leave();
    this.env.deadlines.remove(this);
    if (this.onAbort) {
      this.signal!.removeEventListener('abort', this.onAbort);
      this.onAbort = null;
    }
  }

  /** After the hold: the question as it is now. */
  private async end(how: End, s?: Settlement): Promise<void> {
    const { ctx } = this.env;
    try {
      if (how === End.Settled) return await this.deliver(s as QuestionRecord);
      if (how === End.Gone) throw notFound();
      if (how === End.Timer && this.reachesDeadline) {
        // The local timer sees the deadline at once; the claim guard makes it exactly once.
        const r = await ctx.claim(this.id, { status: 'TIMED_OUT' });
        if (r.kind !== 'missing') return await this.deliver(r.question);
      }
      // A record that vanished during the hold is absent, not PENDING forever.
      const latest = await ctx.store.get(this.id);
      if (!latest) throw notFound();
      await this.deliver(latest);
    } catch (error) {
      this.sink.failed(error);
    }
  }

  private async deliver(q: QuestionRecord): Promise<void> {
    let result: AskResult;
    try {
      result = await this.env.resultOf(this.p, q, this.callbackUrl);
    } catch (error) {
      this.sink.failed(error);
      return;
    }
    this.sink.held(result);
  }
}

function endOf(s: Settlement): End {
  // null: the registry released its waiters (the engine is stopping).
  if (s === null) return End.Aborted;
  if (s === GONE) return End.Gone;
  return End.Settled;
}

export function createWaiting(ctx: EngineContext): Waiting {
  const { store } = ctx;

  async function resultOf(p: Principal, q: QuestionRecord, callbackUrl: string | null): Promise<AskResult> {
    let answer: unknown = null;
    if (q.status === 'ANSWERED') {
      if (!q.sensitive) answer = q.answer;
      else if (p.id === q.askedBy) answer = (await store.takeReply(q.id))?.value ?? null;
    }
    return { question: q, status: q.status, answer, callbackUrl };
  }

  const env: Env = { ctx, deadlines: createDeadlines(), resultOf };

  function hold(
    p: Principal,
    id: string,
    holdSeconds: number,
    callbackUrl: string | null,
    sink: HoldSink,
    signal?: CancelSignal,
  ): HoldHandle {
    const h = new Holding(env, p, id, callbackUrl, sink, signal);
    h.start(holdSeconds);
    return h;
  }

  return {
    wait: (p, id, holdSeconds, signal, callbackUrl) =>
      new Promise<AskResult>((resolve, reject) => {
        hold(p, id, holdSeconds, callbackUrl, { held: resolve, failed: reject }, signal);
      }),
    hold: (p, id, holdSeconds, callbackUrl, sink) => hold(p, id, holdSeconds, callbackUrl, sink),
    resultOf,
  };
}
