// How the CLI lays out the live feed: fixed columns, so the text starts at the same place.
import { describe, expect, it } from 'vitest';
import { eventLines } from '../../src/cli/format.ts';
import type { Question } from '../../src/client/index.ts';

function q(over: Partial<Question>): Question {
  return {
    id: '0f8fad5b-d9cb-469f-a165-70867728950e',
    format: 'TEXT',
    askedBy: 'agent',
    text: 'What now?',
    answer: null,
    ...over,
  } as Question;
}

describe('eventLines', () => {
  it('aligns the text column across formats, askers and event types', () => {
    const at = new Date('2026-01-02T03:04:05Z');
    const lines = [
      ...eventLines(
        {
          type: 'SNAPSHOT',
          questions: [
            q({ format: 'CONFIRM', text: 'First' }),
            q({ format: 'EXTERNAL', askedBy: 'a-very-long-agent-name-indeed', text: 'Second' }),
          ],
        },
        at,
      ).split('\n'),
      ...eventLines(
        { type: 'CANCELLED', questions: [q({ format: 'TEXT', askedBy: 'ops', text: 'Third' })] },
        at,
      ).split('\n'),
    ].filter((l) => l !== '');
    expect(lines[0]).toBe('03:04:05  SNAPSHOT   2 pending');
    const starts = ['First', 'Second', 'Third'].map((t, i) => lines[i + 1]?.indexOf(t));
    expect(new Set(starts).size).toBe(1);
    expect(lines[2]).toContain('a-very-long-age…');
  });
});
