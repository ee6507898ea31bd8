// Escalation steps fire when they fall due, not at the reaper's next pass (API.md §18). The
// store keeps each step as a durable timer (the `escalations` set, moved to the outbox by its
// atomic `escalateDue`) but announces nothing when one falls due; what it does announce is the
// question, ladder included, in ASKED. So every instance learns from that announcement when the
// steps of each question fall due and keeps one timer for all of them (the heap of
// deadlines.ts); when the earliest is due it asks for an escalation pass. Every instance wakes
// for every step, and the store's step moves each one into the outbox once between them. The
// reaper's poll stays the net for what no instance heard (asked while it was not listening).
import type { QuestionRecord } from '../domain/question.ts';
import { createDeadlines, type Timed } from './waiting/deadlines.ts';

export interface EscalationAlarm {
  /** A question was announced as asked: wake when each step of its ladder is due. */
  asked(question: QuestionRecord): void;
  /** The question is no longer pending: its steps will never fire. */
  closed(id: string): void;
  /** Forget every question (the engine stops). */
  clear(): void;
  /** Questions with a step still to wake for (tests, metrics). */
  size(): number;
}

export interface EscalationAlarmOptions {
  /** The engine's clock (epoch ms), the one due times are written in. */
  clock: () => number;
  /** A step is due: run an escalation pass (coalesced by the caller). */
  due: () => void;
}

export function createEscalationAlarm(o: EscalationAlarmOptions): EscalationAlarm {
  const deadlines = createDeadlines();
  const ladders = new Map<string, Ladder>();

  /** One question's steps still to come, earliest first; its slot in the heap is the next one. */
  class Ladder implements Timed {
    at = 0;
    slot = -1;
    constructor(
      readonly id: string,
      private readonly times: number[],
      private next = 0,
    ) {}

    /**
     * Waits for the next step; false when there is none left. A step already due (an
     * announcement heard late) is asked for at once: one pass, which finds it or nothing.
     */
    arm(): boolean {
      if (this.next >= this.times.length) return false;
      deadlines.add(this, this.times[this.next]! - o.clock());
      return true;
    }

    expire(): void {
      const due = this.times[this.next]!;
      const now = o.clock();
      // Node's timer and the wall clock drift apart a little: never ask before the store would
      // find the step due.
      if (now < due) {
        deadlines.add(this, due - now);
        return;
      }
      while (this.next < this.times.length && this.times[this.next]! <= now) this.next++;
      o.due();
      if (!this.arm()) ladders.delete(this.id);
    }
  }

  return {
    asked(q) {
      const steps = q.escalation;
      if (!steps || steps.length === 0 || q.status !== 'PENDING' || ladders.has(q.id)) return;
      const times = steps.map((s) => q.createdAt + s.afterSeconds * 1000).sort((a, b) => a - b);
      const ladder = new Ladder(q.id, times);
      if (ladder.arm()) ladders.set(q.id, ladder);
    },
    closed(id) {
      const ladder = ladders.get(id);
      if (!ladder) return;
      deadlines.remove(ladder);
      ladders.delete(id);
    },
    clear() {
      for (const ladder of ladders.values()) deadlines.remove(ladder);
      ladders.clear();
    },
    size: () => ladders.size,
  };
}
