// Separation of duties (API.md §22) and step-up (§23) in the inbox and in its notification
// actions, in headless Chromium against a real server on Redis:
// - an asker with operator rights (`bot-ops`, roles agent + operator) signed in with its key
//   presses Approve on its own APPROVAL, alone and as a vote: refused with the reason, pending;
// - the person an action is requested for (`ops`) presses Approve and Reject: refused; so does
//   their delegate (`ops` acting for `bob`); someone else then decides;
// - a notification's Approve (the service worker's handler, with the signed-in session) on a
//   HIGH approval is refused with STEP_UP_REQUIRED's link to the inbox, and on an action
//   requested for the signed-in person with the separation-of-duties reason; nothing recorded.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/domain/principal.ts';
import { createPeople } from '../../src/engine/people/people.ts';
import { PRINCIPALS } from '../support/server.ts';
import {
  answerAs,
  card,
  gql,
  KEYS,
  openPage,
  openSettings,
  signIn,
  unique,
  useInboxBrowser,
  type Watched,
} from './harness.ts';

const BOT_OPS_KEY = 'test-botops-key-000000008';
const env = useInboxBrowser({
  env: {
    INTERACTIONS_API_KEYS: JSON.stringify([
      ...PRINCIPALS,
      { id: 'bot-ops', key: BOT_OPS_KEY, roles: ['agent', 'operator'] },
    ]),
  },
});

const ASK = `mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) { question { id } } }`;

async function askAs(key: string, input: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${env.srv.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query: ASK, variables: { input } }),
  });
  const r = (await res.json()) as { data?: { askUser: { question: { id: string } } }; errors?: unknown };
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data!.askUser.question.id;
}

const refund = (extra: Record<string, unknown> = {}) => ({
  format: 'APPROVAL',
  action: { name: 'payments.refund', arguments: { charge: 'ch_7', amount: 70 }, ...extra },
});

const stored = async (id: string) => (await env.srv.server.store.get(id))!;

/** Presses a card's button and waits for the refusal the card shows. */
async function refused(page: Page, text: string, button: 'Approve' | 'Reject', reason: RegExp) {
  const c = card(page, text);
  await c.waitFor();
  await c.getByRole('button', { name: button, exact: true }).click();
  await c.getByRole('alert').filter({ hasText: reason }).waitFor();
  expect(await c.getAttribute('data-status')).toBe('PENDING');
}

describe('separation of duties in the inbox', () => {
  it('an asker with operator rights cannot approve its own request, alone or as a vote', async () => {
    const w = await openPage(env.browser);
    try {
      await w.page.goto(`${env.srv.url}/#key=${BOT_OPS_KEY}`);
      await w.page.locator('[data-testid="feed-status"][data-state="live"]').waitFor();
      const single = unique('Refund my own request?');
      const a = await askAs(BOT_OPS_KEY, { text: single, ...refund() });
      await refused(w.page, single, 'Approve', /asker of an approval may not decide it/);
      const voted = unique('Refund my own request (two approvers)?');
      const b = await askAs(BOT_OPS_KEY, { text: voted, ...refund(), quorum: { approvals: 2 } });
      await refused(w.page, voted, 'Approve', /asker of an approval may not decide it/);
      expect((await stored(a)).status).toBe('PENDING');
      expect((await stored(b)).votes ?? []).toEqual([]);
      await answerAs(env.srv.url, 'ops', a, { decision: 'APPROVED' });
      expect(await stored(a)).toMatchObject({ status: 'ANSWERED', answeredBy: 'ops' });
    } finally {
      await w.close();
    }
  });

  it('the requester and their delegate cannot approve or reject it; someone else does', async () => {
    const w: Watched = await openPage(env.browser);
    try {
      await signIn(w, env.srv.url, 'ops');
      const text = unique('Refund requested by ops?');
      const id = await askAs(KEYS.agent, { text, ...refund({ requestedBy: 'ops' }) });
      await refused(w.page, text, 'Approve', /requested for may not approve it/);
      await refused(w.page, text, 'Reject', /requested for may not approve it/);

      // bob hands his questions to ops: ops, acting for bob, cannot approve bob's request.
      const until = new Date(Date.now() + 3600_000).toISOString();
      const set = await gql(
        env.srv.url,
        'bob',
        'mutation($to: String!, $until: DateTime!) { setDelegation(to: $to, until: $until) { to } }',
        { to: 'ops', until },
      );
      expect(set.errors).toBeUndefined();
      try {
        const forBob = unique('Refund requested by bob?');
        const b = await askAs(KEYS.agent, { text: forBob, ...refund({ requestedBy: 'bob' }) });
        await refused(w.page, forBob, 'Approve', /anyone acting for them/);
        expect((await stored(b)).status).toBe('PENDING');
      } finally {
        await gql(env.srv.url, 'bob', 'mutation { endDelegation }');
      }
      expect((await stored(id)).status).toBe('PENDING');
      await answerAs(env.srv.url, 'admin', id, { decision: 'APPROVED' });
      await card(w.page, text).locator('.outcome').waitFor();
      expect(await stored(id)).toMatchObject({ status: 'ANSWERED', answeredBy: 'admin' });
    } finally {
      await w.close();
    }
  });
});

describe('notification actions: step-up and separation of duties', () => {
  it("a notification's Approve is refused for a HIGH approval (the link) and for one's own request", async () => {
    const w = await openPage(env.browser);
    try {
      const person: Principal & { name: string } = {
        id: 'oidc:ada',
        name: 'Ada Lovelace',
        roles: ['operator'],
        restricted: false,
      };
      const session = await createPeople(env.srv.server.store.people).openSession(
        person,
        Date.now() + 3600_000,
      );
      await w.context.addCookies([
        { name: 'tai_session', value: session, url: env.srv.url, httpOnly: true, sameSite: 'Lax' },
      ]);
      await w.context.grantPermissions(['notifications'], { origin: env.srv.url });
      const registered = w.context.waitForEvent('serviceworker');
      await w.page.goto(`${env.srv.url}/`);
      await openSettings(w.page);
      await w.page.getByText('Signed in as Ada Lovelace').waitFor();
      const worker = w.context.serviceWorkers()[0] ?? (await registered);
      await w.page.evaluate('navigator.serviceWorker.ready');

      // The payload the server sends for an APPROVAL (engine/people/push.ts): Approve / Reject.
      const tap = (id: string, action: 'approve' | 'reject') =>
        worker.evaluate(
          ([qid, act]) => {
            const notification = {
              data: {
                id: qid,
                url: '/',
                answers: { approve: { decision: 'APPROVED' }, reject: { decision: 'REJECTED' } },
              },
              close() {},
            };
            // biome-ignore lint/suspicious/noExplicitAny: the worker's own global, set by sw.js.
            return (self as any).onNotificationClick(notification, act);
          },
          [id, action] as const,
        ) as Promise<{ ok: boolean; message?: string }>;

      const high = await askAs(KEYS.agent, {
        text: unique('Wire 9000 EUR?'),
        ...refund({ assurance: 'HIGH' }),
      });
      const approved = await tap(high, 'approve');
      expect(approved.ok).toBe(false);
      expect(approved.message).toContain(`${env.srv.url}/?question=${high}`);
      expect(approved.message).toMatch(/passkey/);
      expect((await stored(high)).status).toBe('PENDING');

      const own = await askAs(KEYS.agent, {
        text: unique('Refund requested by Ada?'),
        ...refund({ requestedBy: 'oidc:ada' }),
      });
      const mine = await tap(own, 'approve');
      expect(mine.ok).toBe(false);
      expect(mine.message).toMatch(/separation of duties/);
      expect((await stored(own)).status).toBe('PENDING');

      // A rejection of the HIGH approval needs no step-up, from the notification too.
      expect(await tap(high, 'reject')).toEqual({ ok: true });
      expect(await stored(high)).toMatchObject({ status: 'ANSWERED', answeredBy: 'oidc:ada' });
    } finally {
      await w.close();
    }
  });
});
