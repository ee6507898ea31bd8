// The inbox's approval rows (issue 44 item 2): which arguments an edit changed, a field emptied
// while editing shown as "(not set)", and the server's refusal of an edited argument put on the
// edit form's field (`answer.arguments.amount` is the field `amount`).
import { describe, expect, it } from 'vitest';
import { argumentRows, changesAny } from '../../src/inbox/lib/approval.ts';
import { serverErrorSchema } from '../../src/inbox/lib/form-validator.ts';

const PROPOSED = { charge: 'ch_1', amount: 100, meta: { order: 1 } };

describe('argument rows of an edit', () => {
  it('marks what changed, with the proposed value', () => {
    expect(argumentRows(PROPOSED, { ...PROPOSED, amount: 40 })).toEqual([
      { name: 'charge', value: 'ch_1' },
      { name: 'amount', value: '40', was: '100' },
      { name: 'meta', value: '{\n  "order": 1\n}' },
    ]);
  });

  it('shows an emptied field, and an argument the proposal lacked, as "(not set)"', () => {
    expect(argumentRows({ a: 'x' }, { a: undefined, b: 2 })).toEqual([
      { name: 'a', value: '(not set)', was: 'x' },
      { name: 'b', value: '2', was: '(not set)' },
    ]);
  });

  it('an edit changes something only when a value differs', () => {
    expect(changesAny(PROPOSED, structuredClone(PROPOSED))).toBe(false);
    expect(changesAny(PROPOSED, { ...PROPOSED, meta: { order: 2 } })).toBe(true);
    // Put back as it was: no change.
    expect(changesAny(PROPOSED, { ...PROPOSED, amount: 100 })).toBe(false);
  });
});

describe("the server's refusal of an edited argument", () => {
  it('lands on the field under `answer.arguments`', () => {
    expect(
      serverErrorSchema(
        'answer.arguments.amount must be at most 500',
        'answer.arguments.amount',
        'arguments',
      ),
    ).toEqual({ amount: { __errors: ['Must be at most 500'] } });
  });

  it('anything else lands on the form as a whole', () => {
    expect(serverErrorSchema('answer.note is too long', 'answer.note', 'arguments')).toEqual({
      __errors: ['Is too long'],
    });
    expect(serverErrorSchema('arguments must be a JSON object', 'answer.arguments', 'arguments')).toEqual({
      __errors: ['Arguments must be a JSON object'],
    });
  });
});
