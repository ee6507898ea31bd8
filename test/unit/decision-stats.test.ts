// The SLA view's pure parts (API.md §24): who decided, the keys a question counts under (several
// groups each), nearest-rank percentiles, and the pending ages counted strictly older than.
import { describe, expect, it } from 'vitest';
import {
  createStatsAccumulator,
  decidedByOf,
  percentile,
  statsKeysOf,
} from '../../src/domain/decision-stats.ts';
import type { QuestionRecord } from '../../src/domain/question.ts';

const q = (over: Partial<QuestionRecord>): QuestionRecord =>
  ({
    id: 'q',
    text: 't',
    format: 'CONFIRM',
    askedBy: 'agent',
    audience: null,
    channel: null,
    status: 'PENDING',
    answeredBy: null,
    answeredAt: null,
    closedAt: null,
    createdAt: 0,
    ...over,
  }) as QuestionRecord;

describe('decision statistics, pure', () => {
  it('names who decided from the status and answeredBy', () => {
    expect(decidedByOf('PENDING', null)).toBeNull();
    expect(decidedByOf('TIMED_OUT', null)).toBe('timeout');
    expect(decidedByOf('CANCELLED', 'ops')).toBe('cancelled');
    expect(decidedByOf('ANSWERED', 'policy:small-refunds')).toBe('policy');
    expect(decidedByOf('ANSWERED', 'policy:grant-0123abcd')).toBe('grant');
    expect(decidedByOf('ANSWERED', 'slack:U123')).toBe('person');
    expect(decidedByOf('ANSWERED', 'callback')).toBe('person');
  });

  it('counts a question under each group it was routed to, once each', () => {
    const routed = q({
      audience: 'group:ops',
      quorum: { approvals: 2, rejections: 1, voters: ['group:sre', 'group:ops', 'bob'] },
    });
    expect(statsKeysOf(routed, 'GROUP')).toEqual(['ops', 'sre']);
    expect(statsKeysOf(q({ audience: 'alice' }), 'GROUP')).toEqual([null]);
    expect(statsKeysOf(q({ status: 'ANSWERED', answeredBy: 'policy:x' }), 'PERSON')).toEqual([null]);
  });

  it('takes nearest-rank percentiles', () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([7], 90)).toBe(7);
    const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(ten, 50)).toBe(5);
    expect(percentile(ten, 90)).toBe(9);
    expect(percentile(ten, 100)).toBe(10);
  });

  it('counts pending questions strictly older than each age', () => {
    const acc = createStatsAccumulator('ASKER', 3_600_000);
    // Exactly 60 s old: older than 0 s, not than 60 s.
    acc.add(q({ createdAt: 3_540_000 }));
    acc.add(q({ createdAt: 0 }));
    const [row] = acc.rows();
    expect(row!.pendingByAge.slice(0, 5)).toEqual([
      { olderThanSeconds: 0, count: 2 },
      { olderThanSeconds: 60, count: 1 },
      { olderThanSeconds: 300, count: 1 },
      { olderThanSeconds: 900, count: 1 },
      { olderThanSeconds: 3600, count: 0 },
    ]);
  });
});
