// The OpenID Connect relying party (API.md §19) on openid-client, a certified implementation:
// discovery from the issuer, the authorization code flow with PKCE (S256), state and nonce, and
// the ID token's signature, issuer, audience, expiry and nonce checked by the library. The
// provider's metadata is discovered at the first sign-in (not at start: a provider that is down
// must not keep the server, and the agents' keys, from working) and kept; a failed discovery is
// tried again at the next sign-in.
import * as oidc from 'openid-client';

export interface OidcClientOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Seconds each call to the provider may take. */
  timeoutSeconds?: number;
  /**
   * How to reach the provider; the app passes a fetch that reads at most a bounded response
   * (channels/response-body.ts cappedFetch), so a wrong or hostile issuer cannot hold memory.
   */
  fetch?: typeof fetch;
}

export interface LoginChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface OidcClient {
  /** Where the person signs in (a label for the button: the issuer's host). */
  readonly label: string;
  /** Fresh random state, nonce and PKCE verifier for one login. */
  newChecks(): LoginChecks;
  /** The provider's authorization URL for one login. */
  authorizationUrl(redirectUri: string, checks: LoginChecks): Promise<URL>;
  /** Redeems the callback's code; resolves with the ID token's verified claims. Throws when any check fails. */
  redeem(callbackUrl: URL, checks: LoginChecks): Promise<Record<string, unknown>>;
}

function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}

export function createOidcClient(o: OidcClientOptions): OidcClient {
  const issuer = new URL(o.issuer);
  let config: Promise<oidc.Configuration> | null = null;
  const inner = o.fetch;
  // openid-client's fetch signature differs from the DOM's only in its body type.
  const bounded = inner
    ? (url: string, options: oidc.CustomFetchOptions) => inner(url, options as RequestInit)
    : null;
  const configuration = (): Promise<oidc.Configuration> => {
    config ??= oidc
      .discovery(issuer, o.clientId, o.clientSecret, undefined, {
        timeout: o.timeoutSeconds ?? 10,
        // http:// is accepted by the settings only on a loopback host (tests, local set-ups).
        ...(isLoopbackHttp(issuer) ? { execute: [oidc.allowInsecureRequests] } : {}),
        ...(bounded ? { [oidc.customFetch]: bounded } : {}),
      })
      .then((c) => {
        // Every later call (the token endpoint, the keys) goes through the same bounded fetch.
        if (bounded) c[oidc.customFetch] = bounded;
        return c;
      })
      .catch((err: unknown) => {
        config = null;
        throw err;
      });
    return config;
  };
  return {
    label: issuer.host,
    newChecks: () => ({
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
    }),
    async authorizationUrl(redirectUri, checks) {
      const c = await configuration();
      return oidc.buildAuthorizationUrl(c, {
        redirect_uri: redirectUri,
        scope: 'openid profile email',
        response_type: 'code',
        code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: 'S256',
        state: checks.state,
        nonce: checks.nonce,
      });
    },
    async redeem(callbackUrl, checks) {
      const c = await configuration();
      const tokens = await oidc.authorizationCodeGrant(c, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new Error('the provider returned no ID token');
      return { ...claims };
    },
  };
}
