// One rule for "key or session cookie" on every door (API.md §2, §19): the REST door hook and
// GraphQL's plugin both call createPrincipalResolver, so its outcomes are every door's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring, parsePrincipals } from '../../src/auth/api-keys.ts';
import { ANONYMOUS_PUBLIC, createAuthenticator } from '../../src/auth/authenticate.ts';
import { DEFAULT_DOOR_POLICY } from '../../src/auth/door-policy.ts';
import { createPrincipalResolver, type PrincipalResolver } from '../../src/auth/resolve-principal.ts';
import { createPeople } from '../../src/engine/people/people.ts';
import { createSessionAuth } from '../../src/http/session-auth.ts';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import type { QuestionStore } from '../../src/store/types.ts';

const KEY = 'resolver-test-key-0000001';
const keyring = createKeyring(parsePrincipals([{ id: 'ops', key: KEY, roles: ['operator'] }]));
const OWN = 'https://tai.example';

describe('the principal resolver', () => {
  let store: QuestionStore;
  let resolve: PrincipalResolver;
  let cookie: string;
  let sessionId: string;

  beforeAll(async () => {
    store = createMemoryStore();
    const people = createPeople(store.people);
    const auth = createAuthenticator({ accessControl: true, keyring, policy: DEFAULT_DOOR_POLICY });
    resolve = createPrincipalResolver(auth, createSessionAuth({ people, publicOrigin: OWN }));
    sessionId = await people.openSession(
      { id: 'oidc:alice', name: 'Alice', roles: ['operator'], restricted: false },
      Date.now() + 60_000,
    );
    cookie = `tai_session=${sessionId}`;
  });
  afterAll(async () => {
    await store.close();
  });

  it('a key is resolved at once, without waiting, and wins over a cookie', async () => {
    const keyed = resolve('answer', { method: 'POST', headers: { 'x-api-key': KEY, cookie } });
    expect(keyed).not.toBeInstanceOf(Promise);
    expect(keyed).toMatchObject({ ok: true, principal: { id: 'ops' }, sessionId: null });
    // Even from another origin: a browser never sends a key by itself.
    const foreign = resolve('graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, cookie, origin: 'https://evil.example' },
    });
    expect(foreign).toMatchObject({ ok: true, principal: { id: 'ops' } });
  });

  it('no credential: anonymous on a public or open door, refused on an authenticated one', () => {
    for (const door of ['callback', 'signin', 'session', 'public', 'health'] as const) {
      expect(resolve(door, { method: 'GET', headers: {} })).toEqual({
        ok: true,
        principal: ANONYMOUS_PUBLIC,
        sessionId: null,
      });
    }
    expect(resolve('answer', { method: 'POST', headers: {} })).toEqual({
      ok: false,
      code: 'UNAUTHENTICATED',
    });
    expect(resolve('graphql', { method: 'POST', headers: { 'x-api-key': 'unknown-key-000000000' } })).toEqual(
      {
        ok: false,
        code: 'UNAUTHENTICATED',
      },
    );
  });

  it('a live session is its person, with its id; a state change needs our Origin', async () => {
    expect(await resolve('graphql', { method: 'GET', headers: { cookie } })).toMatchObject({
      ok: true,
      principal: { id: 'oidc:alice', name: 'Alice' },
      sessionId,
    });
    expect(await resolve('answer', { method: 'POST', headers: { cookie, origin: OWN } })).toMatchObject({
      ok: true,
      sessionId,
    });
    for (const origin of [{ origin: 'https://evil.example' }, {}, { origin: 'null' }]) {
      for (const door of ['answer', 'session', 'callback'] as const) {
        expect(await resolve(door, { method: 'POST', headers: { cookie, ...origin } })).toEqual({
          ok: false,
          code: 'FORBIDDEN',
        });
      }
    }
  });

  it('an unknown or malformed session counts as no credential', async () => {
    for (const bad of [`tai_session=${'A'.repeat(43)}`, 'tai_session=short', 'other=1']) {
      expect(await resolve('answer', { method: 'GET', headers: { cookie: bad } })).toEqual({
        ok: false,
        code: 'UNAUTHENTICATED',
      });
      expect(await resolve('session', { method: 'POST', headers: { cookie: bad, origin: OWN } })).toEqual({
        ok: true,
        principal: ANONYMOUS_PUBLIC,
        sessionId: null,
      });
    }
  });
});
