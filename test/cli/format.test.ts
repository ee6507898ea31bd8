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
          more: false,
        },
        at,
      ).split('\n'),
      ...eventLines(
        { type: 'CANCELLED', questions: [q({ format: 'TEXT', askedBy: 'ops', text: 'Third' })], more: false },
        at,
      ).split('\n'),
    ].filter((l) => l !== '');
    expect(lines[0]).toBe('03:04:05  SNAPSHOT   2 pending');
    const starts = ['First', 'Second', 'Third'].map((t, i) => lines[i + 1]?.indexOf(t));
    expect(new Set(starts).size).toBe(1);
    expect(lines[2]).toContain('a-very-long-age…');
  });

  it('lists a backlog that arrives in parts as one SNAPSHOT: "more follow", then PENDING lines', () => {
    const at = new Date('2026-01-02T03:04:05Z');
    const first = eventLines({ type: 'SNAPSHOT', questions: [q({ text: 'Oldest' })], more: true }, at);
    expect(first.split('\n')[0]).toBe('03:04:05  SNAPSHOT   1 pending (more follow)');
    const part = eventLines({ type: 'ASKED', questions: [q({ text: 'Next' })], more: false }, at, true);
    expect(part).toMatch(/^ {8} {2}PENDING {3}.*Next\n$/);
    // The same event outside a backlog is a change, with its time and type.
    const live = eventLines({ type: 'ASKED', questions: [q({ text: 'Next' })], more: false }, at);
    expect(live).toMatch(/^03:04:05 {2}ASKED {5}.*Next\n$/);
  });
});
