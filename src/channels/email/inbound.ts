// The email channel's inbound door (API.md §9.1): a provider's inbound webhook, checked as that
// provider signs it (inbound-auth.ts, fail closed), read as a stream up to the provider's own
// maximum with attachments dropped (stream-form.ts, stream-json.ts), read into a reply
// (reply.ts) and turned into an answer event for the question its reference names. Only the
// address the question was sent to may answer it; automatic replies (out of office) answer
// nothing; a repeat of a message (the provider's id, else the request's hash) changes nothing.
// Every outcome is a 200 the provider will not retry, except refusals (401, 400, 413, 500).
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type {
  AnswerHints,
  ChannelContext,
  ChannelQuestion,
  ChannelResponse,
  ClaimOutcome,
  InboundEvent,
  InboundRequest,
} from '../types.ts';
import { isAutoReply } from './auto-reply.ts';
import {
  basicAuthorized,
  type InboundProvider,
  MAILGUN_TOKEN_TTL_MS,
  mailgunFresh,
  mailgunSigned,
  sendgridKeyLoads,
  sendgridVerifier,
} from './inbound-auth.ts';
import { decodeText } from './mail-text.ts';
import {
  answerFromLine,
  bareAddress,
  firstLine,
  type MailFields,
  type MailReply,
  mailgunReply,
  postmarkReply,
  refOf,
  sendgridReply,
} from './reply.ts';
import { FormRefused, readForm } from './stream-form.ts';
import { JsonRefused, readJsonDropping } from './stream-json.ts';

const MB = 1024 * 1024;
/** Each provider's largest inbound message (API.md §9.1): the door reads up to it, as a stream. */
export const EMAIL_INBOUND_MAX_BYTES: Record<InboundProvider, number> = {
  mailgun: 25 * MB,
  postmark: 35 * MB,
  sendgrid: 30 * MB,
};

export interface InboundSettings {
  provider: InboundProvider;
  secretEnv: string;
  basicAuthEnv?: string | undefined;
}

type Reject = Extract<InboundEvent, { kind: 'reject' }>;

const ok = (status: string): ChannelResponse => ({ status: 200, body: { status } });
const reject = (status: Reject['status'], reason: string, message?: string): Reject => ({
  kind: 'reject',
  status,
  reason,
  ...(message
    ? {
        response: {
          status,
          body: { error: message, code: status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_USER_INPUT' },
        },
      }
    : {}),
});

const MAILGUN_FIELDS = new Set([
  'timestamp',
  'token',
  'signature',
  'sender',
  'from',
  'subject',
  'recipient',
  'To',
  'stripped-text',
  'body-plain',
  'stripped-html',
  'body-html',
  'message-headers',
]);
const SENDGRID_FIELDS = new Set(['from', 'to', 'subject', 'text', 'html', 'headers', 'envelope', 'charsets']);

function contentType(req: InboundRequest): string {
  const v = req.headers['content-type'];
  return typeof v === 'string' ? v : '';
}

/** The body as the door handed it: the unread stream, or the bytes (a direct call, a test). */
function bodyOf(req: InboundRequest): Readable {
  return req.body ?? Readable.from([req.rawBody]);
}

function refused(err: unknown, provider: InboundProvider): Reject {
  if ((err instanceof FormRefused || err instanceof JsonRefused) && err.status === 413) {
    return reject(413, `${provider} message over its maximum`);
  }
  return reject(400, `not a ${provider} inbound message`);
}

/** Decoded fields: SendGrid names each field's charset in `charsets`; everything else is UTF-8. */
function decoded(bytes: Map<string, Buffer>, charsets: Record<string, unknown> = {}): MailFields {
  return {
    get(name) {
      const b = bytes.get(name);
      if (b === undefined) return null;
      const cs = charsets[name];
      return decodeText(b, typeof cs === 'string' ? cs : null);
    },
  };
}

function charsetsOf(json: string | null): Record<string, unknown> {
  try {
    const v = JSON.parse(json ?? '{}') as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A message that names and may answer a question, or what the door does with it instead. */
type Read = { reply: MailReply } | { event: InboundEvent };

async function mailgun(key: string, req: InboundRequest): Promise<Read> {
  let form: MailFields;
  try {
    const read = await readForm(bodyOf(req), {
      contentType: contentType(req),
      maxBytes: EMAIL_INBOUND_MAX_BYTES.mailgun,
      keep: MAILGUN_FIELDS,
    });
    form = decoded(read.bytes);
  } catch (err) {
    const r = refused(err, 'mailgun');
    // Without the signature's fields, the request is no provider's: 401 as before.
    return { event: r.status === 400 ? reject(401, 'mailgun signature mismatch') : r };
  }
  if (!mailgunSigned(key, form)) return { event: reject(401, 'mailgun signature mismatch') };
  if (!mailgunFresh(form.get('timestamp') ?? '', req.now)) {
    return { event: reject(401, 'mailgun timestamp outside the 300 s window') };
  }
  // The signature covers no part of the mail: its token is taken once, whatever the mail says,
  // so the same signature can never carry a second message (or the first one again).
  if (!req.once) return { event: reject(500, 'no store to take the mailgun token in') };
  if (!(await req.once(`mailgun-token:${form.get('token')}`, MAILGUN_TOKEN_TTL_MS))) {
    return { event: { kind: 'ignore', response: ok('repeat') } };
  }
  const reply = mailgunReply(form);
  return reply ? { reply } : { event: reject(400, 'not a mailgun inbound message') };
}

async function sendgrid(publicKey: string, req: InboundRequest): Promise<Read> {
  if (!sendgridKeyLoads(publicKey)) {
    return { event: reject(500, 'the SendGrid public key does not load') };
  }
  const verifier = sendgridVerifier(publicKey, req.headers);
  if (verifier === null) return { event: reject(401, 'sendgrid signature mismatch') };
  const hash = createHash('sha256');
  let read: Awaited<ReturnType<typeof readForm>>;
  try {
    read = await readForm(bodyOf(req), {
      contentType: contentType(req),
      maxBytes: EMAIL_INBOUND_MAX_BYTES.sendgrid,
      keep: SENDGRID_FIELDS,
      onBytes: (chunk) => {
        verifier.update(chunk);
        hash.update(chunk);
      },
    });
  } catch (err) {
    const r = refused(err, 'sendgrid');
    return { event: r.status === 400 ? reject(401, 'sendgrid signature mismatch') : r };
  }
  // Nothing read is acted on before the signature over all of it checks.
  if (!verifier.verified()) return { event: reject(401, 'sendgrid signature mismatch') };
  if (read.seen.has('email') && !read.bytes.has('text') && !read.bytes.has('html')) {
    const message =
      "SendGrid posts the raw MIME message: turn off 'POST the raw, full MIME message' in the Inbound Parse settings";
    return { event: reject(400, 'sendgrid raw MIME mode', message) };
  }
  const form = decoded(read.bytes, charsetsOf(read.bytes.get('charsets')?.toString('utf8') ?? null));
  const reply = sendgridReply(form, `sha256:${hash.digest('hex')}`);
  return reply ? { reply } : { event: reject(400, 'not a sendgrid inbound message') };
}

async function postmark(req: InboundRequest): Promise<Read> {
  const hash = createHash('sha256');
  let json: unknown;
  try {
    json = await readJsonDropping(bodyOf(req), {
      maxBytes: EMAIL_INBOUND_MAX_BYTES.postmark,
      onBytes: (chunk) => hash.update(chunk),
    });
  } catch (err) {
    return { event: refused(err, 'postmark') };
  }
  const reply = postmarkReply(json, `sha256:${hash.digest('hex')}`);
  return reply ? { reply } : { event: reject(400, 'not a postmark inbound message') };
}

/** The event for a reply read and verified. */
function replyEvent(reply: MailReply): InboundEvent {
  // An out-of-office notice or another auto-responder's mail is nobody's answer.
  if (isAutoReply(reply.headers, reply.subject)) return { kind: 'ignore', response: ok('ignored') };
  const ref = refOf(reply);
  // Mail that names no question (a stray message to the address): taken, and nothing else.
  if (ref === null) return { kind: 'ignore', response: ok('ignored') };
  return {
    kind: 'answer',
    question: { ref },
    by: reply.sender,
    dedupe: { id: reply.id, repeat: ok('repeat') },
    // Only the person the question was sent to answers it by mail.
    answer: (q: ChannelQuestion, _hints?: AnswerHints) =>
      q.recipient !== null && bareAddress(q.recipient) === reply.sender
        ? answerFromLine(q, firstLine(reply.text))
        : undefined,
    respond: (outcome: ClaimOutcome) => ok(outcome.kind),
  };
}

/**
 * The door's handler. Secrets are looked up per request (fail closed: an unset one is 500), and
 * credentials carried in headers are checked before a byte of the body is read.
 */
export function emailInbound(
  settings: InboundSettings,
  ctx: Pick<ChannelContext, 'secret'>,
): (req: InboundRequest) => Promise<InboundEvent> {
  return async (req) => {
    const secret = ctx.secret(settings.secretEnv);
    if (!secret) return reject(500, `${settings.secretEnv} is not set`);
    if (settings.basicAuthEnv !== undefined) {
      const basic = ctx.secret(settings.basicAuthEnv);
      if (!basic) return reject(500, `${settings.basicAuthEnv} is not set`);
      if (!basicAuthorized(basic, req.headers)) return reject(401, 'basic credentials missing or wrong');
    }
    let read: Read;
    switch (settings.provider) {
      case 'postmark':
        if (!basicAuthorized(secret, req.headers)) return reject(401, 'postmark signature mismatch');
        read = await postmark(req);
        break;
      case 'sendgrid':
        read = await sendgrid(secret, req);
        break;
      default:
        read = await mailgun(secret, req);
    }
    return 'event' in read ? read.event : replyEvent(read.reply);
  };
}
