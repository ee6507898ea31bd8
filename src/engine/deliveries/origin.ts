// A channel event's origin against the question's delivery (API.md §9, §17): a provider whose
// events may name any question (a Teams card's submit carries the question id) says where the
// event came from (`origin`), and only an event from the place the question was delivered to
// answers it. A card's value copied into another conversation, or sent through another Bot
// Framework channel, is refused here: nothing changes, and the refusal is on the record.
import type { DeliveryReceipt } from '../../channels/types.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import type { EngineContext } from '../context.ts';

/** The first `origin` key whose value the receipt does not hold, `receipt` with none; null when all match. */
export function originMismatch(
  origin: Readonly<Record<string, string>>,
  receipt: DeliveryReceipt | null,
): string | null {
  if (receipt === null) return 'receipt';
  for (const [key, value] of Object.entries(origin)) {
    if (receipt[key] !== value) return key;
  }
  return null;
}

/**
 * Whether an answer event from `origin` must be refused for question `q`, whose receipt at channel
 * `name` is `receipt`; a refusal is written to the audit log as CALLBACK_REFUSED. The actor is the
 * sender as the provider authenticated it (`<channel>:<provider user id>`): unlike a callback
 * whose signature failed, the provider vouched for who sent it, only not from where the question
 * went. The detail names the channel and the field that differed, never a value.
 */
export async function refusedOrigin(
  ctx: Pick<EngineContext, 'store' | 'clock'>,
  name: string,
  q: QuestionRecord,
  receipt: DeliveryReceipt | null,
  origin: Readonly<Record<string, string>> | undefined,
  sender: string,
): Promise<boolean> {
  if (origin === undefined) return false;
  const reason = originMismatch(origin, receipt);
  if (reason === null) return false;
  await ctx.store.audit.append({
    type: 'CALLBACK_REFUSED',
    questionId: q.id,
    actor: sender,
    via: `channel:${name}`,
    detail: { channel: name, reason },
    at: ctx.clock(),
  });
  return true;
}
