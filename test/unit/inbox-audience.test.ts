// Whom a card says it is addressed to (API.md §22): a person, a group, an on-call rotation with
// who is on duty, and "for <name>" when the viewer receives it as that person's delegate.
import { describe, expect, it } from 'vitest';
import { audienceBadges } from '../../src/inbox/lib/audience.ts';
import type { Viewer } from '../../src/inbox/lib/model.ts';

const bob: Viewer = { id: 'bob', roles: ['operator'], restricted: true, actingFor: ['alice'] };
const ops: Viewer = { id: 'ops', roles: ['operator'], restricted: false };
const texts = (q: { audience: string | null; routedTo: string | null }, v: Viewer) =>
  audienceBadges(q, v).map((b) => `${b.text}${b.delegate ? ' [delegate]' : ''}`);

describe('audience badges', () => {
  it('names a person, "you", and a person whose questions the viewer receives', () => {
    expect(texts({ audience: null, routedTo: null }, bob)).toEqual([]);
    expect(texts({ audience: 'bob', routedTo: null }, bob)).toEqual(['for you']);
    expect(texts({ audience: 'carol', routedTo: null }, bob)).toEqual(['for carol']);
    expect(texts({ audience: 'alice', routedTo: null }, bob)).toEqual(['for alice [delegate]']);
    expect(texts({ audience: 'alice', routedTo: null }, ops)).toEqual(['for alice']);
  });

  it('says a group as a group', () => {
    expect(texts({ audience: 'group:payments', routedTo: null }, bob)).toEqual(['to group:payments']);
  });

  it('says who is on call, "you", nobody, and the delegate’s "for"', () => {
    expect(texts({ audience: 'oncall:payments', routedTo: 'alice' }, ops)).toEqual([
      'on call: payments → alice',
    ]);
    expect(texts({ audience: 'oncall:payments', routedTo: 'bob' }, bob)).toEqual(['on call: payments → you']);
    expect(texts({ audience: 'oncall:payments', routedTo: 'alice' }, bob)).toEqual([
      'on call: payments → alice',
      'for alice [delegate]',
    ]);
    expect(texts({ audience: 'oncall:payments', routedTo: null }, bob)).toEqual([
      'on call: payments → nobody on duty',
    ]);
  });

  it('keeps the identity in the tooltip', () => {
    const [routed, delegate] = audienceBadges({ audience: 'oncall:payments', routedTo: 'alice' }, bob);
    expect(routed?.title).toBe('oncall:payments: alice is on duty');
    expect(delegate?.title).toBe("You receive alice's questions while they are away");
  });
});
