// Filtering and sorting the pending list on the client: every filter alone and together, the
// three orders (groups placed by their first card), cards that stay the same objects while their
// questions do (so memoized cards skip rendering), and the choices each filter offers.
import { describe, expect, it } from 'vitest';
import {
  arrange,
  type Filter,
  facets,
  isFiltering,
  matches,
  NO_FILTER,
} from '../../src/inbox/lib/arrange.ts';
import { inboxReducer, initialInboxState } from '../../src/inbox/lib/inbox-state.ts';
import type { Question } from '../../src/inbox/lib/model.ts';
import { questionBuilder } from '../support/inbox-question.ts';

// Ids sort in asking order; deadlines come sooner the later a question was asked.
const q = questionBuilder({
  id: (n) => `q${String(n).padStart(3, '0')}`,
  timeoutAt: (n) => new Date(Date.UTC(2025, 0, 2, 12, 0, 0) - n * 1000).toISOString(),
});

function stateOf(...questions: Question[]) {
  return inboxReducer(initialInboxState(), {
    type: 'feed',
    event: { type: 'SNAPSHOT', questions, more: false },
  });
}

const f = (over: Partial<Filter>): Filter => ({ ...NO_FILTER, ...over });
const keys = (entries: ReturnType<typeof arrange>['entries']) => entries.map((e) => e.key);

describe('the filter', () => {
  const deploy = q({ text: 'Deploy the API to PRODUCTION?', groupId: 'release', channel: 'slack' });
  const text = q({ format: 'TEXT', text: 'Why did the build fail?', audience: 'alice', askedBy: 'ci-bot' });
  const other = q({ text: 'Rotate the keys?', groupId: 'release', audience: 'bob' });
  const state = stateOf(deploy, text, other);

  it('matches the text case-insensitively, ignoring surrounding spaces', () => {
    expect(keys(arrange(state, f({ text: '  production ' })).entries)).toEqual(['g:release']);
    expect(matches(text, f({ text: 'BUILD' }))).toBe(true);
    expect(matches(text, f({ text: 'deploy' }))).toBe(false);
  });

  it('matches format, group, channel, audience and asker exactly, and all of them together', () => {
    expect(matches(text, f({ format: 'TEXT' }))).toBe(true);
    expect(matches(deploy, f({ format: 'TEXT' }))).toBe(false);
    expect(arrange(state, f({ group: 'release' })).shownPending).toBe(2);
    expect(matches(deploy, f({ channel: 'slack' }))).toBe(true);
    expect(matches(other, f({ channel: 'slack' }))).toBe(false);
    expect(matches(text, f({ audience: 'alice' }))).toBe(true);
    expect(matches(other, f({ audience: 'alice' }))).toBe(false);
    expect(matches(text, f({ asker: 'ci-bot' }))).toBe(true);
    expect(matches(deploy, f({ asker: 'ci-bot' }))).toBe(false);
    expect(matches(deploy, f({ group: 'release', channel: 'slack', text: 'api', format: 'CONFIRM' }))).toBe(
      true,
    );
    expect(matches(deploy, f({ group: 'release', channel: 'slack', text: 'keys' }))).toBe(false);
  });

  it('is off when every field is empty or blank', () => {
    expect(isFiltering(NO_FILTER)).toBe(false);
    expect(isFiltering(f({ text: '   ' }))).toBe(false);
    expect(isFiltering(f({ asker: 'agent' }))).toBe(true);
    expect(arrange(state, f({ text: '   ' })).shownPending).toBe(3);
  });

  it('applies to settled cards too, and counts only pending ones as shown', () => {
    // Its own state: the reducer changes the pending map in place.
    const s = inboxReducer(stateOf(deploy, text, other), {
      type: 'answered-here',
      question: { ...deploy, status: 'ANSWERED' },
    });
    const r = arrange(s, f({ group: 'release' }));
    expect(r.shownPending).toBe(1);
    expect(r.entries).toHaveLength(1);
    const group = r.entries[0];
    expect(group?.kind === 'group' && group.cards.map((c) => c.settled?.outcome ?? 'PENDING')).toEqual([
      'PENDING',
      'ANSWERED',
    ]);
  });

  it('offers the values the pending list holds, sorted', () => {
    expect(facets(state.pending)).toEqual({
      groups: ['release'],
      channels: ['slack'],
      audiences: ['alice', 'bob'],
      askers: ['agent', 'ci-bot'],
    });
  });

  it('hands back the previous facets, or each unchanged list of them, so the filter bar is not rendered again', () => {
    const first = facets(state.pending);
    expect(facets(state.pending, first)).toBe(first);
    const fewer = new Map(state.pending);
    for (const [id, question] of fewer) if (question.audience === 'bob') fewer.delete(id);
    const next = facets(fewer, first);
    expect(next).not.toBe(first);
    expect(next.audiences).toEqual(['alice']);
    expect(next.askers === first.askers || next.askers.join() !== first.askers.join()).toBe(true);
    expect(next.groups === first.groups || next.groups.join() !== first.groups.join()).toBe(true);
  });
});

describe('the order', () => {
  // Created in this order; each later question times out sooner.
  const a = q();
  const g1 = q({ groupId: 'g' });
  const b = q();
  const g2 = q({ groupId: 'g' });
  const state = stateOf(b, g2, a, g1);

  it('newest first places a group by its newest question', () => {
    expect(keys(arrange(state, NO_FILTER, 'newest').entries)).toEqual(['g:g', `q:${b.id}`, `q:${a.id}`]);
  });

  it('oldest first places a group by its oldest question, and orders its cards the same way', () => {
    const { entries } = arrange(state, NO_FILTER, 'oldest');
    expect(keys(entries)).toEqual([`q:${a.id}`, 'g:g', `q:${b.id}`]);
    const group = entries[1];
    expect(group?.kind === 'group' && group.cards.map((c) => c.question.id)).toEqual([g1.id, g2.id]);
  });

  it('soonest timeout first; an unknown deadline goes last', () => {
    const none = q({ timeoutAt: 'never' });
    const s = stateOf(b, g2, a, g1, none);
    expect(keys(arrange(s, NO_FILTER, 'timeout').entries)).toEqual([
      'g:g',
      `q:${b.id}`,
      `q:${a.id}`,
      `q:${none.id}`,
    ]);
  });
});

describe('cards for memoized rendering', () => {
  it('stay the same objects while their questions do, and change when a question does', () => {
    const [a, b] = [q(), q()];
    const s1 = stateOf(a, b);
    const first = arrange(s1).entries;
    const s2 = inboxReducer(s1, { type: 'feed', event: { type: 'ASKED', questions: [q()], more: false } });
    const second = arrange(s2).entries;
    const cardOf = (entries: typeof first, id: string) =>
      entries.find((e) => e.kind === 'single' && e.card.question.id === id);
    expect(cardOf(second, a.id)).toEqual(cardOf(first, a.id));
    const before = cardOf(first, a.id);
    const after = cardOf(second, a.id);
    expect(before?.kind === 'single' && after?.kind === 'single' && before.card === after.card).toBe(true);
    const s3 = inboxReducer(s2, { type: 'answered-here', question: { ...a, status: 'ANSWERED' } });
    const third = cardOf(arrange(s3).entries, a.id);
    expect(third?.kind === 'single' && before?.kind === 'single' && third.card !== before.card).toBe(true);
  });
});
