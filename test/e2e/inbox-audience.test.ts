// The inbox's faces of groups, on-call and delegation (issue 41, API.md §22) in real headless
// Chromium against a real server on Redis: a group's question says "to group:payments", an
// on-call question says who is on duty ("on call: payments → alice", "→ you" for alice
// herself), and bob, who receives alice's questions while she is away, sees "for alice" beside
// it, and on a question addressed to alice, which he answers for her. Nothing sleeps: every wait ends on a selector.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ask, card, gql, openPage, signIn, unique, useInboxBrowser } from './harness.ts';

const groupsFile = path.join(mkdtempSync(path.join(tmpdir(), 'tai-inbox-groups-')), 'groups.yaml');
// One member in the rotation's order: alice is on duty at every instant of this test.
writeFileSync(
  groupsFile,
  '- id: payments\n  members: [alice, bob]\n  rotation: { every: 1d, startsAt: "2026-01-01T09:00:00Z", order: [alice] }\n',
);

const env = useInboxBrowser({ env: { INTERACTIONS_GROUPS_FILE: groupsFile } });

describe('who a card is for', () => {
  it('shows group and on-call audiences, who is on duty, and "for alice" to her delegate', async () => {
    const inAWeek = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const delegated = await gql(
      env.srv.url,
      'alice',
      'mutation($to: String!, $until: DateTime!) { setDelegation(to: $to, until: $until) { to } }',
      { to: 'bob', until: inAWeek },
    );
    expect(delegated.data).toEqual({ setDelegation: { to: 'bob' } });
    const groupText = unique('Refund the duplicate charge?');
    const oncallText = unique('Page the payments provider?');
    await ask(env.srv.url, { text: groupText, format: 'CONFIRM', audience: 'group:payments' });
    const oncall = await ask(env.srv.url, {
      text: oncallText,
      format: 'CONFIRM',
      audience: 'oncall:payments',
    });
    const routed = await gql(env.srv.url, 'ops', 'query($id: ID!) { question(id: $id) { routedTo } }', {
      id: oncall.question.id,
    });
    expect(routed.data).toEqual({ question: { routedTo: 'alice' } });

    const alice = await openPage(env.browser, { width: 390, height: 844 });
    const bob = await openPage(env.browser);
    try {
      await signIn(alice, env.srv.url, 'alice');
      const hers = card(alice.page, oncallText);
      await hers.getByText('on call: payments → you').waitFor();
      expect(await hers.locator('.badge-delegate').count()).toBe(0);
      await card(alice.page, groupText).getByText('to group:payments').waitFor();

      await signIn(bob, env.srv.url, 'bob');
      const group = card(bob.page, groupText);
      await group.getByText('to group:payments').waitFor();
      expect(await group.locator('.badge-delegate').count()).toBe(0);
      const forAlice = card(bob.page, oncallText);
      await forAlice.getByText('on call: payments → alice').waitFor();
      const badge = forAlice.locator('.badge-delegate');
      expect(await badge.textContent()).toBe('for alice');
      expect(await badge.getAttribute('title')).toBe("You receive alice's questions while they are away");

      // A question addressed to alice herself: bob sees it as her delegate and answers it for her.
      const hersText = unique('Approve the card limit raise?');
      const addressed = await ask(env.srv.url, { text: hersText, format: 'CONFIRM', audience: 'alice' });
      const direct = card(bob.page, hersText);
      await direct.locator('.badge-delegate').getByText('for alice').waitFor();
      await direct.getByRole('button', { name: 'Yes' }).click();
      await bob.page
        .locator(`article[data-question-id="${addressed.question.id}"][data-status="ANSWERED"]`)
        .waitFor();
      const answered = await gql(
        env.srv.url,
        'ops',
        'query($id: ID!) { question(id: $id) { status answeredBy onBehalfOf } }',
        { id: addressed.question.id },
      );
      expect(answered.data).toEqual({
        question: { status: 'ANSWERED', answeredBy: 'bob', onBehalfOf: 'alice' },
      });
      expect(alice.problems).toEqual([]);
      expect(bob.problems).toEqual([]);
    } finally {
      await alice.close();
      await bob.close();
    }
  }, 90_000);
});
