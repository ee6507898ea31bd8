// A retried answer (API.md §3, UNAVAILABLE): the same identity sending the same answer to a
// question it already answered gets the question as it stands, on both stores, whether the
// retry reads the question closed or races the first attempt's claim; any other answer to an
// answered question is ALREADY_ANSWERED, and a sensitive question never matches.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.ts';
import { codeOf } from '../support/domain-errors.ts';
import { AGENT, ALICE, type EngineSet, OPS, type StoreKind, startEngines } from '../support/engines.ts';

const SCHEMA = {
  type: 'object',
  properties: { env: { type: 'string' }, replicas: { type: 'integer' } },
  required: ['env', 'replicas'],
};

describe.each(['memory', 'redis'] as StoreKind[])('a retried answer on the %s store', (kind) => {
  let set: EngineSet;
  beforeEach(async () => {
    // Two engines on one store: the second has not seen the question announced, so it reads.
    set = await startEngines(kind, 2);
  });
  afterEach(async () => {
    await set.close();
  });

  const ask = async (input: Record<string, unknown>) =>
    (await set.engines[0]!.ask(AGENT, { text: 'Deploy?', ...input }, { holdSeconds: 0 })).question.id;

  it('the same identity and the same value succeed with the question as it stands; one answer is recorded', async () => {
    const id = await ask({ format: 'FORM', schema: SCHEMA });
    const first = await set.engines[0]!.answer(OPS, id, { env: 'prod', replicas: 3 });
    expect(first).toMatchObject({ status: 'ANSWERED', answeredBy: 'ops' });
    for (const engine of set.engines) {
      // Keys in another order are the same value.
      const again = await engine.answer(OPS, id, { replicas: 3, env: 'prod' });
      expect(again).toMatchObject({
        id,
        status: 'ANSWERED',
        answeredBy: 'ops',
        answer: { env: 'prod', replicas: 3 },
        answeredAt: first.answeredAt,
      });
    }
  });

  it('another value, or another identity, is ALREADY_ANSWERED; so is a closed question', async () => {
    const id = await ask({ format: 'SELECT', options: ['blue', 'green'] });
    await set.engines[0]!.answer(OPS, id, 'blue');
    expect(await codeOf(set.engines[1]!.answer(OPS, id, 'green'))).toBe('ALREADY_ANSWERED');
    expect(await codeOf(set.engines[1]!.answer(OPS, id, 'purple'))).toBe('ALREADY_ANSWERED');
    expect(await codeOf(set.engines[1]!.answer(ALICE, id, 'blue'))).toBe('NOT_FOUND'); // restricted
    expect(await codeOf(set.engines[1]!.answer({ ...OPS, id: 'ops2' }, id, 'blue'))).toBe('ALREADY_ANSWERED');

    const cancelled = await ask({ format: 'CONFIRM' });
    await set.engines[0]!.cancel(AGENT, cancelled, null);
    expect(await codeOf(set.engines[1]!.answer(OPS, cancelled, true))).toBe('QUESTION_CLOSED');
  });

  it('two identical answers racing (one loses the claim) both succeed; the record holds one', async () => {
    const id = await ask({ format: 'TEXT' });
    const [a, b] = await Promise.all([
      set.engines[0]!.answer(OPS, id, 'ship it'),
      set.engines[1]!.answer(OPS, id, 'ship it'),
    ]);
    expect(a.answeredAt).toBe(b.answeredAt);
    expect(a).toMatchObject({ status: 'ANSWERED', answer: 'ship it', answeredBy: 'ops' });
    // Different values racing: exactly one wins, the other is refused.
    const raced = await ask({ format: 'TEXT' });
    const codes = await Promise.all([
      codeOf(set.engines[0]!.answer(OPS, raced, 'one')),
      codeOf(set.engines[1]!.answer(OPS, raced, 'two')),
    ]);
    expect(codes.sort()).toEqual(['ALREADY_ANSWERED', 'OK']);
  });

  it('a sensitive question never matches (its answer is not kept): ALREADY_ANSWERED, saying why', async () => {
    const id = await ask({ format: 'TEXT', sensitive: true });
    await set.engines[0]!.answer(OPS, id, 'hunter2');
    const retry = set.engines[1]!.answer(OPS, id, 'hunter2');
    await expect(retry).rejects.toBeInstanceOf(DomainError);
    await expect(retry).rejects.toMatchObject({
      code: 'ALREADY_ANSWERED',
      message: expect.stringContaining('by you: a sensitive answer is not kept'),
    });
    await expect(set.engines[1]!.answer(OPS, id, 'hunter2')).rejects.not.toMatchObject({
      message: expect.stringContaining('hunter2'),
    });
  });
});
