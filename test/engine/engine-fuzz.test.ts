// No input makes the engine throw anything but a domain error, and a refused input writes
// nothing (issue: "Bad input gets a clear error and changes nothing").

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.ts';
import { ANSWER_FORMATS } from '../../src/domain/question.ts';
import type { EngineSet } from '../support/engines.ts';
import { AGENT, OPS, startEngines } from '../support/engines.ts';

async function outcome(p: Promise<unknown>): Promise<'ok' | string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof DomainError) return err.code;
    throw err;
  }
}

describe('engine under arbitrary input (memory store)', () => {
  let set: EngineSet;
  beforeAll(async () => {
    set = await startEngines('memory');
  });
  afterAll(async () => {
    await set.close();
  });

  const askLike = fc.oneof(
    fc.anything(),
    fc.record(
      {
        text: fc.oneof(fc.string(), fc.anything()),
        format: fc.oneof(fc.constantFrom(...ANSWER_FORMATS), fc.anything()),
        options: fc.oneof(fc.array(fc.string()), fc.anything()),
        schema: fc.oneof(fc.object(), fc.anything()),
        link: fc.oneof(fc.webUrl(), fc.string(), fc.anything()),
        media: fc.oneof(
          fc.array(fc.record({ kind: fc.constantFrom('IMAGE', 'LINK'), url: fc.webUrl() })),
          fc.anything(),
        ),
        timeoutSeconds: fc.oneof(fc.integer(), fc.double(), fc.anything()),
        audience: fc.anything(),
      },
      { requiredKeys: [] },
    ),
  );

  it('ask: only domain errors, and a refused ask stores nothing', async () => {
    await fc.assert(
      fc.asyncProperty(askLike, fc.oneof(fc.integer(), fc.anything()), async (input, hold) => {
        const before = (await set.stores[0]!.list({}, { first: 1 })).totalCount;
        const r = await outcome(set.engines[0]!.ask(AGENT, input, { holdSeconds: hold as number }));
        const after = (await set.stores[0]!.list({}, { first: 1 })).totalCount;
        if (r === 'ok') expect(after).toBe(before + 1);
        else expect(after).toBe(before);
      }),
      { numRuns: 300 },
    );
  });

  it('answer, cancel, await and get: only domain errors for any id or answer', async () => {
    const q = await set.engines[0]!.ask(
      AGENT,
      { text: 'x', format: 'FORM', schema: { type: 'object' } },
      { holdSeconds: 0 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constant(q.question.id), fc.anything()),
        fc.anything(),
        async (id, answer) => {
          const e = set.engines[0]!;
          await outcome(e.answer(OPS, id as string, answer));
          await outcome(e.cancel(AGENT, id as string, answer as string));
          await outcome(e.awaitAnswer(AGENT, id as string, { holdSeconds: 0 }));
          await outcome(e.get(OPS, id as string));
          await outcome(e.list(OPS, { groupId: answer as string }, { first: 10, after: id as string }));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('listing filters are validated', () => {
  it('refuses unknown statuses, blank or oversized labels, and foreign cursors with their field', async () => {
    const set = await startEngines('memory');
    try {
      const e = set.engines[0]!;
      const field = async (filter: unknown, after: unknown = null) => {
        try {
          await e.list(OPS, filter as never, { first: 10, after: after as string });
          return 'ok';
        } catch (err) {
          return err instanceof DomainError ? `${err.code} ${err.field}` : 'other';
        }
      };
      expect(await field({ status: ['DONE'] })).toBe('BAD_USER_INPUT filter.status');
      expect(await field({ groupId: ' ' })).toBe('BAD_USER_INPUT filter.groupId');
      expect(await field({ audience: 'a'.repeat(257) })).toBe('BAD_USER_INPUT filter.audience');
      expect(await field({ audience: 'a'.repeat(256) })).toBe('ok');
      expect(await field({}, { not: 'a cursor' })).toBe('BAD_USER_INPUT after');
      expect(await field({ status: ['PENDING', 'ANSWERED'], channel: 'slack' })).toBe('ok');
    } finally {
      await set.close();
    }
  });
});
