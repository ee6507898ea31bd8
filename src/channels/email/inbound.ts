// The email channel's inbound door (API.md §9.1): a provider's inbound webhook, checked as that
// provider signs it (inbound-auth.ts, fail closed), read into a reply (reply.ts) and turned into
// an answer event for the question its reference names. Only the address the question was sent
// to may answer it; a repeat of a message (the provider's id, else the request's hash) changes
// nothing. Every outcome is a 200 the provider will not retry, except refusals (401, 400, 500).
import type {
  AnswerHints,
  ChannelQuestion,
  ChannelResponse,
  ClaimOutcome,
  InboundEvent,
  InboundRequest,
} from '../types.ts';
import {
  type InboundProvider,
  mailgunSigned,
  postmarkAuthorized,
  sendgridKeyLoads,
  sendgridSigned,
} from './inbound-auth.ts';
import {
  answerFromLine,
  bareAddress,
  firstLine,
  type MailReply,
  mailgunReply,
  postmarkReply,
  refOf,
  sendgridReply,
} from './reply.ts';

/** A reply with its quoted thread and a few attachments; larger mail is refused (413) by the door. */
export const EMAIL_INBOUND_MAX_BYTES = 1024 * 1024;

const ok = (status: string): ChannelResponse => ({ status: 200, body: { status } });

function contentType(req: InboundRequest): string {
  const v = req.headers['content-type'];
  return typeof v === 'string' ? v : '';
}

/** The form fields of a urlencoded or multipart body; null when it is neither or malformed. */
async function formOf(req: InboundRequest): Promise<URLSearchParams | FormData | null> {
  const type = contentType(req).toLowerCase();
  if (type.startsWith('application/x-www-form-urlencoded'))
    return new URLSearchParams(req.rawBody.toString('utf8'));
  if (!type.startsWith('multipart/form-data')) return null;
  try {
    return await new Response(new Uint8Array(req.rawBody), {
      headers: { 'content-type': contentType(req) },
    }).formData();
  } catch {
    return null;
  }
}

function jsonOf(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return null;
  }
}

/** The verified reply, or the refusal. */
async function verifiedReply(
  provider: InboundProvider,
  secret: string,
  req: InboundRequest,
): Promise<MailReply | Extract<InboundEvent, { kind: 'reject' }>> {
  const unsigned = { kind: 'reject', status: 401, reason: `${provider} signature mismatch` } as const;
  const malformed = { kind: 'reject', status: 400, reason: `not a ${provider} inbound message` } as const;
  switch (provider) {
    case 'postmark': {
      if (!postmarkAuthorized(secret, req.headers)) return unsigned;
      return postmarkReply(jsonOf(req.rawBody), req.rawBody) ?? malformed;
    }
    case 'sendgrid': {
      if (!sendgridKeyLoads(secret)) {
        return { kind: 'reject', status: 500, reason: 'the SendGrid public key does not load' };
      }
      if (!sendgridSigned(secret, req.headers, req.rawBody)) return unsigned;
      const form = await formOf(req);
      return (form instanceof FormData ? sendgridReply(form, req.rawBody) : null) ?? malformed;
    }
    default: {
      // Mailgun's signature is over fields of the form, so the form is read first (bounded by the door's cap).
      const form = await formOf(req);
      if (form === null || !mailgunSigned(secret, form)) return unsigned;
      return mailgunReply(form) ?? malformed;
    }
  }
}

/** The event for a request at the door, once the secret is known to be set. */
export async function replyEvent(
  provider: InboundProvider,
  secret: string,
  req: InboundRequest,
): Promise<InboundEvent> {
  const reply = await verifiedReply(provider, secret, req);
  if ('kind' in reply) return reply;
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
