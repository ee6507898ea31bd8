// The use-time re-check of a grant (API.md §20, §22), as a pure rule: whether the person who gave
// it could answer a later question, given the groups and delegations of that instant.
import { describe, expect, it } from 'vitest';
import { type AnswerableNow, type Grant, grantAnswerable } from '../../src/domain/policy/grant.ts';

const grant = (over: Partial<Grant> = {}): Grant => ({
  id: 'grant-0000000000000001',
  scope: 'SAME_ARGUMENTS',
  asker: 'agent',
  action: 'payments.refund',
  actionDigest: 'sha256:x',
  questionId: 'q1',
  createdBy: 'ops',
  via: 'api',
  reach: { restricted: false, channel: null, recipient: null },
  createdAt: 0,
  expiresAt: 1,
  maxUses: null,
  ...over,
});

const members: Record<string, string[]> = { payments: ['ops', 'bob'] };
const now = (actsFor: string[] = []): AnswerableNow => ({
  isAddressee: (audience, who) => members[audience.replace(/^(group|oncall):/, '')]?.includes(who) ?? false,
  isVoter: (voters, who) =>
    voters.some((v) => (v.startsWith('group:') ? (members[v.slice(6)]?.includes(who) ?? false) : v === who)),
  actsFor,
});
const q = (over: { audience?: string | null; voters?: string[]; requestedBy?: string } = {}) => ({
  audience: over.audience ?? null,
  quorum: over.voters ? { approvals: 1, rejections: 1, voters: over.voters } : null,
  action: { requestedBy: over.requestedBy },
});

describe('grantAnswerable', () => {
  it('a group’s question: members only, an unrestricted giver included; rotations alike', () => {
    expect(grantAnswerable(grant(), q({ audience: 'group:payments' }), now())).toBe(true);
    expect(grantAnswerable(grant(), q({ audience: 'oncall:payments' }), now())).toBe(true);
    expect(grantAnswerable(grant({ createdBy: 'carol' }), q({ audience: 'group:payments' }), now())).toBe(
      false,
    );
    expect(grantAnswerable(grant(), q({ audience: 'group:sre' }), now())).toBe(false);
  });

  it('a channel user’s grant is bound to its conversation, not to groups', () => {
    const byChannel = grant({
      createdBy: 'slack:U1',
      via: 'channel:slack',
      reach: { restricted: false, channel: 'slack', recipient: 'C1' },
    });
    expect(grantAnswerable(byChannel, q({ audience: 'group:payments' }), now())).toBe(true);
    expect(grantAnswerable(byChannel, q({ voters: ['slack:U1'] }), now())).toBe(true);
    expect(grantAnswerable(byChannel, q({ voters: ['group:payments'] }), now())).toBe(false);
  });

  it('voters: directly, through a group, or as the delegate of a voter', () => {
    expect(grantAnswerable(grant(), q({ voters: ['ops'] }), now())).toBe(true);
    expect(grantAnswerable(grant(), q({ voters: ['group:payments'] }), now())).toBe(true);
    expect(grantAnswerable(grant(), q({ voters: ['alice'] }), now())).toBe(false);
    expect(grantAnswerable(grant(), q({ voters: ['alice'] }), now(['alice']))).toBe(true);
  });

  it('given as a delegate: only while that delegation holds', () => {
    const g = grant({
      createdBy: 'bob',
      onBehalfOf: 'alice',
      reach: { restricted: true, channel: null, recipient: null },
    });
    expect(grantAnswerable(g, q({ audience: 'alice' }), now(['alice']))).toBe(true);
    expect(grantAnswerable(g, q({ audience: 'alice' }), now())).toBe(false);
    expect(grantAnswerable(g, q({ audience: 'bob' }), now())).toBe(false);
  });

  it('a restricted giver: their own questions, their groups’, and those of whom they act for now', () => {
    const g = grant({ createdBy: 'bob', reach: { restricted: true, channel: null, recipient: null } });
    expect(grantAnswerable(g, q({ audience: 'bob' }), now())).toBe(true);
    expect(grantAnswerable(g, q({ audience: 'group:payments' }), now())).toBe(true);
    expect(grantAnswerable(g, q({ audience: 'alice' }), now())).toBe(false);
    expect(grantAnswerable(g, q({ audience: 'alice' }), now(['alice']))).toBe(true);
    expect(grantAnswerable(g, q({ audience: null }), now())).toBe(false);
  });

  it('never a request of someone the giver acts for now', () => {
    expect(grantAnswerable(grant(), q({ requestedBy: 'alice' }), now())).toBe(true);
    expect(grantAnswerable(grant(), q({ requestedBy: 'alice' }), now(['alice']))).toBe(false);
  });
});
