// A local fake of the Twilio REST API on loopback: the Messages resource
// (`POST /2010-04-01/Accounts/{sid}/Messages.json`, form-encoded, HTTP basic auth) and the Content
// API (`POST /v1/Content`, JSON) for WhatsApp quick replies. It answers like Twilio (201 with a
// resource, or an error object with `code`), records every call and can refuse the next one.
// `twilioRequest` builds an inbound message as Twilio posts it, signed with the auth token.
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InboundRequest } from '../../../src/channels/types.ts';

export interface TwilioCall {
  resource: 'Messages' | 'Content' | 'IncomingPhoneNumbers' | 'unknown';
  method: string;
  path: string;
  query: string;
  /** `{sid}:{token}` from the basic auth header. */
  auth: string | null;
  params: Record<string, unknown>;
  /** What the fake answered (a created resource has its `sid`). */
  result?: Record<string, unknown>;
}

export interface FakeTwilio {
  /** The `apiUrl` and `contentApiUrl` to configure. */
  apiUrl: string;
  contentApiUrl: string;
  calls: TwilioCall[];
  messages(): Record<string, string>[];
  /** Resolves with the first Messages call (already recorded or not) whose params `pred` accepts. */
  waitForMessage(pred: (params: Record<string, string>) => boolean): Promise<Record<string, string>>;
  /** The number's incoming-message webhook, as `setup()` set it. */
  smsUrl(): string;
  /** Content templates made and not yet deleted. */
  contents: Set<string>;
  /** The next call to `resource` answers with this HTTP status and Twilio error code. */
  failNext(resource: 'Messages' | 'Content', status: number, code: number): void;
  close(): Promise<void>;
}

/** The one number the fake account owns, and its resource sid. */
const NUMBER_SID = `PN${'a'.repeat(32)}`;

export async function startFakeTwilio(
  accountSid: string,
  authToken: string,
  ownNumber = '+15005550006',
): Promise<FakeTwilio> {
  const calls: TwilioCall[] = [];
  const failures = new Map<string, { status: number; code: number }>();
  let seq = 0;
  const contents = new Set<string>();
  let smsUrl = '';
  const waiters: {
    pred: (p: Record<string, string>) => boolean;
    resolve(p: Record<string, string>): void;
  }[] = [];

  function record(call: TwilioCall): void {
    calls.push(call);
    if (call.resource !== 'Messages' || call.method !== 'POST') return;
    const params = call.params as Record<string, string>;
    for (const w of [...waiters]) {
      if (w.pred(params)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(params);
      }
    }
  }

  function answer(call: TwilioCall): { status: number; body: Record<string, unknown> } {
    if (call.auth !== `${accountSid}:${authToken}`) {
      return { status: 401, body: { code: 20003, message: 'Authenticate', status: 401 } };
    }
    const failure = failures.get(call.resource);
    if (failure) {
      failures.delete(call.resource);
      return {
        status: failure.status,
        body: { code: failure.code, message: 'refused', status: failure.status },
      };
    }
    if (call.resource === 'IncomingPhoneNumbers') {
      const list = call.method === 'GET';
      const wanted = new URLSearchParams(call.query).get('PhoneNumber');
      const number = { sid: NUMBER_SID, phone_number: ownNumber, sms_url: smsUrl, sms_method: 'POST' };
      if (list)
        return { status: 200, body: { incoming_phone_numbers: wanted === ownNumber ? [number] : [] } };
      if (call.path.endsWith(`/${NUMBER_SID}.json`)) {
        smsUrl = String(call.params.SmsUrl ?? smsUrl);
        return { status: 200, body: { ...number, sms_url: smsUrl } };
      }
      return { status: 404, body: { code: 20404, message: 'Not found', status: 404 } };
    }
    if (call.resource === 'Content' && call.method === 'DELETE') {
      const sid = call.path.slice('/v1/Content/'.length);
      return contents.delete(sid)
        ? { status: 204, body: {} }
        : { status: 404, body: { code: 20404, message: 'Not found', status: 404 } };
    }
    if (call.resource === 'Content') {
      contents.add(`HX${String(seq + 1).padStart(32, '0')}`);
      return { status: 201, body: { sid: `HX${String(++seq).padStart(32, '0')}`, types: call.params.types } };
    }
    if (call.resource === 'Messages') {
      const p = call.params as Record<string, string>;
      if (!p.To || !p.From)
        return {
          status: 400,
          body: { code: 21604, message: "A 'To' phone number is required.", status: 400 },
        };
      if (!p.Body && !p.ContentSid)
        return { status: 400, body: { code: 21602, message: 'Message body is required.', status: 400 } };
      if ((p.Body ?? '').length > 1600)
        return {
          status: 400,
          body: {
            code: 21617,
            message: 'The concatenated message body exceeds the 1600 character limit.',
            status: 400,
          },
        };
      return {
        status: 201,
        body: {
          sid: `SM${String(++seq).padStart(32, '0')}`,
          status: 'queued',
          to: p.To,
          from: p.From,
          body: p.Body ?? '',
        },
      };
    }
    return { status: 404, body: { code: 20404, message: 'Not found', status: 404 } };
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      const body = Buffer.concat(chunks).toString('utf8');
      const basic = req.headers.authorization?.startsWith('Basic ')
        ? Buffer.from(req.headers.authorization.slice(6), 'base64').toString('utf8')
        : null;
      const messages = new RegExp(`^/2010-04-01/Accounts/${accountSid}/Messages\\.json$`).test(path);
      const numbers = path.startsWith(`/2010-04-01/Accounts/${accountSid}/IncomingPhoneNumbers`);
      const resource = numbers
        ? 'IncomingPhoneNumbers'
        : messages
          ? 'Messages'
          : /^\/v1\/Content(\/HX\w+)?$/.test(path)
            ? 'Content'
            : 'unknown';
      const params =
        resource === 'Content'
          ? (JSON.parse(body || '{}') as Record<string, unknown>)
          : Object.fromEntries(new URLSearchParams(body));
      const query = (req.url ?? '').split('?')[1] ?? '';
      const call: TwilioCall = { resource, method: req.method ?? '', path, query, auth: basic, params };
      const reply = answer(call);
      call.result = reply.body;
      record(call);
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(reply.status === 204 ? undefined : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: base,
    contentApiUrl: base,
    calls,
    contents,
    smsUrl: () => smsUrl,
    messages: () =>
      calls.filter((c) => c.resource === 'Messages').map((c) => c.params as Record<string, string>),
    waitForMessage: (pred) => {
      const found = calls.find((c) => c.resource === 'Messages' && pred(c.params as Record<string, string>));
      if (found) return Promise.resolve(found.params as Record<string, string>);
      return new Promise((resolve) => waiters.push({ pred, resolve }));
    },
    failNext: (resource, status, code) => {
      failures.set(resource, { status, code });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Twilio's scheme, written out independently of the plugin: URL + sorted name/value pairs, HMAC-SHA1, base64. */
export function signTwilio(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, key) => acc + key + params[key], url);
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/** An inbound message as Twilio posts it to the number's webhook. */
export function twilioRequest(
  authToken: string,
  fields: Record<string, string>,
  opts: { url?: string; signature?: string } = {},
): InboundRequest {
  const url = opts.url ?? 'https://tai.example/api/interactions/channels/sms';
  const params = {
    MessageSid: 'SM0123456789abcdef0123456789abcdef',
    AccountSid: 'AC0123456789abcdef0123456789abcdef',
    To: '+15005550006',
    NumMedia: '0',
    ...fields,
  };
  return {
    rawBody: Buffer.from(new URLSearchParams(params).toString()),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': opts.signature ?? signTwilio(authToken, url, params),
    },
    url,
    now: Date.now(),
  };
}
