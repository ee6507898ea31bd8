// A local fake of the Telegram Bot API on loopback: `POST /bot{token}/{method}` with a JSON (or
// form-encoded) body, answered like Telegram (`{ok:true,result}` or `{ok:false,error_code,description}`).
// It refuses what Telegram refuses (text over 4,096 characters once parsed, bad entities, button
// data over 64 bytes, notices over 200 characters: htmlProblem, markupProblem), records every call
// and can refuse the next call to a method.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TelegramCall {
  method: string;
  token: string;
  args: Record<string, unknown>;
  /** What the fake answered (`result` of a successful call), e.g. the sent message. */
  result?: unknown;
}

export interface FakeTelegram {
  /** The `apiRoot` to configure. */
  apiRoot: string;
  calls: TelegramCall[];
  callsTo(method: string): TelegramCall[];
  /** Resolves with the first call (already recorded or not) to `method` that `pred` accepts. */
  waitFor(method: string, pred?: (c: TelegramCall) => boolean): Promise<TelegramCall>;
  /** The next call to `method` answers `{ok:false, error_code, description}`. */
  failNext(method: string, code: number, description: string): void;
  close(): Promise<void>;
}

function parseArgs(body: string, contentType: string | undefined): Record<string, unknown> {
  if (contentType?.startsWith('application/json')) return JSON.parse(body || '{}') as Record<string, unknown>;
  return Object.fromEntries(new URLSearchParams(body));
}

/**
 * What Telegram would refuse in an HTML-mode text: a tag other than the few we send, a stray `<` or
 * `&`, or more than 4,096 characters once tags and entities are parsed.
 */
export function htmlProblem(text: string, parseMode: unknown): string | null {
  if (parseMode !== 'HTML') return text.length > 4096 ? 'Bad Request: message is too long' : null;
  // Telegram's HTML mode also takes <pre> and <code> (an APPROVAL's arguments).
  const withoutTags = text.replace(/<\/?(?:i|b|pre|code)>|<a href="[^"<>]*">|<\/a>/g, '');
  if (/[<>]/.test(withoutTags) || /&(?!(?:amp|lt|gt|quot);)/.test(withoutTags)) {
    return "Bad Request: can't parse entities";
  }
  const visible = withoutTags.replace(/&(?:amp|lt|gt|quot);/g, '&');
  if (visible.length === 0) return 'Bad Request: message text is empty';
  return visible.length > 4096 ? 'Bad Request: message is too long' : null;
}

const BUTTON_DATA_MAX_BYTES = 64;
const NOTICE_MAX_CHARS = 200;
const PLACEHOLDER_MAX_CHARS = 64;

/**
 * What Telegram refuses in a reply_markup: a button without text, callback_data outside 1-64
 * bytes, a URL button whose URL is not http(s) or tg, a button with neither, a ForceReply
 * placeholder outside 1-64 characters.
 */
export function markupProblem(markup: unknown): string | null {
  if (markup === undefined) return null;
  const m = (typeof markup === 'string' ? JSON.parse(markup) : markup) as Record<string, unknown>;
  if ('force_reply' in m) {
    const p = m.input_field_placeholder;
    if (p !== undefined && (typeof p !== 'string' || p.length < 1 || p.length > PLACEHOLDER_MAX_CHARS)) {
      return 'Bad Request: INPUT_FIELD_PLACEHOLDER_INVALID';
    }
    return null;
  }
  const rows = m.inline_keyboard;
  if (!Array.isArray(rows)) return "Bad Request: can't parse reply keyboard markup JSON object";
  for (const row of rows as Record<string, unknown>[][]) {
    for (const b of row) {
      if (typeof b.text !== 'string' || b.text.trim() === '') return 'Bad Request: BUTTON_TEXT_INVALID';
      if (typeof b.callback_data === 'string') {
        const n = Buffer.byteLength(b.callback_data);
        if (n < 1 || n > BUTTON_DATA_MAX_BYTES) return 'Bad Request: BUTTON_DATA_INVALID';
      } else if (typeof b.url === 'string') {
        if (!/^(https?|tg):\/\/\S+$/.test(b.url)) return 'Bad Request: BUTTON_URL_INVALID';
      } else return 'Bad Request: BUTTON_TYPE_INVALID';
    }
  }
  return null;
}

export async function startFakeTelegram(token: string): Promise<FakeTelegram> {
  const calls: TelegramCall[] = [];
  const failures = new Map<string, { code: number; description: string }>();
  const waiters: { method: string; pred: (c: TelegramCall) => boolean; resolve(c: TelegramCall): void }[] =
    [];
  let messageId = 100;

  function record(call: TelegramCall): void {
    calls.push(call);
    for (const w of [...waiters]) {
      if (w.method === call.method && w.pred(call)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(call);
      }
    }
  }

  function result(method: string, args: Record<string, unknown>): Record<string, unknown> {
    const failure = failures.get(method);
    if (failure !== undefined) {
      failures.delete(method);
      return { ok: false, error_code: failure.code, description: failure.description };
    }
    switch (method) {
      case 'sendMessage': {
        const chat = String(args.chat_id ?? '');
        if (chat === '') return { ok: false, error_code: 400, description: 'Bad Request: chat not found' };
        const text = String(args.text ?? '');
        const problem = htmlProblem(text, args.parse_mode) ?? markupProblem(args.reply_markup);
        if (problem) return { ok: false, error_code: 400, description: problem };
        // A public @username resolves to the chat's numeric id, as Telegram does.
        const id = chat.startsWith('@') ? -1001234567890 : Number(chat);
        return {
          ok: true,
          result: { message_id: ++messageId, date: 1_800_000_000, chat: { id, type: 'private' }, text },
        };
      }
      case 'editMessageText': {
        const problem =
          htmlProblem(String(args.text ?? ''), args.parse_mode) ?? markupProblem(args.reply_markup);
        if (problem) return { ok: false, error_code: 400, description: problem };
        return {
          ok: true,
          result: { message_id: args.message_id, chat: { id: Number(args.chat_id) }, text: args.text },
        };
      }
      case 'answerCallbackQuery':
        if (typeof args.text === 'string' && args.text.length > NOTICE_MAX_CHARS) {
          return { ok: false, error_code: 400, description: 'Bad Request: MESSAGE_TOO_LONG' };
        }
        return { ok: true, result: true };
      case 'setWebhook':
        return { ok: true, result: true };
      default:
        return { ok: false, error_code: 404, description: 'Not Found: method not found' };
    }
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec((req.url ?? '').split('?')[0]!);
      const given = m ? decodeURIComponent(m[1]!) : '';
      const method = m?.[2] ?? '';
      const args = parseArgs(Buffer.concat(chunks).toString('utf8'), req.headers['content-type']);
      const reply =
        given === token ? result(method, args) : { ok: false, error_code: 401, description: 'Unauthorized' };
      record({ method, token: given, args, result: reply.result });
      res.writeHead(reply.ok ? 200 : Number(reply.error_code), { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiRoot: base,
    calls,
    callsTo: (method) => calls.filter((c) => c.method === method),
    waitFor: (method, pred = () => true) => {
      const found = calls.find((c) => c.method === method && pred(c));
      if (found) return Promise.resolve(found);
      return new Promise<TelegramCall>((resolve) => waiters.push({ method, pred, resolve }));
    },
    failNext: (method, code, description) => {
      failures.set(method, { code, description });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An update exactly as Telegram posts it to a webhook, with the secret token header. */
export function telegramRequest(
  secret: string | undefined,
  update: unknown,
  url = 'https://tai.example/api/interactions/channels/tg',
) {
  return {
    rawBody: Buffer.from(JSON.stringify(update)),
    headers: {
      'content-type': 'application/json',
      ...(secret === undefined ? {} : { 'x-telegram-bot-api-secret-token': secret }),
    },
    url,
    now: Date.now(),
  };
}

export function buttonPress(chatId: number, messageId: number, data: string, fromId = 777) {
  return {
    update_id: 1,
    callback_query: {
      id: `cq${messageId}${data}`,
      from: { id: fromId, is_bot: false, first_name: 'Ana' },
      chat_instance: '-1',
      data,
      message: { message_id: messageId, date: 1_800_000_000, chat: { id: chatId, type: 'private' } },
    },
  };
}

export function replyTo(chatId: number, messageId: number, text: string, fromId = 777) {
  return {
    update_id: 2,
    message: {
      message_id: messageId + 1000,
      date: 1_800_000_000,
      chat: { id: chatId, type: 'private' },
      from: { id: fromId, is_bot: false, first_name: 'Ana' },
      text,
      reply_to_message: { message_id: messageId, date: 1_800_000_000, chat: { id: chatId, type: 'private' } },
    },
  };
}
