// The evidence bundle of a log that outlived its questions (API.md §24): a question past its
// retention has no receipt left, so receipts.jsonl lists it as pruned, and the bundle still
// verifies (its audit entries remain). The engine runs on the memory store with a clock of our own, so retention passes without waiting.
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyEvidenceBundle } from '../../src/client/evidence.ts';
import { createInteractions } from '../../src/engine/interactions.ts';
import { evidenceBundle } from '../../src/http/evidence-bundle.ts';
import { generateReceiptKey } from '../../src/proof/receipt-keys.ts';
import { createReceiptSigner } from '../../src/proof/receipt-signer.ts';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import { ADMIN, AGENT, OPS, SETTINGS } from '../support/engines.ts';

const dir = mkdtempSync(join(tmpdir(), 'tai-evidence-pruned-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('an evidence bundle with pruned questions', () => {
  it('lists the receipt of a question past its retention as pruned, and verifies', async () => {
    let now = Date.now();
    const clock = () => now;
    const store = createMemoryStore({ clock });
    const signer = await createReceiptSigner({
      keys: [await generateReceiptKey()],
      issuer: () => 'https://hitl.example',
    });
    const engine = createInteractions({
      store,
      settings: { ...SETTINGS, retentionSeconds: 60 },
      clock,
      receipts: signer,
    });
    await engine.start();
    try {
      const old = await engine.ask(AGENT, { text: 'Old?', format: 'CONFIRM' }, { holdSeconds: 0 });
      await engine.answer(OPS, old.question.id, true);
      // Past the first question's retention, then a second question, answered.
      now += 120_000;
      const fresh = await engine.ask(AGENT, { text: 'New?', format: 'CONFIRM' }, { holdSeconds: 0 });
      await engine.answer(OPS, fresh.question.id, false);
      expect(await engine.get(ADMIN, old.question.id)).toBeNull();

      const file = join(dir, 'pruned.zip');
      const bundle = () =>
        evidenceBundle({ engine, principal: ADMIN, since: null, until: null, jwks: signer.jwks, now: clock });
      await pipeline(bundle(), createWriteStream(file));
      const s = await verifyEvidenceBundle(file, { jwks: signer.jwks() });
      expect(s).toMatchObject({ entries: 4, receipts: 1, pruned: 1, head: { seq: 4 } });
    } finally {
      await engine.stop();
    }
  });
});
