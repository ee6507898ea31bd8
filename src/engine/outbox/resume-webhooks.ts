// Resume webhooks (API.md §12): the outbox handler for `webhook:<name>` targets. It POSTs
// {"type":"question.resolved","question":…,"receipt":…} to the named endpoint, signed per Standard
// Webhooks with the endpoint's secret, and says whether the item is done, due again
// (webhook-schedule.ts) or dropped (410, or the 24-hour window is over).
import { createHash } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { QuestionRecord } from '../../domain/question.ts';
import { questionView } from '../../domain/question-view.ts';
import { traceHeadersOf } from '../../domain/trace.ts';
import type { OutboxItem } from '../../store/types.ts';
import type { Logger } from '../logger.ts';
import type { ReceiptPort } from '../ports.ts';
import { createWebhookClient, type PostOutcome } from './webhook-client.ts';
import { nextAttemptAt } from './webhook-schedule.ts';
import type { FollowUpHandler, FollowUpResult } from './worker.ts';

export interface WebhookEndpoint {
  url: string;
  /** The Standard Webhooks secret (`whsec_` + base64). Never logged. */
  secret: string;
}

export interface ResumeWebhookOptions {
  endpoints: Readonly<Record<string, WebhookEndpoint>>;
  logger: Logger;
  clock?: () => number;
  random?: () => number;
  /** Longest one attempt may take before it counts as failed. */
  timeoutMs?: number;
  /** Shrinks the retry schedule (tests); 1 in production. */
  scheduleScale?: number;
  /** Signs the decision receipt sent with each resolution (API.md §16); absent: `receipt` is null. */
  receipts?: ReceiptPort;
}

export const WEBHOOK_TIMEOUT_MS = 10_000;
export const RESOLVED_EVENT = 'question.resolved';
/** Sent through `executed:<name>` items when an approval's execution is reported (API.md §23). */
export const EXECUTED_EVENT = 'question.executed';
/** Who is calling (what `fetch` sent before was Node's own `node`). */
export const USER_AGENT = 'tai-interactions';

/** Stable per question and endpoint (the outbox item id), so receivers can deduplicate. */
export function webhookIdOf(itemId: string): string {
  return `msg_${createHash('sha256').update(itemId).digest('base64url').slice(0, 32)}`;
}

function executionView(q: QuestionRecord): Record<string, unknown> | null {
  const x = q.execution;
  if (!x) return null;
  return {
    consumedAt: new Date(x.consumedAt).toISOString(),
    consumedBy: x.consumedBy,
    outcome: x.outcome ?? null,
    reportedAt: x.reportedAt != null ? new Date(x.reportedAt).toISOString() : null,
    resultDigest: x.resultDigest ?? null,
  };
}

/** Why an attempt failed. A redirect is not a delivery: it is retried like any other non-2xx answer. */
function failureOf(name: string, status: PostOutcome): string {
  if (status === 'timeout') return `webhook ${name} timed out`;
  if (status === 'unreachable') return `webhook ${name} unreachable`;
  return `webhook ${name} answered ${status}`;
}

/** The handler, and the closer of its kept-alive connections (after the worker has stopped). */
export type ResumeWebhooks = FollowUpHandler & {
  /** The handler of `executed:<name>` items: the same delivery with `type: "question.executed"`. */
  executed: FollowUpHandler;
  close(): Promise<void>;
};

export function createResumeWebhooks(o: ResumeWebhookOptions): ResumeWebhooks {
  const clock = o.clock ?? Date.now;
  const random = o.random ?? Math.random;
  const timeoutMs = o.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const signers = new Map<string, { url: string; signer: Webhook }>();
  for (const [name, e] of Object.entries(o.endpoints)) {
    let signer: Webhook;
    try {
      signer = new Webhook(e.secret);
    } catch {
      // The secret itself is never part of the message.
      throw new Error(`webhook ${name}: the secret is not a Standard Webhooks secret (whsec_ + base64)`);
    }
    signers.set(name, { url: e.url, signer });
  }

  const client = createWebhookClient(timeoutMs);

  const post = async (
    type: string,
    item: OutboxItem,
    question: QuestionRecord | null,
    name: string,
  ): Promise<FollowUpResult> => {
    const endpoint = signers.get(name);
    if (!endpoint) return { kind: 'drop', reason: `no webhook endpoint ${name}` };
    if (!question) return { kind: 'drop', reason: 'the question is gone' };
    const id = webhookIdOf(item.id);
    const receipt = (await o.receipts?.sign(question)) ?? null;
    // question.executed also carries what the report recorded, times as RFC 3339 (API.md §23).
    const execution = type === EXECUTED_EVENT ? executionView(question) : undefined;
    const body = JSON.stringify({ type, question: questionView(question), receipt, execution });
    const sentAt = new Date(clock());
    const status = await client.post(
      endpoint.url,
      {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'webhook-signature': endpoint.signer.sign(id, sentAt, body),
        // The question's trace, its wait span as the parent (API.md §24); none when untraced.
        ...traceHeadersOf(question),
      },
      body,
    );
    if (typeof status === 'number' && status >= 200 && status < 300) return { kind: 'done' };
    if (status === 410) return { kind: 'drop', reason: `webhook ${name} answered 410 Gone`, gone: true };
    const failure = failureOf(name, status);
    const at = nextAttemptAt({
      attempt: item.attempt,
      firstAt: item.enqueuedAt,
      now: clock(),
      random: random(),
      ...(o.scheduleScale === undefined ? {} : { scale: o.scheduleScale }),
    });
    if (at === null) return { kind: 'drop', reason: `${failure}; retries ended after 24 h` };
    return { kind: 'retry', at, reason: failure };
  };
  const handle: FollowUpHandler = (item, question, name) => post(RESOLVED_EVENT, item, question, name);
  const executed: FollowUpHandler = (item, question, name) => post(EXECUTED_EVENT, item, question, name);
  return Object.assign(handle, { executed, close: () => client.close() });
}
