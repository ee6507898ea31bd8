// The inbox's pending list as a pure reducer: SNAPSHOTs replace it, changes apply once, answers
// from the page flip cards at once, settled cards stay until dismissed, and cards fold by group,
// newest activity first.
import { describe, expect, it } from 'vitest';
import { arrange as arrangeAll } from '../../src/inbox/lib/arrange.ts';
import {
  type InboxAction,
  type InboxState,
  inboxReducer,
  initialInboxState,
  preview,
  SETTLED_MAX,
} from '../../src/inbox/lib/inbox-state.ts';
import type { FeedEvent, Question } from '../../src/inbox/lib/model.ts';
import { questionBuilder } from '../support/inbox-question.ts';

const q = questionBuilder({
  id: (n) => `q${n}`,
  timeoutAt: (n) => new Date(Date.UTC(2025, 0, 1, 13, 0, n)).toISOString(),
});

function feed(type: FeedEvent['type'], ...questions: Question[]): InboxAction {
  return { type: 'feed', event: { type, questions, more: false } };
}

/** An event that says more of the backlog follows. */
function more(type: FeedEvent['type'], ...questions: Question[]): InboxAction {
  return { type: 'feed', event: { type, questions, more: true } };
}

function run(...actions: InboxAction[]): InboxState {
  return actions.reduce(inboxReducer, initialInboxState());
}

const arrange = (state: InboxState) => arrangeAll(state).entries;

const ids = (state: InboxState) => [...state.pending.keys()].sort();

describe('the pending list', () => {
  it('is exactly what each SNAPSHOT says, whatever came before', () => {
    const [a, b, c] = [q(), q(), q()];
    const s1 = run(feed('SNAPSHOT', a, b));
    expect(s1.synced).toBe(true);
    expect(ids(s1)).toEqual([a.id, b.id]);
    const s2 = inboxReducer(inboxReducer(s1, feed('ASKED', c)), feed('SNAPSHOT', b, c));
    expect(ids(s2)).toEqual([b.id, c.id]);
    // A question that left while the feed was down just goes: no tombstone is invented for it.
    expect(s2.settled.size).toBe(0);
  });

  it('adds ASKED once (a repeat overwrites) and announces it', () => {
    const a = q({ text: 'Ship\n  it?' });
    const s = run(feed('SNAPSHOT'), feed('ASKED', a), feed('ASKED', { ...a, text: 'Ship it now?' }));
    expect(ids(s)).toEqual([a.id]);
    expect(s.pending.get(a.id)?.text).toBe('Ship it now?');
    expect(s.announcement.text).toBe('New question: Ship it now?');
    expect(s.announcement.seq).toBe(2);
  });

  it('replaces a pending card on UPDATED without announcing it, and ignores one it never showed', () => {
    const a = q();
    const fired = {
      ...a,
      escalations: [
        {
          afterSeconds: 10,
          action: 'REMIND' as const,
          channel: null,
          recipient: null,
          firedAt: '2025-01-01T12:00:10.000Z',
          outcome: 'DELIVERED',
        },
      ],
    };
    const before = run(feed('SNAPSHOT', a));
    const after = inboxReducer(before, feed('UPDATED', fired));
    expect(after.pending.get(a.id)?.escalations).toEqual(fired.escalations);
    expect(after.announcement).toEqual(before.announcement);
    expect(after.settled.size).toBe(0);
    const stranger = inboxReducer(after, feed('UPDATED', q()));
    expect(ids(stranger)).toEqual([a.id]);
  });

  it('takes a backlog in parts without announcing them, loading until the first event without more', () => {
    const [a, b, c, d] = [q(), q(), q(), q({ text: 'Really new' })];
    const first = run(more('SNAPSHOT', a));
    expect(first).toMatchObject({ synced: true, loadingMore: true });
    const parts = [more('ASKED', b), feed('ASKED', c)].reduce(inboxReducer, first);
    expect(ids(parts)).toEqual([a.id, b.id, c.id].sort());
    expect(parts.loadingMore).toBe(false);
    expect(parts.announcement.seq).toBe(0);
    // The next ASKED is a change again, and is announced.
    const live = inboxReducer(parts, feed('ASKED', d!));
    expect(live.announcement.text).toBe('New question: Really new');
    // A reconnect's SNAPSHOT without more ends a backlog that was cut off.
    expect(inboxReducer(run(more('SNAPSHOT', a)), feed('SNAPSHOT', a)).loadingMore).toBe(false);
  });

  it('moves a resolved question to the settled cards with its outcome', () => {
    const [a, b, c] = [q(), q(), q()];
    const s = run(
      feed('SNAPSHOT', a, b, c),
      feed('ANSWERED', { ...a, status: 'ANSWERED', answer: true, answeredBy: 'ops' }),
      feed('TIMED_OUT', { ...b, status: 'TIMED_OUT' }),
      feed('CANCELLED', { ...c, status: 'CANCELLED', cancelReason: 'no longer needed' }),
    );
    expect(s.pending.size).toBe(0);
    expect([...s.settled.values()].map((x) => [x.question.id, x.outcome, x.byMe])).toEqual([
      [a.id, 'ANSWERED', false],
      [b.id, 'TIMED_OUT', false],
      [c.id, 'CANCELLED', false],
    ]);
    expect(s.resolutions).toBe(3);
    expect(s.announcement.text).toBe(`Question cancelled: ${c.text}`);
  });

  it('ignores resolutions of questions it never showed', () => {
    const s = run(feed('SNAPSHOT'), feed('ANSWERED', q({ status: 'ANSWERED' })));
    expect(s.pending.size).toBe(0);
    expect(s.settled.size).toBe(0);
  });

  it('flips a card answered from the page at once, and keeps "by me" when the feed catches up', () => {
    const a = q();
    const mine = { ...a, status: 'ANSWERED' as const, answer: false, answeredBy: 'alice' };
    const s1 = run(feed('SNAPSHOT', a), { type: 'answered-here', question: mine });
    expect(s1.pending.size).toBe(0);
    expect(s1.settled.get(a.id)).toEqual({ question: mine, outcome: 'ANSWERED', byMe: true });
    const s2 = inboxReducer(s1, feed('ANSWERED', { ...mine, answer: false }));
    expect(s2.settled.get(a.id)?.byMe).toBe(true);
  });

  it('records why a 409 refused the answer, and learns the exact outcome from the feed', () => {
    const a = q();
    const s1 = run(feed('SNAPSHOT', a), {
      type: 'closed-elsewhere',
      question: a,
      outcome: 'CLOSED',
      note: 'closed',
    });
    expect(s1.settled.get(a.id)).toMatchObject({ outcome: 'CLOSED', note: 'closed', byMe: false });
    const s2 = inboxReducer(s1, feed('TIMED_OUT', { ...a, status: 'TIMED_OUT' }));
    expect(s2.settled.get(a.id)).toMatchObject({ outcome: 'TIMED_OUT', note: 'closed' });
  });

  it('dismisses settled cards one by one or all together, and keeps at most SETTLED_MAX', () => {
    const many = Array.from({ length: SETTLED_MAX + 5 }, () => q());
    let s = run(feed('SNAPSHOT', ...many));
    for (const m of many) s = inboxReducer(s, feed('CANCELLED', { ...m, status: 'CANCELLED' }));
    expect(s.settled.size).toBe(SETTLED_MAX);
    expect(s.settled.has(many[0]!.id)).toBe(false);
    const last = many[many.length - 1]!;
    s = inboxReducer(s, { type: 'dismiss', id: last.id });
    expect(s.settled.has(last.id)).toBe(false);
    expect(inboxReducer(s, { type: 'dismiss-settled' }).settled.size).toBe(0);
    expect(inboxReducer(s, { type: 'dismiss', id: 'nope' })).toBe(s);
  });

  it('changes the pending map in place (the backlog is never copied) and bumps its version', () => {
    const [a, b] = [q(), q()];
    const s1 = run(feed('SNAPSHOT', a));
    const map = s1.pending;
    const v1 = s1.version;
    const s2 = inboxReducer(s1, feed('ASKED', b));
    expect(s2.pending).toBe(map);
    expect(s2.version).toBe(v1 + 1);
    const s3 = inboxReducer(s2, { type: 'answered-here', question: { ...a, status: 'ANSWERED' } });
    expect(s3.pending).toBe(map);
    expect(s3.version).toBe(v1 + 2);
    // A resolution of a question that was not pending changes nothing in the map.
    const s4 = inboxReducer(s3, feed('ANSWERED', { ...a, status: 'ANSWERED' }));
    expect(s4.version).toBe(s3.version);
    expect(ids(s4)).toEqual([b.id]);
  });

  it('keeps a failed answer on its pending card until a new attempt or the question leaves', () => {
    const [a, b] = [q(), q()];
    const s1 = run(
      feed('SNAPSHOT', a, b),
      { type: 'failed', id: a.id, message: 'The server is busy' },
      { type: 'failed', id: b.id, message: 'No' },
      { type: 'failed', id: 'never-pending', message: 'x' },
    );
    expect([...s1.failures]).toEqual([
      [a.id, 'The server is busy'],
      [b.id, 'No'],
    ]);
    const s2 = inboxReducer(s1, { type: 'retrying', id: a.id });
    expect(s2.failures.has(a.id)).toBe(false);
    const s3 = inboxReducer(s2, feed('CANCELLED', { ...b, status: 'CANCELLED' }));
    expect(s3.failures.size).toBe(0);
    expect(inboxReducer(s3, { type: 'retrying', id: a.id })).toBe(s3);
  });
});

describe('arrange', () => {
  it('folds by groupId, newest activity first, newest first within a group', () => {
    const old = q();
    const g1 = q({ groupId: 'deploy' });
    const lone = q({ groupId: 'solo' });
    const g2 = q({ groupId: 'deploy' });
    const newest = q();
    const entries = arrange(run(feed('SNAPSHOT', old, g1, lone, g2, newest)));
    expect(entries.map((e) => (e.kind === 'group' ? `group:${e.groupId}` : e.card.question.id))).toEqual([
      newest.id,
      'group:deploy',
      lone.id,
      old.id,
    ]);
    const group = entries[1];
    expect(group?.kind === 'group' && group.cards.map((c) => c.question.id)).toEqual([g2.id, g1.id]);
    expect(group?.kind === 'group' && group.pendingCount).toBe(2);
  });

  it('keeps a settled card in its place and counts only pending ones in its group', () => {
    const g1 = q({ groupId: 'deploy' });
    const g2 = q({ groupId: 'deploy' });
    const later = q();
    const s = run(feed('SNAPSHOT', g1, g2, later), feed('ANSWERED', { ...g2, status: 'ANSWERED' }));
    const entries = arrange(s);
    expect(entries.map((e) => e.key)).toEqual([`q:${later.id}`, 'g:deploy']);
    const group = entries[1];
    expect(
      group?.kind === 'group' && group.cards.map((c) => [c.question.id, c.settled?.outcome ?? null]),
    ).toEqual([
      [g2.id, 'ANSWERED'],
      [g1.id, null],
    ]);
    expect(group?.kind === 'group' && group.pendingCount).toBe(1);
  });

  it('sorts an unparseable time as the oldest', () => {
    const bad = q({ createdAt: 'not a time' });
    const good = q();
    expect(arrange(run(feed('SNAPSHOT', bad, good))).map((e) => e.key)).toEqual([
      `q:${good.id}`,
      `q:${bad.id}`,
    ]);
  });
});

describe('preview', () => {
  it('is one line, at most 80 characters', () => {
    expect(preview('  a\n\tb  ')).toBe('a b');
    expect(preview('x'.repeat(100))).toBe(`${'x'.repeat(80)}…`);
  });
});
