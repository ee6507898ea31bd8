// The ladder line the inbox card and `tai interactions show` print (API.md §18).
import { describe, expect, it } from 'vitest';
import { questionDetail } from '../../src/cli/format.ts';
import { type LadderStep, ladderLine } from '../../src/client/escalation-ladder.ts';
import { questionBuilder } from '../support/inbox-question.ts';

const T0 = Date.parse('2026-12-01T10:00:00Z');
const step = (over: Partial<LadderStep>): LadderStep => ({
  afterSeconds: 600,
  action: 'REMIND',
  channel: null,
  recipient: null,
  firedAt: null,
  outcome: null,
  ...over,
});
const LADDER = [
  step({ afterSeconds: 600 }),
  step({ afterSeconds: 1800, action: 'REROUTE', channel: 'oncall-sms', recipient: '+15550100' }),
];

describe('ladderLine', () => {
  it('says nothing without a ladder', () => {
    expect(ladderLine([], T0, T0, true)).toBe('');
  });

  it('names the next step before any fired', () => {
    expect(ladderLine(LADDER, T0, T0 + 60_000, true)).toBe('reminder in 9 min');
  });

  it('says what fired last and what comes next', () => {
    const fired = [{ ...LADDER[0]!, firedAt: T0 + 600_000, outcome: 'DELIVERED' }, LADDER[1]!];
    expect(ladderLine(fired, T0, T0 + 1_200_000, true)).toBe(
      'reminded 10 min ago · escalates to oncall-sms (+15550100) in 10 min',
    );
  });

  it('marks a failed step and shows no next step once the question is closed', () => {
    const fired = [{ ...LADDER[0]!, firedAt: T0 + 600_000, outcome: 'FAILED: ops: 500' }, LADDER[1]!];
    expect(ladderLine(fired, T0, T0 + 660_000, false)).toBe('reminded 1 min ago (failed)');
  });
});

describe('tai interactions show', () => {
  it('prints the ladder line and every step', () => {
    const q = questionBuilder({ id: (n) => `q${n}`, timeoutAt: () => '2026-12-01T12:00:00Z' })({
      createdAt: new Date(T0).toISOString(),
      escalations: [
        {
          afterSeconds: 600,
          action: 'REMIND',
          channel: null,
          recipient: null,
          firedAt: new Date(T0 + 600_000).toISOString(),
          outcome: 'DELIVERED',
        },
        {
          afterSeconds: 1800,
          action: 'REROUTE',
          channel: 'oncall-sms',
          recipient: '+15550100',
          firedAt: null,
          outcome: null,
        },
      ],
    });
    const text = questionDetail(q);
    expect(text).toMatch(
      /^Escalation\s+reminded \d+ \S+ ago · escalates to oncall-sms \(\+15550100\) due now$/m,
    );
    expect(text).toMatch(/^ {2}step 1\s+\+600s remind, fired .*: DELIVERED$/m);
    expect(text).toMatch(/^ {2}step 2\s+\+1800s reroute to oncall-sms \(\+15550100\), not fired$/m);
  });
});
