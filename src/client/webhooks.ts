// Receiving resume webhooks (API.md §12): check a delivery's Standard Webhooks signature on the
// raw bytes, then hand back the event. Works with Node's IncomingHttpHeaders, a fetch Headers
// object or a plain record.
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { Question } from './types.ts';

export { WebhookVerificationError };

/** What the server posts when a question it was asked to `notify` about resolves. */
export interface ResolvedWebhook {
  type: 'question.resolved';
  /** The question as it is now; its `answer` is null for sensitive questions (read it with `waitFor`). */
  question: Question;
  /** The signed decision receipt (API.md §16): check it with `verifyReceipt` before acting. */
  receipt: string | null;
}

/** What the server posts when a used approval's outcome is reported (API.md §23). */
export interface ExecutedWebhook {
  type: 'question.executed';
  question: Question;
  receipt: string | null;
  /** What the report recorded: when it was used and by whom, the outcome, the result digest. */
  execution: {
    consumedAt: string;
    consumedBy: string;
    outcome: 'SUCCEEDED' | 'FAILED' | null;
    reportedAt: string | null;
    resultDigest: string | null;
  };
}

export type WebhookEvent = ResolvedWebhook | ExecutedWebhook;

export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

const NAMES = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

function pick(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of NAMES) {
    let value: unknown;
    if (typeof (headers as Headers).get === 'function') value = (headers as Headers).get(name);
    else {
      const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
      value = key === undefined ? undefined : (headers as Record<string, unknown>)[key];
    }
    if (Array.isArray(value)) value = value[0];
    if (typeof value !== 'string') throw new WebhookVerificationError(`missing ${name} header`);
    out[name] = value;
  }
  return out;
}

/**
 * Checks a resume webhook and returns its event. `rawBody` is the request body exactly as
 * received (parse nothing first); `secret` is the endpoint's `whsec_…` secret. Throws
 * WebhookVerificationError when a header is missing, the signature does not match, or the
 * timestamp is more than 5 minutes from now. Deduplicate by the `webhook-id` header: a
 * question notifies each endpoint under one id, however often it is retried.
 */
export function verifyWebhook(
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
  secret: string,
): WebhookEvent {
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody);
  const event = new Webhook(secret).verify(body, pick(headers)) as Partial<ExecutedWebhook> | null;
  const type = event?.type as string | undefined;
  if (
    (type !== 'question.resolved' && type !== 'question.executed') ||
    typeof event?.question !== 'object' ||
    !event.question
  ) {
    throw new WebhookVerificationError('not a question.resolved or question.executed event');
  }
  if (type === 'question.executed' && (typeof event.execution !== 'object' || !event.execution)) {
    throw new WebhookVerificationError('a question.executed event without its execution');
  }
  return event as WebhookEvent;
}
