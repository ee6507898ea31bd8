// A real OpenID provider for the sign-in tests: oidc-provider (a certified implementation) on a
// loopback port, with one confidential client and accounts the test names. Its development
// login and consent pages are the provider's own (any login name, any password); `signInVia`
// walks them with plain HTTP and a cookie jar, as a browser would, for the tests that need no
// Chromium.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface Account {
  name?: string;
  email?: string;
  roles?: string | string[];
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The accounts by subject; tests may add more. */
  accounts: Map<string, Account>;
  close(): Promise<void>;
}

export async function startOidcProvider(o: {
  redirectUris: string[];
  accounts?: Record<string, Account>;
}): Promise<TestProvider> {
  const http: Server = createServer();
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const accounts = new Map(Object.entries(o.accounts ?? {}));
  const clientId = 'tai-inbox';
  const clientSecret = 'test-client-secret-0123456789abcdef';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: o.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    cookies: { keys: ['test-cookie-key-0123456789'] },
    // The roles ride with the profile, as many providers configure a groups or roles claim.
    claims: { openid: ['sub'], profile: ['name', 'roles'], email: ['email'] },
    // Scope claims in the ID token itself (the relying party reads no userinfo).
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    async findAccount(_ctx: unknown, sub: string) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        async claims() {
          return { sub, ...account };
        },
      };
    },
  });
  // The provider's own warnings about development-only settings are expected here.
  provider.on('server_error', (_ctx: unknown, err: unknown) => console.error('oidc-provider', err));
  http.on('request', provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** A browser's cookie jar, per origin (enough for loopback tests: no domains, every path). */
export class CookieJar {
  readonly #jar = new Map<string, Map<string, string>>();

  header(url: string): string {
    const cookies = this.#jar.get(new URL(url).host);
    return cookies ? [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') : '';
  }

  take(url: string, response: Response): void {
    const host = new URL(url).host;
    const cookies = this.#jar.get(host) ?? new Map<string, string>();
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=.*1970/i.test(a));
      if (expired || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
    this.#jar.set(host, cookies);
  }

  get(url: string, name: string): string | undefined {
    return this.#jar.get(new URL(url).host)?.get(name);
  }

  set(url: string, name: string, value: string): void {
    const host = new URL(url).host;
    const cookies = this.#jar.get(host) ?? new Map<string, string>();
    cookies.set(name, value);
    this.#jar.set(host, cookies);
  }
}

async function visit(jar: CookieJar, url: string, init: RequestInit = {}): Promise<Response> {
  const cookie = jar.header(url);
  const headers = new Headers(init.headers);
  if (cookie) headers.set('cookie', cookie);
  const response = await fetch(url, { ...init, headers, redirect: 'manual' });
  jar.take(url, response);
  return response;
}

/**
 * Starts a login at `serverUrl`/auth/login and signs in at the provider as `sub`, stopping at the
 * redirect back to our callback: resolves with that callback URL (the test decides whether to
 * follow it, tamper with it, or replay it).
 */
export async function signInVia(jar: CookieJar, serverUrl: string, sub: string): Promise<string> {
  let url = `${serverUrl}/auth/login`;
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(`${serverUrl}/auth/callback`)) return url;
    const page = new URL(url);
    if (page.pathname.startsWith('/interaction/')) {
      const html = await (await visit(jar, url)).text();
      const prompt = /name="prompt" value="(login|consent)"/.exec(html)?.[1];
      if (!prompt) throw new Error(`unexpected provider page: ${html.slice(0, 300)}`);
      const body = new URLSearchParams(
        prompt === 'login' ? { prompt, login: sub, password: 'any' } : { prompt },
      );
      const submitted = await visit(jar, url, { method: 'POST', body });
      url = new URL(submitted.headers.get('location') ?? '', url).href;
      continue;
    }
    const response = await visit(jar, url);
    const location = response.headers.get('location');
    if (!location)
      throw new Error(
        `no redirect from ${url} (${response.status}): ${(await response.text()).slice(0, 300)}`,
      );
    url = new URL(location, url).href;
  }
  throw new Error('too many redirects');
}

/** Follows our callback with the jar's cookies; resolves with the response (a 303 to / on success). */
export async function finishSignIn(jar: CookieJar, callbackUrl: string): Promise<Response> {
  return await visit(jar, callbackUrl);
}
