// The sign-in settings (API.md §19): off by default, every variable checked with a one-line
// error naming it, the secret read through the variable the setting names and never echoed.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/app/config.ts';

const BASE = {
  INTERACTIONS_OIDC_ISSUER: 'https://login.example.com/realms/acme',
  INTERACTIONS_OIDC_CLIENT_ID: 'tai-inbox',
  INTERACTIONS_OIDC_CLIENT_SECRET_ENV: 'OIDC_SECRET',
  OIDC_SECRET: 's3cr3t-value-never-shown',
};

function refused(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).not.toContain('s3cr3t');
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('OIDC settings', () => {
  it('reads a full set: default roles claim, empty role map, 12 h sessions', () => {
    const c = loadConfig(BASE);
    expect(c.oidc).toEqual({
      issuer: BASE.INTERACTIONS_OIDC_ISSUER,
      clientId: 'tai-inbox',
      clientSecret: BASE.OIDC_SECRET,
      rolesClaim: 'roles',
      roleMap: {},
    });
    expect(c.sessionSeconds).toBe(43200);
  });

  it('reads the role map and the roles claim', () => {
    const c = loadConfig({
      ...BASE,
      INTERACTIONS_OIDC_ROLES_CLAIM: 'groups',
      INTERACTIONS_OIDC_ROLE_MAP: '{"ops":"operator","boss":"admin"}',
    });
    expect(c.oidc?.rolesClaim).toBe('groups');
    expect(c.oidc?.roleMap).toEqual({ ops: 'operator', boss: 'admin' });
  });

  it('allows http:// for a loopback issuer only', () => {
    expect(loadConfig({ ...BASE, INTERACTIONS_OIDC_ISSUER: 'http://127.0.0.1:9000' }).oidc?.issuer).toBe(
      'http://127.0.0.1:9000',
    );
    expect(refused({ ...BASE, INTERACTIONS_OIDC_ISSUER: 'http://login.example.com' }).message).toMatch(
      /^INTERACTIONS_OIDC_ISSUER: .*loopback|localhost/,
    );
  });

  it.each([
    [{ INTERACTIONS_OIDC_CLIENT_ID: undefined }, 'INTERACTIONS_OIDC_CLIENT_ID', /required/],
    [{ INTERACTIONS_OIDC_CLIENT_SECRET_ENV: undefined }, 'INTERACTIONS_OIDC_CLIENT_SECRET_ENV', /required/],
    [{ OIDC_SECRET: undefined }, 'INTERACTIONS_OIDC_CLIENT_SECRET_ENV', /OIDC_SECRET it names is unset/],
    [
      { INTERACTIONS_OIDC_CLIENT_SECRET_ENV: 'not a name' },
      'INTERACTIONS_OIDC_CLIENT_SECRET_ENV',
      /variable name/,
    ],
    [
      { INTERACTIONS_OIDC_CLIENT_SECRET_ENV: 'INTERACTIONS_OIDC_CLIENT_ID' },
      'INTERACTIONS_OIDC_CLIENT_SECRET_ENV',
      /a setting of its own/,
    ],
    [
      { INTERACTIONS_OIDC_ROLE_MAP: '{"x":"root"}' },
      'INTERACTIONS_OIDC_ROLE_MAP',
      /agent, operator, auditor, admin/,
    ],
    [{ INTERACTIONS_OIDC_ROLE_MAP: '[1]' }, 'INTERACTIONS_OIDC_ROLE_MAP', /JSON object/],
    [{ INTERACTIONS_OIDC_ROLE_MAP: '{' }, 'INTERACTIONS_OIDC_ROLE_MAP', /not valid JSON/],
    [{ INTERACTIONS_OIDC_ROLES_CLAIM: 'a b' }, 'INTERACTIONS_OIDC_ROLES_CLAIM', /claim name/],
    [{ INTERACTIONS_OIDC_ISSUER: 'https://x.example/?a=1' }, 'INTERACTIONS_OIDC_ISSUER', /no query/],
  ])('refuses %o naming %s', (over, variable, problem) => {
    const env = { ...BASE, ...over } as Record<string, string>;
    for (const [k, v] of Object.entries(over)) if (v === undefined) delete env[k];
    const err = refused(env);
    expect(err.variable).toBe(variable);
    expect(err.message).toMatch(problem);
  });

  it('refuses sign-in variables without an issuer', () => {
    expect(refused({ INTERACTIONS_OIDC_CLIENT_ID: 'x' }).variable).toBe('INTERACTIONS_OIDC_CLIENT_ID');
  });

  it('INTERACTIONS_SESSION_SECONDS: 60 to 2592000, at and past each limit', () => {
    expect(loadConfig({ INTERACTIONS_SESSION_SECONDS: '60' }).sessionSeconds).toBe(60);
    expect(loadConfig({ INTERACTIONS_SESSION_SECONDS: '2592000' }).sessionSeconds).toBe(2592000);
    expect(refused({ INTERACTIONS_SESSION_SECONDS: '59' }).variable).toBe('INTERACTIONS_SESSION_SECONDS');
    expect(refused({ INTERACTIONS_SESSION_SECONDS: '2592001' }).variable).toBe(
      'INTERACTIONS_SESSION_SECONDS',
    );
  });
});
