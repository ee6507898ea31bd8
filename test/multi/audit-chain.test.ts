// API.md §17 across instances: two engines on one Redis, each with its own connections, ask and
// resolve 1,000 questions at once; their audit log is one gap-free chain, however the two
// instances interleaved their appends and their chaining.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEntries, expectChained } from '../store/audit-contract.ts';
import { AGENT, type EngineSet, OPS, startEngines } from '../support/engines.ts';

const QUESTIONS = 1000;

describe('the audit log of two instances on one Redis', () => {
  let set: EngineSet;
  beforeAll(async () => {
    set = await startEngines('redis', 2);
  });
  afterAll(async () => {
    await set.close();
  });

  it('1,000 questions asked and resolved on both at once make one gap-free chain', async () => {
    const [a, b] = set.engines as [EngineSet['engines'][0], EngineSet['engines'][0]];
    const work = Array.from({ length: QUESTIONS }, async (_, i) => {
      const asker = i % 2 === 0 ? a : b;
      const other = i % 2 === 0 ? b : a;
      const r = await asker.ask(AGENT, { text: `q${i}`, format: 'CONFIRM' }, { holdSeconds: 0 });
      if (i % 3 === 0) await other.cancel(AGENT, r.question.id);
      else await other.answer(OPS, r.question.id, i % 3 === 1);
      // Reads chain on whichever instance comes first, while the other goes on appending.
      if (i % 100 === 0) await set.stores[i % 2]!.audit.chain();
    });
    await Promise.all(work);
    // Both chain what is left at the same moment: the compare-and-set lets one write each batch.
    const [h1, h2] = await Promise.all(set.stores.map((s) => s.audit.chain()));
    expect(h1).toEqual(h2);
    expect(h1?.seq).toBe(QUESTIONS * 2);
    const entries = await allEntries(set.stores[1]!, 500);
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: QUESTIONS * 2 }, (_, i) => i + 1));
    expectChained(entries);
    expect(entries.at(-1)!.hash).toBe(h1!.hash);
    const per = new Map<string, string[]>();
    for (const e of entries) per.set(e.questionId!, [...(per.get(e.questionId!) ?? []), e.type]);
    expect(per.size).toBe(QUESTIONS);
    for (const types of per.values()) expect(types[0]).toBe('ASKED');
  });
});
