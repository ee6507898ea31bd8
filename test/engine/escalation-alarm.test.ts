// The escalation alarm (engine/escalation-alarm.ts): one timer for the steps of every announced
// ladder; it asks for an escalation pass when each falls due, never for a question that closed
// meanwhile, and once for a step already due when it is first heard of. Waits end on the
// alarm's own calls; a later question's step is the sentinel that bounds "never".
import { describe, expect, it } from 'vitest';
import type { EscalationStep } from '../../src/domain/escalation.ts';
import type { QuestionRecord } from '../../src/domain/question.ts';
import { createEscalationAlarm } from '../../src/engine/escalation-alarm.ts';
import { specOf } from '../support/fixtures.ts';

const step = (afterSeconds: number): EscalationStep => ({
  afterSeconds,
  action: 'REMIND',
  channel: null,
  recipient: null,
});

/** A pending question whose steps fall due `inMs` from now (the ladder of 10 s steps, backdated). */
function pending(...inMs: number[]): QuestionRecord {
  const now = Date.now();
  const createdAt = now - 10_000;
  const escalation = inMs.map((ms) => step((now + ms - createdAt) / 1000));
  return {
    ...specOf({ createdAt, timeoutAt: now + 60_000, escalation }),
    status: 'PENDING',
  } as QuestionRecord;
}

function recordingAlarm() {
  const calls: number[] = [];
  let next: (() => void) | null = null;
  const alarm = createEscalationAlarm({
    clock: Date.now,
    due: () => {
      calls.push(Date.now());
      next?.();
    },
  });
  const nextCall = () => new Promise<void>((resolve) => (next = resolve));
  return { alarm, calls, nextCall };
}

describe('the escalation alarm', () => {
  it('asks for a pass when each step is due, then forgets the question', async () => {
    const { alarm, calls, nextCall } = recordingAlarm();
    const q = pending(30, 60);
    const due = q.escalation!.map((s) => q.createdAt + s.afterSeconds * 1000);
    alarm.asked(q);
    expect(alarm.size()).toBe(1);
    await nextCall();
    await nextCall();
    expect(calls).toHaveLength(2);
    expect(calls[0]).toBeGreaterThanOrEqual(due[0]!);
    expect(calls[1]).toBeGreaterThanOrEqual(due[1]!);
    expect(alarm.size()).toBe(0);
  });

  it('never wakes for a question that closed, and once for a step already due', async () => {
    const { alarm, calls, nextCall } = recordingAlarm();
    const closed = pending(20);
    alarm.asked(closed);
    alarm.closed(closed.id);
    const late = pending(-5_000);
    alarm.asked(late);
    await nextCall();
    expect(calls).toHaveLength(1);
    // The sentinel: a later step fires; the closed question's earlier one never did.
    alarm.asked(pending(60));
    await nextCall();
    expect(calls).toHaveLength(2);
    expect(alarm.size()).toBe(0);
  });

  it('ignores questions without a ladder, or no longer pending, and an announcement heard twice', () => {
    const { alarm } = recordingAlarm();
    alarm.asked({ ...specOf(), status: 'PENDING' } as QuestionRecord);
    alarm.asked({ ...pending(1_000), status: 'ANSWERED' } as QuestionRecord);
    const q = pending(1_000);
    alarm.asked(q);
    alarm.asked(q);
    expect(alarm.size()).toBe(1);
    alarm.clear();
    expect(alarm.size()).toBe(0);
  });
});
