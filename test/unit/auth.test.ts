import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createKeyring,
  mintAdminKey,
  type PrincipalConfig,
  parsePrincipals,
} from '../../src/auth/api-keys.ts';
import { ANONYMOUS_PUBLIC, createAuthenticator } from '../../src/auth/authenticate.ts';
import { credentialFrom } from '../../src/auth/credentials.ts';
import { DEFAULT_DOOR_POLICY, DOORS, isPublic, parseDoorPolicy } from '../../src/auth/door-policy.ts';
import { ANONYMOUS_OPEN } from '../../src/domain/principal.ts';

const OPS_KEY = 'ops-secret-key-0123456789';
const BOT_KEY = 'bot-secret-key-abcdefghij';
const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

function parseError(json: unknown): string {
  try {
    parsePrincipals(json);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected parsePrincipals to throw');
}

describe('parsePrincipals', () => {
  it('hashes a plaintext key and keeps only its hash', () => {
    const [p] = parsePrincipals([{ id: 'ops', key: OPS_KEY, roles: ['operator'] }]);
    expect(p).toEqual({ id: 'ops', keySha256: sha(OPS_KEY), roles: ['operator'], restricted: false });
    expect(JSON.stringify(p)).not.toContain(OPS_KEY);
    expect(Object.keys(p ?? {})).not.toContain('key');
  });

  it('keeps a given hash, lowercased, and the restricted flag', () => {
    const [p] = parsePrincipals([
      { id: 'bot', keySha256: sha(BOT_KEY).toUpperCase(), roles: ['agent', 'operator'], restricted: true },
    ]);
    expect(p).toEqual({ id: 'bot', keySha256: sha(BOT_KEY), roles: ['agent', 'operator'], restricted: true });
  });

  it('accepts the boundaries: 16-character key, 256-character id', () => {
    const ps = parsePrincipals([{ id: 'i'.repeat(256), key: 'k'.repeat(16), roles: ['admin'] }]);
    expect(ps[0]?.id).toHaveLength(256);
  });

  it.each([
    ['not an array', { id: 'a', key: OPS_KEY, roles: ['agent'] }, ''],
    ['an entry that is not an object', ['x'], '[0]'],
    ['a blank id', [{ id: ' \t', key: OPS_KEY, roles: ['agent'] }], '[0].id'],
    ['a missing id', [{ key: OPS_KEY, roles: ['agent'] }], '[0].id'],
    ['an id of 257 characters', [{ id: 'i'.repeat(257), key: OPS_KEY, roles: ['agent'] }], '[0].id'],
    ['a reserved id', [{ id: 'anonymous', key: OPS_KEY, roles: ['agent'] }], '[0].id'],
    ['a 15-character key', [{ id: 'a', key: 'k'.repeat(15), roles: ['agent'] }], '[0].key'],
    ['a key with a space', [{ id: 'a', key: 'has a space in the key', roles: ['agent'] }], '[0].key'],
    ['a key that is not a string', [{ id: 'a', key: 1234567890123456, roles: ['agent'] }], '[0].key'],
    ['a short hash', [{ id: 'a', keySha256: 'abc', roles: ['agent'] }], '[0].keySha256'],
    ['a non-hex hash', [{ id: 'a', keySha256: 'g'.repeat(64), roles: ['agent'] }], '[0].keySha256'],
    ['neither key nor hash', [{ id: 'a', roles: ['agent'] }], '[0].key'],
    ['both key and hash', [{ id: 'a', key: OPS_KEY, keySha256: sha(BOT_KEY), roles: ['agent'] }], '[0].key'],
    ['no roles', [{ id: 'a', key: OPS_KEY, roles: [] }], '[0].roles'],
    ['roles not an array', [{ id: 'a', key: OPS_KEY, roles: 'admin' }], '[0].roles'],
    ['an unknown role', [{ id: 'a', key: OPS_KEY, roles: ['agent', 'root'] }], '[0].roles[1]'],
    [
      'a non-boolean restricted',
      [{ id: 'a', key: OPS_KEY, roles: ['agent'], restricted: 'yes' }],
      '[0].restricted',
    ],
    ['an unknown field', [{ id: 'a', key: OPS_KEY, roles: ['agent'], keysha256: 'x' }], '[0].keysha256'],
    [
      'a duplicate id',
      [
        { id: 'a', key: OPS_KEY, roles: ['agent'] },
        { id: 'a', key: BOT_KEY, roles: ['agent'] },
      ],
      '[1].id',
    ],
    [
      'a duplicate key',
      [
        { id: 'a', key: OPS_KEY, roles: ['agent'] },
        { id: 'b', key: OPS_KEY, roles: ['agent'] },
      ],
      '[1].key',
    ],
    [
      'a duplicate key given once as plaintext and once as hash',
      [
        { id: 'a', key: OPS_KEY, roles: ['agent'] },
        { id: 'b', keySha256: sha(OPS_KEY), roles: ['agent'] },
      ],
      '[1].keySha256',
    ],
  ])('refuses %s, naming where, never the key', (_what, json, where) => {
    const message = parseError(json);
    expect(message.startsWith(where)).toBe(true);
    expect(message).not.toContain(OPS_KEY);
    expect(message).not.toContain(BOT_KEY);
    expect(message).not.toContain('has a space');
    expect(message).not.toContain('k'.repeat(15));
  });

  it('an unknown field is answered with the fields a principal takes', () => {
    const message = parseError([{ id: 'a', key: OPS_KEY, roles: ['agent'], keysha256: 'x' }]);
    expect(message).toContain('unknown field (expected: id, key, keySha256, roles, restricted, maxPending)');
  });

  it('accepts an empty list', () => {
    expect(parsePrincipals([])).toEqual([]);
  });
});

describe('createKeyring', () => {
  const principals = parsePrincipals([
    { id: 'ops', key: OPS_KEY, roles: ['operator'] },
    { id: 'bot', keySha256: sha(BOT_KEY), roles: ['agent'], restricted: true },
  ]);
  const keyring = createKeyring(principals);

  it('authenticates a plaintext-configured key', () => {
    expect(keyring.authenticate(OPS_KEY)).toEqual({ id: 'ops', roles: ['operator'], restricted: false });
  });

  it('authenticates a keySha256 principal with its plaintext key and carries restricted', () => {
    expect(keyring.authenticate(BOT_KEY)).toEqual({ id: 'bot', roles: ['agent'], restricted: true });
  });

  it('refuses a wrong, empty or hash-as-key key', () => {
    expect(keyring.authenticate('wrong-key-0000000000000')).toBeNull();
    expect(keyring.authenticate(`${OPS_KEY} `)).toBeNull();
    expect(keyring.authenticate('')).toBeNull();
    expect(keyring.authenticate(sha(BOT_KEY))).toBeNull();
  });

  it('refuses duplicate hashes', () => {
    const p = principals[0] as PrincipalConfig;
    expect(() => createKeyring([p, { ...p, id: 'other' }])).toThrow();
  });
});

describe('mintAdminKey', () => {
  it('mints a 43-character base64url key for an admin principal', () => {
    const { key, principal } = mintAdminKey();
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(principal).toEqual({ id: 'admin', keySha256: sha(key), roles: ['admin'], restricted: false });
    expect(createKeyring([principal]).authenticate(key)?.id).toBe('admin');
  });

  it('mints a different key each time', () => {
    expect(mintAdminKey().key).not.toBe(mintAdminKey().key);
  });
});

describe('credentialFrom', () => {
  it.each([
    [{ authorization: `Bearer ${OPS_KEY}` }, OPS_KEY],
    [{ authorization: `bearer ${OPS_KEY}` }, OPS_KEY],
    [{ authorization: `BEARER  ${OPS_KEY} ` }, OPS_KEY],
    [{ Authorization: `Bearer ${OPS_KEY}` }, OPS_KEY],
    [{ 'x-api-key': OPS_KEY }, OPS_KEY],
    [{ 'X-Api-Key': ` ${OPS_KEY}` }, OPS_KEY],
    [{ 'x-api-key': [OPS_KEY] }, OPS_KEY],
    [{ authorization: `Bearer ${OPS_KEY}`, 'x-api-key': OPS_KEY }, OPS_KEY],
    [{ authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': OPS_KEY }, OPS_KEY],
  ])('reads %j', (headers, key) => {
    expect(credentialFrom(headers)).toBe(key);
  });

  it.each([
    [{}],
    [{ authorization: undefined }],
    [{ authorization: 'Basic dXNlcjpwYXNz' }],
    [{ authorization: OPS_KEY }],
    [{ authorization: 'Bearer' }],
    [{ authorization: 'Bearer ' }],
    [{ authorization: `Bearer ${OPS_KEY} extra` }],
    [{ authorization: `Token ${OPS_KEY}` }],
    [{ 'x-api-key': '' }],
    [{ 'x-api-key': 'two words' }],
    [{ 'x-api-key': [OPS_KEY, BOT_KEY] }],
    [{ authorization: `Bearer ${OPS_KEY}`, 'x-api-key': BOT_KEY }],
    [{ cookie: `key=${OPS_KEY}` }],
  ])('finds no credential in %j', (headers) => {
    expect(credentialFrom(headers)).toBeNull();
  });
});

describe('door policy', () => {
  it('defaults: callback, channels, inbox, health public; graphql, stream, answer authenticated', () => {
    expect(DOORS.filter((d) => isPublic(DEFAULT_DOOR_POLICY, d))).toEqual([
      'callback',
      'channels',
      'inbox',
      'health',
    ]);
  });

  it('overrides any subset', () => {
    const policy = parseDoorPolicy({ doors: { graphql: 'public', callback: 'authenticated' } });
    expect(policy).toEqual({ ...DEFAULT_DOOR_POLICY, graphql: 'public', callback: 'authenticated' });
    expect(isPublic(policy, 'graphql')).toBe(true);
    expect(isPublic(policy, 'callback')).toBe(false);
    expect(parseDoorPolicy({ doors: {} })).toEqual(DEFAULT_DOOR_POLICY);
  });

  it('keeps the audit export authenticated', () => {
    expect(parseDoorPolicy({ doors: { audit: 'authenticated' } }).audit).toBe('authenticated');
    expect(isPublic(DEFAULT_DOOR_POLICY, 'audit')).toBe(false);
  });

  it('keeps health public', () => {
    expect(parseDoorPolicy({ doors: { health: 'public' } }).health).toBe('public');
    expect(isPublic({ ...DEFAULT_DOOR_POLICY, health: 'authenticated' }, 'health')).toBe(true);
  });

  it.each([
    [null, 'doors'],
    [[], 'doors'],
    [{}, 'doors'],
    [{ doors: [] }, 'doors'],
    [{ doors: { graphql: 'public' }, extra: 1 }, 'extra'],
    [{ doors: { admin: 'public' } }, 'admin'],
    [{ doors: { graphql: 'open' } }, 'open'],
    [{ doors: { graphql: true } }, 'graphql'],
    [{ doors: { health: 'authenticated' } }, 'health'],
    [{ doors: { audit: 'public' } }, 'audit'],
  ])('refuses %j, naming %s', (doc, named) => {
    expect(() => parseDoorPolicy(doc)).toThrow(named);
  });

  it('returns a frozen policy', () => {
    expect(Object.isFrozen(parseDoorPolicy({ doors: {} }))).toBe(true);
  });
});

describe('createAuthenticator', () => {
  const keyring = createKeyring(
    parsePrincipals([
      { id: 'ops', key: OPS_KEY, roles: ['operator'] },
      { id: 'bot', keySha256: sha(BOT_KEY), roles: ['agent'], restricted: true },
    ]),
  );
  const auth = createAuthenticator({ accessControl: true, keyring, policy: DEFAULT_DOOR_POLICY });

  it('admits a valid key on an authenticated door, by Bearer or X-Api-Key', () => {
    expect(auth.authenticate('graphql', { authorization: `Bearer ${OPS_KEY}` })).toEqual({
      ok: true,
      principal: { id: 'ops', roles: ['operator'], restricted: false },
    });
    expect(auth.authenticate('stream', { 'x-api-key': BOT_KEY })).toEqual({
      ok: true,
      principal: { id: 'bot', roles: ['agent'], restricted: true },
    });
  });

  it('refuses a missing or unknown key on an authenticated door', () => {
    for (const door of ['graphql', 'stream', 'answer'] as const) {
      expect(auth.authenticate(door, {})).toEqual({ ok: false, code: 'UNAUTHENTICATED' });
      expect(auth.authenticate(door, { 'x-api-key': 'unknown-key-000000000' })).toEqual({
        ok: false,
        code: 'UNAUTHENTICATED',
      });
    }
  });

  it('gives a public door the key holder when a valid key comes along', () => {
    const r = auth.authenticate('callback', { authorization: `Bearer ${BOT_KEY}` });
    expect(r).toEqual({ ok: true, principal: { id: 'bot', roles: ['agent'], restricted: true } });
  });

  it('lets an anonymous caller with no roles through a public door', () => {
    for (const door of ['callback', 'inbox', 'health'] as const) {
      expect(auth.authenticate(door, {})).toEqual({ ok: true, principal: ANONYMOUS_PUBLIC });
      expect(auth.authenticate(door, { 'x-api-key': 'unknown-key-000000000' })).toEqual({
        ok: true,
        principal: { id: 'anonymous', roles: [], restricted: false },
      });
    }
  });

  it('follows the configured policy', () => {
    const policy = parseDoorPolicy({ doors: { graphql: 'public', callback: 'authenticated' } });
    const custom = createAuthenticator({ accessControl: true, keyring, policy });
    expect(custom.authenticate('graphql', {})).toEqual({ ok: true, principal: ANONYMOUS_PUBLIC });
    expect(custom.authenticate('callback', {})).toEqual({ ok: false, code: 'UNAUTHENTICATED' });
    expect(custom.authenticate('health', {})).toEqual({ ok: true, principal: ANONYMOUS_PUBLIC });
  });

  it('opens every door as ANONYMOUS_OPEN when access control is off', () => {
    const open = createAuthenticator({ accessControl: false, keyring, policy: DEFAULT_DOOR_POLICY });
    for (const door of DOORS) {
      expect(open.authenticate(door, {})).toEqual({ ok: true, principal: ANONYMOUS_OPEN });
      expect(open.authenticate(door, { 'x-api-key': OPS_KEY })).toEqual({
        ok: true,
        principal: ANONYMOUS_OPEN,
      });
    }
  });
});
