import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, configWarnings, loadConfig } from '../../src/app/config.ts';
import { DEFAULT_DOOR_POLICY } from '../../src/auth/door-policy.ts';

const SECRET = 'super-secret-key-0123456789';
const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

/** The ConfigError thrown by loading `env`, checked to be one line naming `variable`. */
function failure(env: Record<string, string | undefined>, variable: string): ConfigError {
  let caught: unknown;
  try {
    loadConfig(env);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  const err = caught as ConfigError;
  expect(err.variable).toBe(variable);
  expect(err.message.startsWith(`${variable}: `)).toBe(true);
  expect(err.message).not.toMatch(/[\r\n]/);
  return err;
}

const tmp = mkdtempSync(path.join(tmpdir(), 'config-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function tmpFile(name: string, content: string): string {
  const file = path.join(tmp, name);
  writeFileSync(file, content);
  return file;
}

describe('defaults', () => {
  it('fills every setting from an empty environment', () => {
    const c = loadConfig({});
    expect(c).toEqual({
      port: 4000,
      host: '127.0.0.1',
      redisUrl: null,
      redisMode: 'standalone',
      redisSentinels: [],
      redisSentinelName: null,
      redisWaitReplicas: 0,
      keyPrefix: 'interactions:',
      answerTimeoutSeconds: 3600,
      holdSeconds: 50,
      retentionSeconds: 604800,
      maxPending: 10000,
      maxPendingPerPrincipal: 1000,
      maxPendingMediaBytesPerPrincipal: 67108864,
      maxPendingMediaBytes: 536870912,
      outboxMax: 100000,
      publicBaseUrl: 'http://127.0.0.1:4000',
      publicBaseUrlDefaulted: true,
      callbackMaxBodyBytes: 65536,
      principals: [],
      accessControl: true,
      doorPolicy: DEFAULT_DOOR_POLICY,
      logLevel: 'info',
      reaperIntervalMs: 1000,
      deliveryKeys: null,
      mcpStateKey: null,
      auditRetentionDays: 400,
      otel: null,
      groups: [],
      oidcGroupsClaim: 'groups',
      rateLimitPerMinute: 120,
      secret: expect.any(Function),
      verifierSecretNames: [],
      corsOrigins: [],
      trustProxyHops: 0,
      // On by default: the default HOST is loopback.
      graphiql: true,
      graphqlStream: true,
      metricsPort: null,
      allowedHosts: [],
      oidc: null,
      sessionSeconds: 43200,
      vapidKeys: null,
      pushHosts: [
        'fcm.googleapis.com',
        'updates.push.services.mozilla.com',
        'web.push.apple.com',
        '*.notify.windows.com',
      ],
      pushGraceDays: 30,
    });
  });

  it('serves GraphiQL by default on a loopback HOST only; INTERACTIONS_GRAPHIQL decides either way', () => {
    expect(loadConfig({}).graphiql).toBe(true);
    expect(loadConfig({ HOST: '::1' }).graphiql).toBe(true);
    expect(loadConfig({ HOST: 'localhost' }).graphiql).toBe(true);
    expect(loadConfig({ HOST: '0.0.0.0' }).graphiql).toBe(false);
    expect(loadConfig({ HOST: '10.0.0.5' }).graphiql).toBe(false);
    expect(loadConfig({ HOST: '0.0.0.0', INTERACTIONS_GRAPHIQL: 'true' }).graphiql).toBe(true);
    expect(loadConfig({ INTERACTIONS_GRAPHIQL: 'false' }).graphiql).toBe(false);
    expect(() => loadConfig({ INTERACTIONS_GRAPHIQL: 'maybe' })).toThrow(/^INTERACTIONS_GRAPHIQL: /);
  });

  it('INTERACTIONS_MCP_STATE_KEY: 32 characters at least, and the value is never echoed', () => {
    const key = 's'.repeat(32);
    expect(loadConfig({ INTERACTIONS_MCP_STATE_KEY: key }).mcpStateKey).toBe(key);
    let message = '';
    try {
      loadConfig({ INTERACTIONS_MCP_STATE_KEY: 'z'.repeat(31) });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^INTERACTIONS_MCP_STATE_KEY: expected at least 32 characters/);
    expect(message).not.toContain('zzz');
  });

  it('parses INTERACTIONS_CORS_ORIGINS: unset none, * any, or a list of origins', () => {
    expect(loadConfig({ INTERACTIONS_CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
    expect(
      loadConfig({ INTERACTIONS_CORS_ORIGINS: 'https://a.example, http://localhost:5173' }).corsOrigins,
    ).toEqual(['https://a.example', 'http://localhost:5173']);
    for (const bad of ['a.example', 'https://a.example/path', 'ftp://a.example', '*,https://a.example']) {
      expect(() => loadConfig({ INTERACTIONS_CORS_ORIGINS: bad })).toThrow(/^INTERACTIONS_CORS_ORIGINS: /);
    }
  });

  it('looks up only the verifier secrets the operator declared', () => {
    const keys = JSON.stringify([{ id: 'a', key: SECRET, roles: ['agent'] }]);
    const c = loadConfig({
      HOOK_SECRET: 'shh-123',
      OTHER: 'not-declared',
      EMPTY_ONE: '',
      INTERACTIONS_API_KEYS: keys,
      INTERACTIONS_VERIFIER_SECRETS: ' HOOK_SECRET, NOT_SET,EMPTY_ONE,HOOK_SECRET ',
    });
    expect(c.verifierSecretNames).toEqual(['HOOK_SECRET', 'NOT_SET', 'EMPTY_ONE']);
    expect(c.secret('HOOK_SECRET')).toBe('shh-123');
    expect(c.secret('NOT_SET')).toBeUndefined();
    expect(c.secret('EMPTY_ONE')).toBeUndefined();
    expect(c.secret('OTHER')).toBeUndefined();
    expect(c.secret('INTERACTIONS_API_KEYS')).toBeUndefined();
    expect(JSON.stringify(c)).not.toContain('shh-123');
    expect(Object.isFrozen(c.verifierSecretNames)).toBe(true);
  });

  it('declares no verifier secret by default or when blank', () => {
    const c = loadConfig({ HOOK_SECRET: 'shh-123', INTERACTIONS_VERIFIER_SECRETS: '  ' });
    expect(c.verifierSecretNames).toEqual([]);
    expect(c.secret('HOOK_SECRET')).toBeUndefined();
  });

  it.each([
    ['a name with a dash', 'HOOK-SECRET'],
    ['an empty item', 'A,,B'],
    ['a name starting with a digit', '1SECRET'],
    ['a name of 129 characters', `A${'B'.repeat(128)}`],
    ['an API key setting', 'INTERACTIONS_API_KEYS'],
    ['the Redis URL', 'HOOK,INTERACTIONS_REDIS_URL'],
    ['the list itself', 'INTERACTIONS_VERIFIER_SECRETS'],
  ])('refuses INTERACTIONS_VERIFIER_SECRETS with %s', (_what, raw) => {
    failure({ INTERACTIONS_VERIFIER_SECRETS: raw }, 'INTERACTIONS_VERIFIER_SECRETS');
  });

  it('accepts a name of 128 characters', () => {
    const name = `A${'B'.repeat(127)}`;
    expect(loadConfig({ INTERACTIONS_VERIFIER_SECRETS: name }).verifierSecretNames).toEqual([name]);
  });

  it('returns a frozen object', () => {
    const c = loadConfig({
      INTERACTIONS_API_KEYS: JSON.stringify([{ id: 'a', key: SECRET, roles: ['agent'] }]),
    });
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.principals)).toBe(true);
    expect(Object.isFrozen(c.principals[0])).toBe(true);
    expect(Object.isFrozen(c.doorPolicy)).toBe(true);
  });

  it('ignores unrelated variables', () => {
    expect(loadConfig({ PATH: '/bin', HOME: '/root' }).port).toBe(4000);
  });

  it('reads values that are set', () => {
    const c = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      INTERACTIONS_REDIS_URL: 'redis://127.0.0.1:6379/2',
      INTERACTIONS_KEY_PREFIX: 'test:run1:',
      INTERACTIONS_ANSWER_TIMEOUT_SECONDS: '60',
      INTERACTIONS_HOLD_SECONDS: '0',
      INTERACTIONS_RETENTION_SECONDS: '10',
      INTERACTIONS_MAX_PENDING: '5',
      INTERACTIONS_PUBLIC_BASE_URL: 'https://X.example/',
      INTERACTIONS_CALLBACK_MAX_BODY_BYTES: '1024',
      ACCESS_CONTROL_ENABLE: 'false',
      LOG_LEVEL: 'debug',
      INTERACTIONS_REAPER_INTERVAL_MS: '250',
      INTERACTIONS_RATE_LIMIT_PER_MINUTE: '30',
    });
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      redisUrl: 'redis://127.0.0.1:6379/2',
      keyPrefix: 'test:run1:',
      answerTimeoutSeconds: 60,
      holdSeconds: 0,
      retentionSeconds: 10,
      maxPending: 5,
      publicBaseUrl: 'https://x.example',
      callbackMaxBodyBytes: 1024,
      accessControl: false,
      logLevel: 'debug',
      reaperIntervalMs: 250,
      rateLimitPerMinute: 30,
    });
  });
});

describe('whole numbers', () => {
  const ranges: [string, string, number, number | null][] = [
    ['PORT', 'port', 1, 65535],
    ['INTERACTIONS_ANSWER_TIMEOUT_SECONDS', 'answerTimeoutSeconds', 1, 31536000],
    ['INTERACTIONS_HOLD_SECONDS', 'holdSeconds', 0, 3600],
    ['INTERACTIONS_RETENTION_SECONDS', 'retentionSeconds', 1, null],
    ['INTERACTIONS_MAX_PENDING', 'maxPending', 1, null],
    ['INTERACTIONS_MAX_PENDING_PER_PRINCIPAL', 'maxPendingPerPrincipal', 1, null],
    ['INTERACTIONS_MAX_PENDING_MEDIA_BYTES_PER_PRINCIPAL', 'maxPendingMediaBytesPerPrincipal', 0, null],
    ['INTERACTIONS_MAX_PENDING_MEDIA_BYTES', 'maxPendingMediaBytes', 0, null],
    ['INTERACTIONS_CALLBACK_MAX_BODY_BYTES', 'callbackMaxBodyBytes', 1, 16777216],
    ['INTERACTIONS_REAPER_INTERVAL_MS', 'reaperIntervalMs', 50, 60000],
    ['INTERACTIONS_RATE_LIMIT_PER_MINUTE', 'rateLimitPerMinute', 1, null],
    ['INTERACTIONS_AUDIT_RETENTION_DAYS', 'auditRetentionDays', 1, 36500],
  ];

  for (const [variable, field, min, max] of ranges) {
    describe(variable, () => {
      it(`accepts the bounds (${min}..${max ?? 'unbounded'})`, () => {
        expect(loadConfig({ [variable]: String(min) })[field as 'port']).toBe(min);
        if (max !== null) expect(loadConfig({ [variable]: String(max) })[field as 'port']).toBe(max);
        else
          expect(loadConfig({ [variable]: '9007199254740991' })[field as 'port']).toBe(
            Number.MAX_SAFE_INTEGER,
          );
      });

      it('refuses one past each bound', () => {
        const below = failure({ [variable]: String(min - 1) }, variable);
        expect(below.message).toContain(`got "${min - 1}"`);
        if (max !== null) failure({ [variable]: String(max + 1) }, variable);
        else failure({ [variable]: '9007199254740992' }, variable);
      });

      it.each(['abc', '1e3', '12abc', '', '-5', '1.5', ' 10', '0x10', '+3', 'Infinity'])(
        'refuses %j',
        (raw) => {
          failure({ [variable]: raw }, variable);
        },
      );
    });
  }

  it('explains the expected range with the value', () => {
    const err = failure({ INTERACTIONS_HOLD_SECONDS: 'abc' }, 'INTERACTIONS_HOLD_SECONDS');
    expect(err.message).toBe('INTERACTIONS_HOLD_SECONDS: expected a whole number from 0 to 3600, got "abc"');
  });

  it('accepts leading zeros as decimal', () => {
    expect(loadConfig({ PORT: '08080' }).port).toBe(8080);
  });

  it('keeps an echoed value on one line and short', () => {
    const err = failure({ PORT: `1\n2${'9'.repeat(200)}` }, 'PORT');
    expect(err.message.length).toBeLessThan(200);
  });
});

describe('HOST', () => {
  it('refuses empty and whitespace', () => {
    failure({ HOST: '' }, 'HOST');
    failure({ HOST: 'local host' }, 'HOST');
  });

  it('accepts names and addresses', () => {
    expect(loadConfig({ HOST: '::' }).host).toBe('::');
    expect(loadConfig({ HOST: 'localhost' }).host).toBe('localhost');
  });
});

describe('INTERACTIONS_REDIS_URL', () => {
  it('accepts redis:// and rediss://', () => {
    expect(loadConfig({ INTERACTIONS_REDIS_URL: 'rediss://user:pw@cache.example:6380' }).redisUrl).toBe(
      'rediss://user:pw@cache.example:6380',
    );
  });

  it('treats the empty string as unset', () => {
    expect(loadConfig({ INTERACTIONS_REDIS_URL: '' }).redisUrl).toBeNull();
  });

  it.each(['http://localhost:6379', 'localhost:6379', 'redis://', 'garbage', 'redis://host :6379'])(
    'refuses %j',
    (raw) => {
      failure({ INTERACTIONS_REDIS_URL: raw }, 'INTERACTIONS_REDIS_URL');
    },
  );

  it('never echoes the URL (it may hold a password)', () => {
    const err = failure({ INTERACTIONS_REDIS_URL: 'https://:hunter2hunter2@x' }, 'INTERACTIONS_REDIS_URL');
    expect(err.message).not.toContain('hunter2');
  });
});

describe('INTERACTIONS_KEY_PREFIX', () => {
  it('accepts 100 characters', () => {
    expect(loadConfig({ INTERACTIONS_KEY_PREFIX: 'p'.repeat(100) }).keyPrefix).toBe('p'.repeat(100));
  });

  it.each(['', 'a b', 'tab\there', 'p'.repeat(101), 'x\n'])('refuses %j', (raw) => {
    failure({ INTERACTIONS_KEY_PREFIX: raw }, 'INTERACTIONS_KEY_PREFIX');
  });
});

describe('INTERACTIONS_PUBLIC_BASE_URL', () => {
  it.each([
    ['https://x.example', 'https://x.example'],
    ['https://x.example/', 'https://x.example'],
    ['https://x.example:443', 'https://x.example'],
    ['https://x.example:8443/', 'https://x.example:8443'],
    ['http://localhost:4000', 'http://localhost:4000'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['http://[::1]:4000', 'http://[::1]:4000'],
    ['http://localhost', 'http://localhost'],
  ])('accepts %j as %j', (raw, normalized) => {
    expect(loadConfig({ INTERACTIONS_PUBLIC_BASE_URL: raw }).publicBaseUrl).toBe(normalized);
  });

  it('treats the empty string as unset', () => {
    expect(loadConfig({ INTERACTIONS_PUBLIC_BASE_URL: '', HOST: '0.0.0.0' }).publicBaseUrl).toBeNull();
  });

  it.each([
    ['127.0.0.1', 'http://127.0.0.1:4100'],
    ['localhost', 'http://127.0.0.1:4100'],
    ['::1', 'http://[::1]:4100'],
  ])('unset on loopback HOST %j: the server itself, %j, at PORT', (host, url) => {
    const c = loadConfig({ HOST: host, PORT: '4100' });
    expect([c.publicBaseUrl, c.publicBaseUrlDefaulted]).toEqual([url, true]);
    expect(loadConfig({ HOST: host, PORT: '4100', INTERACTIONS_PUBLIC_BASE_URL: '' }).publicBaseUrl).toBe(
      url,
    );
  });

  it('the default HOST and PORT give http://127.0.0.1:4000', () => {
    expect(loadConfig({}).publicBaseUrl).toBe('http://127.0.0.1:4000');
  });

  it('unset on any other HOST stays unset (https is still required there)', () => {
    for (const host of ['0.0.0.0', '::', '10.0.0.7', 'tai.internal', '127.0.0.2']) {
      const c = loadConfig({ HOST: host });
      expect([c.publicBaseUrl, c.publicBaseUrlDefaulted]).toEqual([null, false]);
    }
  });

  it('a value that is set is kept as it is, on loopback too', () => {
    const c = loadConfig({ HOST: '127.0.0.1', INTERACTIONS_PUBLIC_BASE_URL: 'https://tai.example' });
    expect([c.publicBaseUrl, c.publicBaseUrlDefaulted]).toEqual(['https://tai.example', false]);
  });

  it.each([
    'http://example.com',
    'http://10.0.0.1:4000',
    'ftp://x.example',
    'ws://localhost:4000',
    'https://x.example/path',
    'https://x.example/hooks/',
    'https://x.example/?a=1',
    'https://x.example?',
    'https://x.example/#frag',
    'https://user:pw@x.example',
    'https://user@x.example',
    'garbage',
    'https://',
    'https://x .example',
    'x.example',
    'https://999.999.999.999',
  ])('refuses %j', (raw) => {
    failure({ INTERACTIONS_PUBLIC_BASE_URL: raw }, 'INTERACTIONS_PUBLIC_BASE_URL');
  });

  it('does not echo the value', () => {
    const err = failure(
      { INTERACTIONS_PUBLIC_BASE_URL: 'https://admin:s3cr3tpass@x.example' },
      'INTERACTIONS_PUBLIC_BASE_URL',
    );
    expect(err.message).not.toContain('s3cr3tpass');
  });
});

describe('ACCESS_CONTROL_ENABLE', () => {
  it.each([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['yes', true],
    ['Yes', true],
    ['false', false],
    ['False', false],
    ['0', false],
    ['no', false],
    ['NO', false],
  ])('reads %j as %s', (raw, value) => {
    expect(loadConfig({ ACCESS_CONTROL_ENABLE: raw }).accessControl).toBe(value);
  });

  it.each(['', 'maybe', 'on', 'off', '2', 'y'])('refuses %j', (raw) => {
    failure({ ACCESS_CONTROL_ENABLE: raw }, 'ACCESS_CONTROL_ENABLE');
  });
});

describe('LOG_LEVEL', () => {
  it.each(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])('accepts %s', (level) => {
    expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
  });

  it('normalizes case', () => {
    expect(loadConfig({ LOG_LEVEL: 'WARN' }).logLevel).toBe('warn');
  });

  it.each(['', 'verbose', 'warning', '30'])('refuses %j', (raw) => {
    failure({ LOG_LEVEL: raw }, 'LOG_LEVEL');
  });
});

describe('INTERACTIONS_API_KEYS', () => {
  it('parses principals, hashing plaintext keys and dropping them', () => {
    const c = loadConfig({
      INTERACTIONS_API_KEYS: JSON.stringify([
        { id: 'ops', key: SECRET, roles: ['operator'] },
        {
          id: 'bot',
          keySha256: sha('another-secret-key-xyz').toUpperCase(),
          roles: ['agent'],
          restricted: true,
        },
      ]),
    });
    expect(c.principals).toEqual([
      { id: 'ops', keySha256: sha(SECRET), roles: ['operator'], restricted: false },
      { id: 'bot', keySha256: sha('another-secret-key-xyz'), roles: ['agent'], restricted: true },
    ]);
    expect(JSON.stringify(c)).not.toContain(SECRET);
  });

  it('accepts an empty array', () => {
    expect(loadConfig({ INTERACTIONS_API_KEYS: '[]' }).principals).toEqual([]);
  });

  it.each([
    ['not JSON', `[{"id": "a", "key": "${SECRET}"`],
    ['the empty string', ''],
    ['not an array', JSON.stringify({ id: 'a', key: SECRET, roles: ['agent'] })],
    ['a short key', JSON.stringify([{ id: 'a', key: 'short-s3cret', roles: ['agent'] }])],
    ['an unknown role', JSON.stringify([{ id: 'a', key: SECRET, roles: ['root'] }])],
    ['no roles', JSON.stringify([{ id: 'a', key: SECRET, roles: [] }])],
    ['a blank id', JSON.stringify([{ id: '  ', key: SECRET, roles: ['agent'] }])],
    [
      'both key and hash',
      JSON.stringify([{ id: 'a', key: SECRET, keySha256: sha(SECRET), roles: ['agent'] }]),
    ],
    ['a duplicate key', JSON.stringify([1, 2].map((i) => ({ id: `p${i}`, key: SECRET, roles: ['agent'] })))],
  ])('refuses %s without echoing the key', (_what, raw) => {
    const err = failure({ INTERACTIONS_API_KEYS: raw }, 'INTERACTIONS_API_KEYS');
    expect(err.message).not.toContain(SECRET);
    expect(err.message).not.toContain('short-s3cret');
  });

  it('names the index and field at fault', () => {
    const err = failure(
      {
        INTERACTIONS_API_KEYS: JSON.stringify([
          { id: 'a', key: SECRET, roles: ['agent'] },
          { id: 'b', key: `${SECRET}-2`, roles: ['agent', 'wizard'] },
        ]),
      },
      'INTERACTIONS_API_KEYS',
    );
    expect(err.message).toContain('[1].roles[1]');
  });

  it('refuses both the variable and the file', () => {
    const file = tmpFile('both.json', '[]');
    const err = failure(
      { INTERACTIONS_API_KEYS: '[]', INTERACTIONS_API_KEYS_FILE: file },
      'INTERACTIONS_API_KEYS',
    );
    expect(err.message).toContain('INTERACTIONS_API_KEYS_FILE');
  });
});

describe('INTERACTIONS_API_KEYS_FILE', () => {
  it('reads principals from a file', () => {
    const file = tmpFile(
      'keys.json',
      JSON.stringify([{ id: 'ops', key: SECRET, roles: ['operator', 'agent'] }]),
    );
    const c = loadConfig({ INTERACTIONS_API_KEYS_FILE: file });
    expect(c.principals).toEqual([
      { id: 'ops', keySha256: sha(SECRET), roles: ['operator', 'agent'], restricted: false },
    ]);
  });

  it('treats the empty string as unset', () => {
    expect(loadConfig({ INTERACTIONS_API_KEYS_FILE: '' }).principals).toEqual([]);
  });

  it('uses the reader it is given', () => {
    const seen: string[] = [];
    const c = loadConfig({ INTERACTIONS_API_KEYS_FILE: '/virtual/keys.json' }, (p) => {
      seen.push(p);
      return JSON.stringify([{ id: 'x', keySha256: sha(SECRET), roles: ['admin'] }]);
    });
    expect(seen).toEqual(['/virtual/keys.json']);
    expect(c.principals[0]?.id).toBe('x');
  });

  it('refuses a missing file, naming the variable', () => {
    const err = failure(
      { INTERACTIONS_API_KEYS_FILE: path.join(tmp, 'missing.json') },
      'INTERACTIONS_API_KEYS_FILE',
    );
    expect(err.message).toContain('ENOENT');
  });

  it('refuses invalid content without echoing the key', () => {
    const file = tmpFile('bad-keys.json', `[{"id": "a", "key": "${SECRET}", "roles": ["agent"],}]`);
    const err = failure({ INTERACTIONS_API_KEYS_FILE: file }, 'INTERACTIONS_API_KEYS_FILE');
    expect(err.message).not.toContain(SECRET);
    const file2 = tmpFile('bad-keys2.json', JSON.stringify([{ id: 'a', key: SECRET, roles: 'agent' }]));
    const err2 = failure({ INTERACTIONS_API_KEYS_FILE: file2 }, 'INTERACTIONS_API_KEYS_FILE');
    expect(err2.message).toContain('[0].roles');
    expect(err2.message).not.toContain(SECRET);
  });
});

describe('INTERACTIONS_ACCESS_POLICY_FILE', () => {
  it('reads a JSON policy over the default', () => {
    const file = tmpFile(
      'policy.json',
      JSON.stringify({ doors: { graphql: 'public', callback: 'authenticated' } }),
    );
    expect(loadConfig({ INTERACTIONS_ACCESS_POLICY_FILE: file }).doorPolicy).toEqual({
      ...DEFAULT_DOOR_POLICY,
      graphql: 'public',
      callback: 'authenticated',
    });
  });

  it('reads a YAML policy (.yaml and .yml)', () => {
    const yaml = 'doors:\n  inbox: authenticated\n  stream: public\n';
    for (const name of ['policy.yaml', 'policy.YML']) {
      const file = tmpFile(name, yaml);
      expect(loadConfig({ INTERACTIONS_ACCESS_POLICY_FILE: file }).doorPolicy).toEqual({
        ...DEFAULT_DOOR_POLICY,
        inbox: 'authenticated',
        stream: 'public',
      });
    }
  });

  it('parses other extensions as JSON', () => {
    const file = tmpFile('policy.conf', 'doors:\n  inbox: authenticated\n');
    const err = failure({ INTERACTIONS_ACCESS_POLICY_FILE: file }, 'INTERACTIONS_ACCESS_POLICY_FILE');
    expect(err.message).toContain('JSON');
  });

  it('treats the empty string as unset', () => {
    expect(loadConfig({ INTERACTIONS_ACCESS_POLICY_FILE: '' }).doorPolicy).toEqual(DEFAULT_DOOR_POLICY);
  });

  it.each([
    ['an unknown door', { doors: { admin: 'public' } }, 'admin'],
    ['an unknown value', { doors: { graphql: 'open' } }, 'open'],
    ['no doors object', { graphql: 'public' }, 'graphql'],
    ['a closed health door', { doors: { health: 'authenticated' } }, 'health'],
  ])('refuses %s, naming it', (_what, doc, named) => {
    const file = tmpFile('bad-policy.json', JSON.stringify(doc));
    const err = failure({ INTERACTIONS_ACCESS_POLICY_FILE: file }, 'INTERACTIONS_ACCESS_POLICY_FILE');
    expect(err.message).toContain(named);
  });

  it('refuses broken YAML on one line', () => {
    const file = tmpFile('broken.yaml', 'doors:\n  graphql: [public\n  stream: x\n');
    failure({ INTERACTIONS_ACCESS_POLICY_FILE: file }, 'INTERACTIONS_ACCESS_POLICY_FILE');
  });

  it('refuses a missing file', () => {
    failure(
      { INTERACTIONS_ACCESS_POLICY_FILE: path.join(tmp, 'nope.yaml') },
      'INTERACTIONS_ACCESS_POLICY_FILE',
    );
  });
});

describe('configWarnings', () => {
  const keys = JSON.stringify([{ id: 'a', key: SECRET, roles: ['agent'] }]);
  const redis = 'redis://127.0.0.1:6379';

  it('warns when instances on one Redis would each mint a different admin key', () => {
    const [warning, ...rest] = configWarnings(loadConfig({ INTERACTIONS_REDIS_URL: redis }));
    expect(rest).toEqual([]);
    expect(warning).toMatch(/^INTERACTIONS_REDIS_URL is set but no API keys are configured/);
    expect(warning).toContain('INTERACTIONS_API_KEYS');
    expect(warning).not.toMatch(/[\r\n]/);
  });

  it('says nothing for one in-memory instance, with keys, or with access control off', () => {
    expect(configWarnings(loadConfig({}))).toEqual([]);
    expect(
      configWarnings(loadConfig({ INTERACTIONS_REDIS_URL: redis, INTERACTIONS_API_KEYS: keys })),
    ).toEqual([]);
    expect(
      configWarnings(loadConfig({ INTERACTIONS_REDIS_URL: redis, ACCESS_CONTROL_ENABLE: 'false' })),
    ).toEqual([]);
  });

  it('never repeats the Redis URL (it may hold a password)', () => {
    const url = 'redis://:hunter2hunter2@cache.example:6379';
    expect(configWarnings(loadConfig({ INTERACTIONS_REDIS_URL: url })).join(' ')).not.toContain('hunter2');
  });
});

describe('groups settings (API.md §22)', () => {
  const files: Record<string, string> = {
    '/g.yaml': '- id: payments\n  members: [alice, oidc:bob]\n',
    '/g.json': JSON.stringify([
      {
        id: 'sre',
        members: ['erin'],
        rotation: { every: '1w', startsAt: '2026-03-02T09:00:00Z', order: ['erin'] },
      },
    ]),
    '/bad.yaml': '- { id: payments, members: [] }\n',
  };
  const read = (path: string) => {
    const text = files[path];
    if (text === undefined) throw Object.assign(new Error('nope'), { code: 'ENOENT' });
    return text;
  };
  it('reads a YAML or JSON groups file and the OIDC groups claim', () => {
    expect(loadConfig({ INTERACTIONS_GROUPS_FILE: '/g.yaml' }, read).groups).toEqual([
      { id: 'payments', members: ['alice', 'oidc:bob'], rotation: null },
    ]);
    expect(loadConfig({ INTERACTIONS_GROUPS_FILE: '/g.json' }, read).groups[0]!.rotation).toMatchObject({
      every: '1w',
      order: ['erin'],
      handoverAt: '09:00',
      timeZone: 'UTC',
    });
    expect(loadConfig({ INTERACTIONS_OIDC_GROUPS_CLAIM: 'https://example.com/groups' }).oidcGroupsClaim).toBe(
      'https://example.com/groups',
    );
  });
  it('refuses an unreadable or invalid file and a bad claim name, naming the variable', () => {
    expect(() => loadConfig({ INTERACTIONS_GROUPS_FILE: '/missing.yaml' }, read)).toThrow(
      'INTERACTIONS_GROUPS_FILE: cannot read "/missing.yaml" (ENOENT)',
    );
    expect(() => loadConfig({ INTERACTIONS_GROUPS_FILE: '/bad.yaml' }, read)).toThrow(
      'INTERACTIONS_GROUPS_FILE: groups[0].members: must be a list of 1 to 1000 identities',
    );
    expect(() => loadConfig({ INTERACTIONS_OIDC_GROUPS_CLAIM: 'has space' })).toThrow(
      'INTERACTIONS_OIDC_GROUPS_CLAIM: expected a claim name, got "has space"',
    );
  });
});
