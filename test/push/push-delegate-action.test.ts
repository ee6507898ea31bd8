// A delegate answers "for" the person from a notification (API.md §19, §22), on both stores: alice
// is away and has handed her questions to bob; bob's phone gets her CONFIRM question, and a tap on
// its Approve sends what the inbox's service worker sends (its own answer mutation, the action's
// answer, bob's session cookie) — recorded `answeredBy: bob`, `onBehalfOf: alice`. A notification
// still on his phone once the delegation has expired is refused (NOT_FOUND) and changes nothing.
// The push service is the loopback one that decrypts each message; the worker's wire is read from
// src/inbox/public/sw.js itself (test/e2e/push-actions.test.ts taps it in Chromium).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/auth/session-cookie.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { createPeople } from '../../src/engine/people/people.ts';
import { graphqlAt } from '../support/channel-server.ts';
import { type FakePushService, startFakePushService } from '../support/fake-push-service.ts';
import { startServer, type TestServer } from '../support/server.ts';

/** The mutation the service worker sends for a notification action, as the worker holds it. */
const ANSWER_MUTATION = (() => {
  const sw = readFileSync(new URL('../../src/inbox/public/sw.js', import.meta.url), 'utf8');
  const m = /const ANSWER_MUTATION = '([^']+)';/.exec(sw);
  if (!m) throw new Error('sw.js no longer declares ANSWER_MUTATION');
  return m[1]!;
})();

/** The test server's public origin (support/server.ts): a cookie's state change must come from it. */
const OWN_ORIGIN = 'http://127.0.0.1:4000';
const ALICE: Principal = { id: 'alice', roles: ['operator', 'agent'], restricted: true };
const BOB = { id: 'bob', name: 'Bob', roles: ['operator' as const], restricted: true };

interface Action {
  action: string;
  answer: unknown;
}

let pushService: FakePushService;
beforeAll(async () => {
  pushService = await startFakePushService();
});
afterAll(() => pushService?.close());

for (const store of ['memory', 'redis'] as const) {
  describe(`a delegate answers from a notification, for the person (${store})`, () => {
    let t: TestServer;
    let url: string;
    let cookie: string;
    const device = `bob-phone-${store}`;
    beforeAll(async () => {
      t = await startServer({ store, env: { INTERACTIONS_PUSH_HOSTS: new URL(pushService.origin).host } });
      url = await t.listen();
      // A session as sign-in opens it (the OIDC flow itself is test/e2e/oidc-sign-in.test.ts).
      const session = await createPeople(t.server.store.people).openSession(BOB, Date.now() + 3600_000);
      cookie = `${SESSION_COOKIE}=${session}`;
      const res = await fetch(`${url}/api/interactions/push/subscriptions`, {
        method: 'POST',
        headers: { cookie, origin: OWN_ORIGIN, 'content-type': 'application/json' },
        body: JSON.stringify(pushService.device(device).subscription),
      });
      expect(res.status).toBe(201);
    });
    afterAll(() => t?.close());

    const gql = graphqlAt(() => url);

    /** Asks alice a CONFIRM question; resolves with it as bob's phone shows it. */
    async function askAlice(text: string): Promise<{ id: string; actions: Action[] }> {
      const arrives = pushService.next(device);
      const r = await gql(
        'mutation($i: AskUserInput!) { askUser(input: $i, holdSeconds: 0) { question { id } } }',
        { i: { text, format: 'CONFIRM', audience: 'alice' } },
      );
      expect(r.errors).toBeUndefined();
      const id = (r.data as { askUser: { question: { id: string } } }).askUser.question.id;
      const got = await arrives;
      expect(got.payload).toMatchObject({ id });
      return { id, actions: got.payload.actions as Action[] };
    }

    /** A tap on `action`, as the service worker answers it: the cookie, from its own origin. */
    async function tap(n: { id: string; actions: Action[] }, action: string) {
      const chosen = n.actions.find((a) => a.action === action);
      expect(chosen).toBeDefined();
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { cookie, origin: OWN_ORIGIN, 'content-type': 'application/json' },
        body: JSON.stringify({ query: ANSWER_MUTATION, variables: { id: n.id, a: chosen!.answer } }),
      });
      const body = (await res.json()) as { errors?: { extensions: { code: string } }[] };
      return body.errors?.[0]?.extensions.code ?? 'OK';
    }

    const read = async (id: string) =>
      (
        (
          await gql(
            'query($id: ID!) { question(id: $id) { status answer answeredBy onBehalfOf } }',
            { id },
            'ops',
          )
        ).data as { question: Record<string, unknown> }
      ).question;

    it('records the tap as the delegate’s, for the person; once the delegation expired, refuses it', async () => {
      await t.server.engine.presence.delegations.set(ALICE, { to: 'bob', until: Date.now() + 3600_000 });
      const first = await askAlice('Deploy 2.0 to production?');
      const second = await askAlice('Roll back 1.9?');

      expect(await tap(first, 'approve')).toBe('OK');
      expect(await read(first.id)).toEqual({
        status: 'ANSWERED',
        answer: true,
        answeredBy: 'bob',
        onBehalfOf: 'alice',
      });
      const log = (await t.server.store.audit.page({ first: 10, questionId: first.id, types: ['ANSWERED'] }))
        .entries;
      expect(log).toMatchObject([{ actor: 'bob', detail: { onBehalfOf: 'alice' } }]);

      // The delegation ran out an instant ago (stored as it was set, an hour back): the
      // notification still on bob's phone no longer answers anything.
      const now = Date.now();
      await t.server.store.delegations.set({
        from: 'alice',
        to: 'bob',
        until: now - 1,
        reason: null,
        setAt: now - 3600_000,
      });
      expect(await tap(second, 'reject')).toBe('NOT_FOUND');
      expect(await read(second.id)).toEqual({
        status: 'PENDING',
        answer: null,
        answeredBy: null,
        onBehalfOf: null,
      });
    });
  });
}
