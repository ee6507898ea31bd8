// Twilio's REST API through plain `fetch` (the `twilio` package fixes its API host): HTTP basic
// auth with the account SID and auth token, looked up when used. Errors name the HTTP status and
// Twilio's error code, never a credential or a phone number. Answers are read bounded
// (../response-body.ts): a resource is a few KiB, anything larger is not Twilio's.
import { requestFailure } from '../failure-cause.ts';
import { cappedJson, discardBody } from '../response-body.ts';
import type { ChannelContext } from '../types.ts';

/** How long one REST call may take before it counts as failed. */
export const TWILIO_TIMEOUT_MS = 10_000;

export interface TwilioRest {
  /** The account SID, for the Messages resource's path. */
  accountSid(): string;
  /** POST a form (URLSearchParams) or JSON body; returns the created resource's `sid`. */
  create(what: string, url: string, body: URLSearchParams | object): Promise<string>;
  /** POST a form to an existing resource (an update); Twilio answers 200 with it. */
  update(what: string, url: string, body: URLSearchParams): Promise<void>;
  /** GET a resource or list as JSON. */
  read(what: string, url: string): Promise<Record<string, unknown>>;
  /** DELETE a resource; one already gone (404) counts as deleted. */
  remove(what: string, url: string): Promise<void>;
}

export function createTwilioRest(ctx: ChannelContext, sidEnv: string, tokenEnv: string): TwilioRest {
  function credentials(): { sid: string; auth: string } {
    const sid = ctx.secret(sidEnv);
    const token = ctx.secret(tokenEnv);
    if (!sid) throw new Error(`the Twilio account SID (${sidEnv}) is not set`);
    if (!token) throw new Error(`the Twilio auth token (${tokenEnv}) is not set`);
    return { sid, auth: `Basic ${Buffer.from(`${sid}:${token}`).toString('base64')}` };
  }

  async function send(what: string, url: string, init: RequestInit): Promise<Response> {
    const { auth } = credentials();
    try {
      return await ctx.fetch(url, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), authorization: auth },
        redirect: 'manual',
        signal: AbortSignal.timeout(TWILIO_TIMEOUT_MS),
      });
    } catch (err) {
      throw new Error(`twilio ${what} failed: ${requestFailure(err)}`);
    }
  }

  return {
    accountSid: () => credentials().sid,

    async create(what, url, body) {
      const form = body instanceof URLSearchParams;
      const res = await send(what, url, {
        method: 'POST',
        headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
        body: form ? body.toString() : JSON.stringify(body),
      });
      const json = (await cappedJson(res)) as { sid?: unknown; code?: unknown } | null;
      if (res.status < 200 || res.status > 299) {
        const code = typeof json?.code === 'number' ? `, code ${json.code}` : '';
        throw new Error(`twilio ${what} failed: HTTP ${res.status}${code}`);
      }
      if (typeof json?.sid !== 'string') throw new Error(`twilio ${what} returned no sid`);
      return json.sid;
    },

    async update(what, url, body) {
      await this.create(what, url, body);
    },

    async read(what, url) {
      const res = await send(what, url, { method: 'GET' });
      const json = (await cappedJson(res)) as Record<string, unknown> | null;
      if (res.status !== 200 || json === null) throw new Error(`twilio ${what} failed: HTTP ${res.status}`);
      return json;
    },

    async remove(what, url) {
      const res = await send(what, url, { method: 'DELETE' });
      await discardBody(res);
      if (res.status !== 404 && (res.status < 200 || res.status > 299)) {
        throw new Error(`twilio ${what} failed: HTTP ${res.status}`);
      }
    },
  };
}
