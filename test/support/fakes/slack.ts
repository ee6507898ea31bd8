// A local fake of the Slack Web API on loopback: it parses requests the way Slack does
// (form-encoded, nested values as JSON), checks the bot token, records every call and answers
// like Slack (`{ok:true,…}` or `{ok:false,error}` with HTTP 200). Messages and modals over Slack's
// published Block Kit limits are refused as Slack refuses them (slack-limits.ts). It also records
// posts to its `response_url`, where interactivity errors for the clicking user go.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refusal } from './slack-limits.ts';

export interface SlackCall {
  method: string;
  token: string | null;
  args: Record<string, unknown>;
}

export interface FakeSlack {
  /** The `apiUrl` to configure (ends with `/api/`). */
  apiUrl: string;
  /** A response_url for interactivity payloads. */
  responseUrl: string;
  calls: SlackCall[];
  callsTo(method: string): SlackCall[];
  /** Resolves with the first call (already recorded or not) to `method` that `pred` accepts. */
  waitFor(method: string, pred?: (c: SlackCall) => boolean): Promise<SlackCall>;
  /** The next call to `method` answers `{ok:false, error}`. */
  failNext(method: string, error: string): void;
  close(): Promise<void>;
}

const JSON_FIELDS = new Set(['blocks', 'attachments', 'view', 'metadata']);

function parseArgs(body: string, contentType: string | undefined): Record<string, unknown> {
  if (contentType?.startsWith('application/json')) return JSON.parse(body || '{}') as Record<string, unknown>;
  const args: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    args[key] = JSON_FIELDS.has(key) ? JSON.parse(value) : value;
  }
  return args;
}

export async function startFakeSlack(token: string): Promise<FakeSlack> {
  const calls: SlackCall[] = [];
  const failures = new Map<string, string>();
  const waiters: { method: string; pred: (c: SlackCall) => boolean; resolve(c: SlackCall): void }[] = [];
  let seq = 0;

  function record(call: SlackCall): void {
    calls.push(call);
    for (const w of [...waiters]) {
      if (w.method === call.method && w.pred(call)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(call);
      }
    }
  }

  function answer(method: string, args: Record<string, unknown>): Record<string, unknown> {
    const failure = failures.get(method);
    if (failure !== undefined) {
      failures.delete(method);
      return { ok: false, error: failure };
    }
    const refused = refusal(method, args);
    if (refused !== null) return refused;
    switch (method) {
      case 'chat.postMessage': {
        const channel = String(args.channel ?? '');
        if (channel === '') return { ok: false, error: 'channel_not_found' };
        // Posting to a user id lands in the app's DM with them, a D… conversation.
        const conversation = /^[UW]/.test(channel) ? `D${channel.slice(1)}` : channel;
        return {
          ok: true,
          channel: conversation,
          ts: `1700000000.${String(++seq).padStart(6, '0')}`,
          message: {},
        };
      }
      case 'chat.update':
        return { ok: true, channel: args.channel, ts: args.ts, text: args.text };
      case 'views.open':
        return args.trigger_id
          ? { ok: true, view: { id: `V${++seq}` } }
          : { ok: false, error: 'invalid_trigger_id' };
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '';
      if (path.startsWith('/response')) {
        record({
          method: 'response_url',
          token: null,
          args: JSON.parse(body || '{}') as Record<string, unknown>,
        });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        return;
      }
      const method = path.replace(/^\/api\//, '').split('?')[0]!;
      const auth = req.headers.authorization;
      const given = auth?.startsWith('Bearer ') ? auth.slice(7) : null;
      const args = parseArgs(body, req.headers['content-type']);
      record({ method, token: given, args });
      const reply = given === token ? answer(method, args) : { ok: false, error: 'invalid_auth' };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: `${base}/api/`,
    responseUrl: `${base}/response/T1/B1`,
    calls,
    callsTo: (method) => calls.filter((c) => c.method === method),
    waitFor: (method, pred = () => true) => {
      const found = calls.find((c) => c.method === method && pred(c));
      if (found) return Promise.resolve(found);
      return new Promise<SlackCall>((resolve) => waiters.push({ method, pred, resolve }));
    },
    failNext: (method, error) => {
      failures.set(method, error);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
