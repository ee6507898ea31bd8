// A local fake of Discord's REST API on loopback, speaking its wire format: `/api/v10/…` routes,
// `Authorization: Bot <token>` on bot routes (401 `{message, code: 0}` otherwise), JSON bodies,
// errors as `{message, code}` with Discord's HTTP statuses. Messages over Discord's published
// component limits are refused with 400 (code 50035) as Discord refuses them. It records every
// call. `PATCH /applications/@me` with an interactions endpoint URL is checked the way Discord
// checks it: a signed PING must be answered PONG, a badly signed one 401.

import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DiscordCall {
  method: string;
  /** The path after `/api/v10`. */
  path: string;
  auth: string | null;
  body: Record<string, unknown>;
}

export interface FakeDiscord {
  /** The `apiUrl` to configure (ends with `/api/v10`). */
  apiUrl: string;
  /** The application's key pair: `publicKey` (hex) goes in the config, `signer` signs interactions. */
  publicKey: string;
  signer: InteractionSigner;
  calls: DiscordCall[];
  callsTo(method: string, pathPattern: RegExp): DiscordCall[];
  waitFor(method: string, pathPattern: RegExp, pred?: (c: DiscordCall) => boolean): Promise<DiscordCall>;
  /** The next bot call answers this status and Discord error. */
  failNext(status: number, code: number, message: string): void;
  close(): Promise<void>;
}

export interface InteractionSigner {
  /** Headers Discord sends with `body`, signed at `timestamp` (seconds; now unless told). */
  headers(body: string | Buffer, timestamp?: number): Record<string, string>;
}

/** A fresh Ed25519 key pair as Discord gives an application: the public key in hex. */
export function interactionKeys(): { publicKey: string; signer: InteractionSigner } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x!;
  return { publicKey: Buffer.from(x, 'base64url').toString('hex'), signer: signerOf(privateKey) };
}

function signerOf(privateKey: KeyObject): InteractionSigner {
  return {
    headers(body, timestamp = Math.floor(Date.now() / 1000)) {
      const ts = String(timestamp);
      const signed = Buffer.concat([Buffer.from(ts), Buffer.isBuffer(body) ? body : Buffer.from(body)]);
      return {
        'content-type': 'application/json',
        'x-signature-timestamp': ts,
        'x-signature-ed25519': sign(null, signed, privateKey).toString('hex'),
      };
    },
  };
}

// ---- Discord's limits on what a bot sends ----------------------------------------------------

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const len = (s: unknown) => (typeof s === 'string' ? [...s].length : -1);

/** The first reason Discord would refuse these message components, or null. */
export function componentsProblem(rows: unknown): string | null {
  if (rows === undefined) return null;
  if (!Array.isArray(rows) || rows.length > 5) return 'components: at most 5 action rows';
  for (const [r, row] of rows.entries()) {
    if (!isObj(row) || row.type !== 1 || !Array.isArray(row.components))
      return `components.${r}: not an action row`;
    const items = row.components as unknown[];
    if (items.length < 1 || items.length > 5) return `components.${r}: 1 to 5 components`;
    for (const [c, item] of items.entries()) {
      const at = `components.${r}.components.${c}`;
      if (!isObj(item)) return `${at}: not a component`;
      if (item.type === 2) {
        if (len(item.label) < 1 || len(item.label) > 80) return `${at}.label: 1 to 80 characters`;
        if (item.style === 5) {
          if (len(item.url) < 1 || len(item.url) > 512 || item.custom_id !== undefined)
            return `${at}.url: invalid`;
        } else if (len(item.custom_id) < 1 || len(item.custom_id) > 100) return `${at}.custom_id: 1 to 100`;
      } else if (item.type === 3) {
        if (items.length !== 1) return `${at}: a select fills its row`;
        if (len(item.custom_id) < 1 || len(item.custom_id) > 100) return `${at}.custom_id: 1 to 100`;
        const options = item.options;
        if (!Array.isArray(options) || options.length < 1 || options.length > 25)
          return `${at}.options: 1 to 25`;
        for (const o of options) {
          if (!isObj(o) || len(o.label) < 1 || len(o.label) > 100 || len(o.value) < 1 || len(o.value) > 100) {
            return `${at}.options: label and value 1 to 100 characters`;
          }
        }
        if (item.placeholder !== undefined && len(item.placeholder) > 150)
          return `${at}.placeholder: at most 150`;
      } else return `${at}: not a message component`;
    }
  }
  return null;
}

/** The first reason Discord would refuse this modal (an interaction response of type 9), or null. */
export function modalProblem(modal: unknown): string | null {
  if (!isObj(modal)) return 'modal: not an object';
  if (len(modal.title) < 1 || len(modal.title) > 45) return 'title: 1 to 45 characters';
  if (len(modal.custom_id) < 1 || len(modal.custom_id) > 100) return 'custom_id: 1 to 100';
  const rows = modal.components;
  if (!Array.isArray(rows) || rows.length < 1 || rows.length > 5) return 'components: 1 to 5 rows';
  for (const row of rows) {
    if (!isObj(row) || row.type !== 1 || !Array.isArray(row.components) || row.components.length !== 1) {
      return 'components: one text input per row';
    }
    const input = row.components[0] as Obj;
    if (input.type !== 4 || len(input.custom_id) < 1 || len(input.custom_id) > 100)
      return 'text input: invalid';
    if (len(input.label) < 1 || len(input.label) > 45) return 'text input label: 1 to 45 characters';
    if (typeof input.max_length === 'number' && input.max_length > 4000)
      return 'text input max_length: at most 4000';
    if (input.placeholder !== undefined && len(input.placeholder) > 100)
      return 'text input placeholder: at most 100';
  }
  return null;
}

function messageProblem(body: Obj): string | null {
  if (body.content !== undefined && len(body.content) > 2000) return 'content: at most 2000 characters';
  return componentsProblem(body.components);
}

/**
 * The first reason Discord would refuse a reply's `message_reference`, or null: the referenced
 * message must be in the channel posted to and, unless `fail_if_not_exists` is false, exist.
 */
function referenceProblem(ref: unknown, channel: string, posted: ReadonlySet<string>): string | null {
  if (ref === undefined) return null;
  if (!isObj(ref) || typeof ref.message_id !== 'string') return 'message_reference: invalid';
  if (ref.channel_id !== undefined && ref.channel_id !== channel)
    return 'message_reference: Cannot reply to a message in another channel';
  if (ref.fail_if_not_exists !== false && !posted.has(`${channel}/${ref.message_id}`))
    return 'message_reference: Unknown message';
  return null;
}

// ---- The server ------------------------------------------------------------------------------

const BOT_ROUTE = /^\/(channels|applications)\//;

export async function startFakeDiscord(token: string): Promise<FakeDiscord> {
  const { publicKey, signer } = interactionKeys();
  const calls: DiscordCall[] = [];
  const failures: { status: number; code: number; message: string }[] = [];
  const waiters: { test: (c: DiscordCall) => boolean; resolve(c: DiscordCall): void }[] = [];
  let seq = 1_100_000_000_000_000_000n;
  /** `<channel>/<message>` of every message posted, which a reply may reference. */
  const posted = new Set<string>();

  function record(call: DiscordCall): void {
    calls.push(call);
    for (const w of [...waiters]) {
      if (w.test(call)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(call);
      }
    }
  }

  /** Discord calls the endpoint twice before saving it: a signed PING (PONG expected), a forged one (401 expected). */
  async function endpointVerified(url: string): Promise<boolean> {
    const ping = JSON.stringify({ id: '1', application_id: '1', type: 1, token: 'ping', version: 1 });
    try {
      const good = await fetch(url, { method: 'POST', headers: signer.headers(ping), body: ping });
      const pong = (await good.json().catch(() => null)) as { type?: unknown } | null;
      const forged = await fetch(url, {
        method: 'POST',
        headers: { ...signer.headers(ping), 'x-signature-ed25519': '0'.repeat(128) },
        body: ping,
      });
      await forged.arrayBuffer();
      return good.status === 200 && pong?.type === 1 && forged.status === 401;
    } catch {
      return false;
    }
  }

  async function answer(
    method: string,
    path: string,
    auth: string | null,
    body: Obj,
  ): Promise<[number, unknown]> {
    if (BOT_ROUTE.test(path)) {
      if (auth !== `Bot ${token}`) return [401, { message: '401: Unauthorized', code: 0 }];
      const failure = failures.shift();
      if (failure) return [failure.status, { message: failure.message, code: failure.code }];
    }
    const post = /^\/channels\/(\d+)\/messages$/.exec(path);
    const edit = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path);
    if (method === 'POST' && post) {
      const problem = messageProblem(body) ?? referenceProblem(body.message_reference, post[1]!, posted);
      if (problem) return [400, { message: 'Invalid Form Body', code: 50035, errors: problem }];
      seq += 1n;
      posted.add(`${post[1]}/${seq}`);
      return [200, { id: String(seq), channel_id: post[1], ...body }];
    }
    if (method === 'PATCH' && edit) {
      const problem = messageProblem(body);
      if (problem) return [400, { message: 'Invalid Form Body', code: 50035, errors: problem }];
      return [200, { id: edit[2], channel_id: edit[1], ...body }];
    }
    if (method === 'PATCH' && path === '/applications/@me') {
      const url = body.interactions_endpoint_url;
      if (typeof url !== 'string' || !(await endpointVerified(url))) {
        return [
          400,
          {
            message: 'Invalid Form Body',
            code: 50035,
            errors: {
              interactions_endpoint_url: 'The specified interactions endpoint url could not be verified.',
            },
          },
        ];
      }
      return [200, { id: '1', interactions_endpoint_url: url }];
    }
    if (method === 'POST' && /^\/interactions\/\d+\/[^/]+\/callback$/.test(path)) return [204, null];
    if (method === 'PATCH' && /^\/webhooks\/\d+\/[^/]+\/messages\/@original$/.test(path)) {
      const problem = messageProblem(body);
      if (problem) return [400, { message: 'Invalid Form Body', code: 50035, errors: problem }];
      return [200, { id: '2', ...body }];
    }
    if (method === 'POST' && /^\/webhooks\/\d+\/[^/]+$/.test(path)) return [200, { id: '3', ...body }];
    return [404, { message: '404: Not Found', code: 0 }];
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '').replace(/^\/api\/v10/, '').split('?')[0]!;
      const method = req.method ?? 'GET';
      let body: Obj = {};
      try {
        body = raw ? (JSON.parse(raw) as Obj) : {};
      } catch {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end('{"message":"400: Bad Request","code":0}');
        return;
      }
      const auth = typeof req.headers.authorization === 'string' ? req.headers.authorization : null;
      const call = { method, path, auth, body };
      void answer(method, path, auth, body).then(([status, reply]) => {
        record(call);
        if (status === 204) res.writeHead(204).end();
        else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const matches = (method: string, pattern: RegExp) => (c: DiscordCall) =>
    c.method === method && pattern.test(c.path);
  return {
    apiUrl: `${base}/api/v10`,
    publicKey,
    signer,
    calls,
    callsTo: (method, pattern) => calls.filter(matches(method, pattern)),
    waitFor: (method, pattern, pred = () => true) => {
      const test = (c: DiscordCall) => matches(method, pattern)(c) && pred(c);
      const found = calls.find(test);
      if (found) return Promise.resolve(found);
      return new Promise<DiscordCall>((resolve) => waiters.push({ test, resolve }));
    },
    failNext: (status, code, message) => {
      failures.push({ status, code, message });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
