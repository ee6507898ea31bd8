// What an APPROVAL question says about its use (API.md §23): `action.executors` and
// `action.validSeconds`, each at its limit and one past it, and who may read the question.
import { describe, expect, it } from 'vitest';
import { canSee } from '../../src/domain/access.ts';
import { type AskContext, validateAskInput } from '../../src/domain/ask-input.ts';
import {
  ACTION_EXECUTORS_MAX,
  ACTION_VALID_SECONDS_MAX,
  ACTION_VALID_SECONDS_MIN,
} from '../../src/domain/limits.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { expectBad } from '../support/domain-errors.ts';

const ctx: AskContext = { verifiers: new Set(), channels: new Set(), prepared: false };
const ask = (actionOver: Record<string, unknown>) =>
  validateAskInput(
    {
      text: 'Refund ch_1?',
      format: 'APPROVAL',
      action: { name: 'payments.refund', arguments: { id: 'ch_1' }, ...actionOver },
    },
    ctx,
  );
const bad = (actionOver: Record<string, unknown>, field: string) => expectBad(() => ask(actionOver), field);
const agent = (id: string): Principal => ({ id, roles: ['agent'], restricted: false });

describe('action.executors', () => {
  it('keeps up to 10 distinct identities and refuses 11', () => {
    const ten = Array.from({ length: ACTION_EXECUTORS_MAX }, (_, i) => `runner-${i}`);
    expect(ask({ executors: ten }).action?.executors).toEqual(ten);
    bad({ executors: [...ten, 'runner-10'] }, 'input.action.executors');
  });

  it('refuses repeats, blanks and non-lists, and leaves an absent list out', () => {
    bad({ executors: ['a', 'a'] }, 'input.action.executors[1]');
    bad({ executors: [' '] }, 'input.action.executors[0]');
    bad({ executors: 'a' }, 'input.action.executors');
    expect(ask({}).action).not.toHaveProperty('executors');
  });

  it('lets an executor read the question, and nobody else', () => {
    const q = { audience: null, askedBy: 'asker', action: { executors: ['runner'] } } as never;
    expect(canSee(agent('asker'), q)).toBe(true);
    expect(canSee(agent('runner'), q)).toBe(true);
    expect(canSee(agent('other'), q)).toBe(false);
  });
});

describe('action.validSeconds', () => {
  it('is an integer from 1 to 2,592,000', () => {
    expect(ask({ validSeconds: ACTION_VALID_SECONDS_MIN }).action?.validSeconds).toBe(1);
    expect(ask({ validSeconds: ACTION_VALID_SECONDS_MAX }).action?.validSeconds).toBe(2_592_000);
    bad({ validSeconds: ACTION_VALID_SECONDS_MIN - 1 }, 'input.action.validSeconds');
    bad({ validSeconds: ACTION_VALID_SECONDS_MAX + 1 }, 'input.action.validSeconds');
    bad({ validSeconds: 1.5 }, 'input.action.validSeconds');
    bad({ validSeconds: '60' }, 'input.action.validSeconds');
  });
});
