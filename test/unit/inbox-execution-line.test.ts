// The inbox's decision-to-action line (API.md §23): "approved 10:02 · run 10:03 · succeeded".
import { describe, expect, it } from 'vitest';
import { executionLine } from '../../src/inbox/lib/execution-line.ts';

const used = {
  consumedAt: '2026-12-06T10:03:40Z',
  consumedBy: 'agent',
  reportedAt: null,
  resultDigest: null,
};

describe('executionLine', () => {
  it('says when it was approved, run, and how it ended', () => {
    const q = { decision: 'APPROVED' as const, answeredAt: '2026-12-06T10:02:05Z' };
    expect(executionLine({ ...q, execution: { ...used, outcome: 'SUCCEEDED' } }, 'UTC')).toBe(
      'approved 10:02 · run 10:03 · succeeded',
    );
    expect(executionLine({ ...q, execution: { ...used, outcome: 'FAILED' } }, 'UTC')).toBe(
      'approved 10:02 · run 10:03 · failed',
    );
    expect(executionLine({ ...q, execution: { ...used, outcome: null } }, 'UTC')).toBe(
      'approved 10:02 · run 10:03 · not reported yet',
    );
  });

  it('is null for an approval not used yet and for a rejection', () => {
    expect(
      executionLine({ decision: 'APPROVED', answeredAt: '2026-12-06T10:02:05Z', execution: null }),
    ).toBeNull();
    expect(
      executionLine({
        decision: 'REJECTED',
        answeredAt: '2026-12-06T10:02:05Z',
        execution: { ...used, outcome: null },
      }),
    ).toBeNull();
  });
});
