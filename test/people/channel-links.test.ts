// The channel links' store core (API.md §22, engine/people/channel-links.ts) on both stores: a
// confirmed link names its person (personOf) and is listed; it is audited (CHANNEL_LINKED, with
// no recipient in it) in the same step; a recipient is one person's, so a later confirmation by
// another replaces the first (whose list loses it); MAX_LINKS per person, the next one refused
// with nothing changed while a renewal of one they have is not; unlink ends only one's own link,
// audited (CHANNEL_UNLINKED), and an unlink of nothing writes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/domain/audit.ts';
import { type ChannelLinks, createChannelLinks, MAX_LINKS } from '../../src/engine/people/channel-links.ts';
import type { QuestionStore } from '../../src/store/types.ts';
import { type EngineSet, type StoreKind, startEngines } from '../support/engines.ts';

async function entriesOf(store: QuestionStore): Promise<AuditEntry[]> {
  return (await store.audit.page({ first: 5000 })).entries;
}

for (const kind of ['memory', 'redis'] as StoreKind[]) {
  describe(`channel links (${kind})`, () => {
    let set: EngineSet;
    let links: ChannelLinks;
    // Real time (Redis expires by it), moved on a millisecond per step so the order is fixed.
    let now = Date.now();
    const clock = () => (now += 1);
    const store = () => set.stores[0]!;
    beforeAll(async () => {
      set = await startEngines(kind);
      links = createChannelLinks(store().people, clock);
    });
    afterAll(() => set.close());

    it('a confirmed link names its person, is listed and audited without the recipient', async () => {
      expect(await links.personOf('ops-slack', 'U0ANN0001')).toBeNull();
      expect(await links.confirm('ann', 'ops-slack', 'U0ANN0001', 'ops-slack:U9', 'channel:ops-slack')).toBe(
        'linked',
      );
      expect(await links.personOf('ops-slack', 'U0ANN0001')).toBe('ann');
      // Another channel's recipient of the same spelling is another recipient.
      expect(await links.personOf('tg', 'U0ANN0001')).toBeNull();
      expect(await links.list('ann')).toEqual([
        {
          channel: 'ops-slack',
          recipient: 'U0ANN0001',
          confirmedBy: 'ops-slack:U9',
          linkedAt: expect.any(Number),
        },
      ]);
      const entry = (await entriesOf(store())).filter((e) => e.type === 'CHANNEL_LINKED').at(-1);
      expect(entry).toMatchObject({
        questionId: null,
        actor: 'ops-slack:U9',
        via: 'channel:ops-slack',
        detail: { person: 'ann', channel: 'ops-slack', confirmedBy: 'ops-slack:U9' },
      });
      expect(JSON.stringify(entry)).not.toContain('U0ANN0001');
    });

    it('a recipient is one person’s: a later confirmation by another replaces the first', async () => {
      await links.confirm('ann', 'ops-slack', 'U0SHARED1', 'ops-slack:U1', 'channel:ops-slack');
      await links.confirm('bo', 'ops-slack', 'U0SHARED1', 'ops-slack:U2', 'channel:ops-slack');
      expect(await links.personOf('ops-slack', 'U0SHARED1')).toBe('bo');
      expect((await links.list('ann')).map((l) => l.recipient)).not.toContain('U0SHARED1');
      expect((await links.list('bo')).map((l) => l.recipient)).toEqual(['U0SHARED1']);
      // ann can no longer end bo's link.
      expect(await links.unlink('ann', 'ops-slack', 'U0SHARED1')).toBe(false);
      expect(await links.personOf('ops-slack', 'U0SHARED1')).toBe('bo');
    });

    it(`at most ${MAX_LINKS} links: the next is refused with nothing changed; renewing one is not`, async () => {
      for (let i = 0; i < MAX_LINKS; i++) {
        expect(await links.confirm('cy', 'tg', `${1000 + i}`, `tg:${i}`, 'channel:tg')).toBe('linked');
      }
      expect(await links.list('cy')).toHaveLength(MAX_LINKS);
      const before = (await entriesOf(store())).length;
      expect(await links.confirm('cy', 'tg', '2000', 'tg:x', 'channel:tg')).toBe('full');
      expect(await links.personOf('tg', '2000')).toBeNull();
      expect(await links.list('cy')).toHaveLength(MAX_LINKS);
      expect((await entriesOf(store())).length).toBe(before);
      // Confirming one they already have renews it.
      expect(await links.confirm('cy', 'tg', '1003', 'tg:again', 'channel:tg')).toBe('linked');
      expect((await links.list('cy'))[0]).toMatchObject({ recipient: '1003', confirmedBy: 'tg:again' });
    });

    it('unlink ends one’s own link, audited; unlinking nothing writes nothing', async () => {
      await links.confirm('di', 'tg', '4242', 'tg:4242', 'channel:tg');
      expect(await links.unlink('di', 'tg', '4242')).toBe(true);
      expect(await links.personOf('tg', '4242')).toBeNull();
      expect(await links.list('di')).toEqual([]);
      const entry = (await entriesOf(store())).at(-1);
      expect(entry).toMatchObject({
        type: 'CHANNEL_UNLINKED',
        actor: 'di',
        via: 'api',
        detail: { channel: 'tg' },
      });
      const before = (await entriesOf(store())).length;
      expect(await links.unlink('di', 'tg', '4242')).toBe(false);
      expect((await entriesOf(store())).length).toBe(before);
    });
  });
}
