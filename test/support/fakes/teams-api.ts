// A local fake of the Microsoft side of a Teams bot, on loopback, speaking the Bot Framework's
// wire format: OpenID metadata and its key set (a test RSA key endorsed, as Microsoft's keys are,
// for more Bot Framework channels than Teams: `msteams`, `webchat`, `directline`), the
// OAuth client-credentials token endpoint, and the connector's conversation activities (send,
// update, reply to an activity it handed out), which check the access token it issued and refuse
// a message over Teams' size limit (413 MessageSizeTooBig). It also signs activities as the Bot
// Framework does: a JWT (RS256, issuer, audience = app id, `serviceurl`) in `Authorization: Bearer`.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

export const TEAMS_ISSUER = 'https://api.botframework.com';
export const TEAMS_TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
/** Teams refuses a bot message over about 100 KB, counted as its JSON encoded in UTF-16. */
export const TEAMS_MESSAGE_MAX_UTF16_BYTES = 100 * 1024;

export interface TeamsCall {
  method: string;
  path: string;
  auth: string | null;
  body: Record<string, unknown>;
}

export interface FakeTeams {
  /** `openIdMetadataUrl`, `tokenUrl` and the connector's `serviceUrl` to configure. */
  openIdMetadataUrl: string;
  tokenUrl: string;
  serviceUrl: string;
  calls: TeamsCall[];
  callsTo(method: string, pathPattern: RegExp): TeamsCall[];
  waitFor(method: string, pathPattern: RegExp, pred?: (c: TeamsCall) => boolean): Promise<TeamsCall>;
  /** A Bot Framework token for an activity (claims may be overridden; `key: 'other'` signs with a key not in the set). */
  token(
    over?: Record<string, unknown>,
    opts?: { key?: 'set' | 'other'; kid?: string; expiresIn?: number },
  ): Promise<string>;
  /** The next connector call answers this status. */
  failNext(status: number): void;
  /** How many times the key set was read. */
  keyReads(): number;
  close(): Promise<void>;
}

function replyToOf(raw: string): unknown {
  try {
    return (JSON.parse(raw) as { replyToId?: unknown }).replyToId;
  } catch {
    return undefined;
  }
}

export async function startFakeTeams(appId: string, password: string): Promise<FakeTeams> {
  // 3,072-bit: a 384-byte signature is exactly 512 base64url characters, so no character of it
  // carries padding bits, and every changed character of a token really changes the signature
  // (the channel contract suite's one-changed-byte property relies on it).
  const { privateKey, publicKey } = await generateKeyPair('RS256', {
    extractable: true,
    modulusLength: 3072,
  });
  const other = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'test-key-1', use: 'sig', alg: 'RS256' };
  const keySet = { keys: [{ ...jwk, endorsements: ['msteams', 'webchat', 'directline'] }] };
  const calls: TeamsCall[] = [];
  const waiters: { test: (c: TeamsCall) => boolean; resolve(c: TeamsCall): void }[] = [];
  const issued = new Set<string>();
  const failures: number[] = [];
  /** Activity ids the connector handed out, which a reply may name. */
  const sent = new Set<string>();
  let reads = 0;
  let seq = 0;

  function record(call: TeamsCall): void {
    calls.push(call);
    for (const w of [...waiters]) {
      if (w.test(call)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(call);
      }
    }
  }

  let base = '';
  function answer(method: string, path: string, auth: string | null, raw: string): [number, unknown] {
    if (method === 'GET' && path === '/openid') {
      return [
        200,
        {
          issuer: TEAMS_ISSUER,
          authorization_endpoint: `${base}/authorize`,
          jwks_uri: `${base}/keys`,
          id_token_signing_alg_values_supported: ['RS256'],
          token_endpoint_auth_methods_supported: ['private_key_jwt'],
        },
      ];
    }
    if (method === 'GET' && path === '/keys') {
      reads++;
      return [200, keySet];
    }
    if (method === 'POST' && path === '/token') {
      const form = new URLSearchParams(raw);
      if (
        form.get('grant_type') !== 'client_credentials' ||
        form.get('client_id') !== appId ||
        form.get('client_secret') !== password
      ) {
        return [401, { error: 'invalid_client' }];
      }
      if (form.get('scope') !== 'https://api.botframework.com/.default')
        return [400, { error: 'invalid_scope' }];
      const token = `access-${++seq}-${Math.random().toString(36).slice(2)}`;
      issued.add(token);
      return [200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token }];
    }
    const send = /^\/v3\/conversations\/([^/]+)\/activities$/.exec(path);
    const update = /^\/v3\/conversations\/([^/]+)\/activities\/([^/]+)$/.exec(path);
    if (send || update) {
      if (!auth?.startsWith('Bearer ') || !issued.has(auth.slice(7)))
        return [401, { message: 'Authorization has been denied for this request.' }];
      const failure = failures.shift();
      if (failure) return [failure, { error: { code: 'ServiceError', message: 'failed' } }];
      // A string's length counts UTF-16 code units, two bytes each.
      if (raw.length * 2 > TEAMS_MESSAGE_MAX_UTF16_BYTES)
        return [413, { error: { code: 'MessageSizeTooBig', message: 'Message size too big' } }];
      if (method === 'POST' && send) {
        const id = `1:${++seq}`;
        sent.add(id);
        return [201, { id }];
      }
      if (method === 'PUT' && update) return [200, { id: decodeURIComponent(update[2]!) }];
      // ReplyToActivity: the body's replyToId names the activity of the path, one the bot sent.
      if (method === 'POST' && update) {
        const to = decodeURIComponent(update[2]!);
        if (!sent.has(to) || replyToOf(raw) !== to)
          return [400, { error: { code: 'BadArgument', message: 'replyToId' } }];
        const id = `1:${++seq}`;
        sent.add(id);
        return [201, { id }];
      }
    }
    return [404, { message: 'not found' }];
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const method = req.method ?? 'GET';
      const path = (req.url ?? '').split('?')[0]!;
      const auth = typeof req.headers.authorization === 'string' ? req.headers.authorization : null;
      let body: Record<string, unknown> = {};
      if (req.headers['content-type']?.startsWith('application/json')) {
        try {
          body = JSON.parse(raw || '{}') as Record<string, unknown>;
        } catch {
          res.writeHead(400).end();
          return;
        }
      }
      const [status, reply] = answer(method, path, auth, raw);
      record({ method, path, auth, body });
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const matches = (method: string, pattern: RegExp) => (c: TeamsCall) =>
    c.method === method && pattern.test(c.path);
  return {
    openIdMetadataUrl: `${base}/openid`,
    tokenUrl: `${base}/token`,
    serviceUrl: `${base}/`,
    calls,
    callsTo: (method, pattern) => calls.filter(matches(method, pattern)),
    waitFor: (method, pattern, pred = () => true) => {
      const test = (c: TeamsCall) => matches(method, pattern)(c) && pred(c);
      const found = calls.find(test);
      if (found) return Promise.resolve(found);
      return new Promise<TeamsCall>((resolve) => waiters.push({ test, resolve }));
    },
    async token(over = {}, opts = {}) {
      const now = Math.floor(Date.now() / 1000);
      const claims = {
        iss: TEAMS_ISSUER,
        aud: appId,
        iat: now,
        nbf: now,
        exp: now + (opts.expiresIn ?? 3600),
        serviceurl: `${base}/`,
        ...over,
      };
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: opts.kid ?? 'test-key-1', typ: 'JWT' })
        .sign(opts.key === 'other' ? other.privateKey : privateKey);
    },
    failNext: (status) => {
      failures.push(status);
    },
    keyReads: () => reads,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
