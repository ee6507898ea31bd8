// Claims (API.md §22), on both stores and across two instances, on a clock the test turns: a
// claim shows who is looking (to everyone who sees the question), another person's claim
// replaces it, it lapses 15 minutes after it was made (there at 15 min − 1 ms, gone at 15 min),
// the claimer or an operator ends it early, an answer clears it, and it stops nobody answering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/domain/principal.ts';
import { CLAIM_MS } from '../../src/engine/people/claims.ts';
import { AGENT, type EngineSet, OPS, type StoreKind, startEngines } from '../support/engines.ts';

const ANN: Principal = { id: 'ann', roles: ['operator'], restricted: true };
const CY: Principal = { id: 'cy', roles: ['operator'], restricted: true };
const AUDITOR: Principal = { id: 'aud', roles: ['auditor'], restricted: false };

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`claims (${kind}, two instances)`, () => {
    // A future instant: Redis expires what is kept by real time.
    let now = Date.now() + 3600_000;
    let set: EngineSet;
    beforeAll(async () => {
      set = await startEngines(kind, 2, {}, { clock: () => now });
    });
    afterAll(() => set.close());
    const one = () => set.engines[0]!;
    const two = () => set.engines[1]!;
    const ask = async (audience: string | null = null) =>
      (await one().ask(AGENT, { text: 'ok?', format: 'TEXT', audience }, { holdSeconds: 0 })).question;

    it('shows the claimer on every instance and lapses after 15 minutes', async () => {
      const q = await ask();
      const { claim } = await one().presence.claim(OPS, q.id);
      expect(claim).toEqual({ by: 'ops', at: now });
      expect(await two().presence.claimOf(q)).toEqual({ by: 'ops', at: now });
      now += CLAIM_MS - 1;
      expect((await two().presence.claimOf(q))?.by).toBe('ops');
      now += 1;
      expect(await two().presence.claimOf(q)).toBeNull();
    });

    it('another’s claim replaces it; it stops nobody answering, and the answer clears it', async () => {
      const q = await ask();
      await one().presence.claim(OPS, q.id);
      await two().presence.claim({ ...OPS, id: 'ops2' }, q.id);
      expect((await one().presence.claimOf(q))?.by).toBe('ops2');
      const answered = await one().answer(OPS, q.id, 'mine');
      expect(answered.status).toBe('ANSWERED');
      expect(await one().presence.claimOf(answered)).toBeNull();
      await expect(two().presence.claim(OPS, q.id)).rejects.toMatchObject({ code: 'ALREADY_ANSWERED' });
    });

    it('the claimer or an operator ends it; others may not; unseen questions are NOT_FOUND', async () => {
      const q = await ask('ann');
      await expect(two().presence.claim(CY, q.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(two().presence.claim(AUDITOR, q.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await one().presence.claim(ANN, q.id);
      await one().presence.claim({ ...OPS, id: 'ops3', restricted: false }, q.id);
      // ann (restricted) may not end ops3's claim.
      await expect(two().presence.unclaim(ANN, q.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
      expect((await one().presence.claimOf(q))?.by).toBe('ops3');
      await two().presence.claim(ANN, q.id);
      await two().presence.unclaim(ANN, q.id);
      expect(await one().presence.claimOf(q)).toBeNull();
      await one().presence.claim(ANN, q.id);
      await two().presence.unclaim(OPS, q.id);
      expect(await one().presence.claimOf(q)).toBeNull();
    });
  });
}
