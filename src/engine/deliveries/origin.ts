// A channel event's origin against the question's delivery (API.md §9, §17): a provider whose
// events may name any question (a Teams card's submit carries the question id) says where the
// event came from (`origin`), and only an event from the place the question was delivered to
// answers it. A card's value copied into another conversation, or sent through another Bot
// Framework channel, is refused here: nothing changes, and the refusal is on the record.
import type { DeliveryRecord } from '../../channels/types.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import type { EngineContext } from '../context.ts';

/** The first `origin` key whose value the delivery does not hold, `delivery` with none; null when all match. */
export function originMismatch(
  origin: Readonly<Record<string, string>>,
  delivery: DeliveryRecord | null,
): string | null {
  if (delivery === null) return 'delivery';
  for (const [key, value] of Object.entries(origin)) {
    if (delivery[key] !== value) return key;
  }
  return null;
}

/**
 * Whether an answer event from `origin` must be refused for question `q`, whose delivery at channel
 * `name` is `delivery`; a refusal is written to the audit log as CALLBACK_REFUSED. The actor is the
 * sender as the provider authenticated it (`<channel>:<provider user id>`): unlike a callback
 * whose signature failed, the provider vouched for who sent it, only not from where the question
 * went. The detail names the channel and the field that differed, never a value.
 */
export async function refusedOrigin(
  ctx: Pick<EngineContext, 'store' | 'clock'>,
  name: string,
  q: QuestionRecord,
  delivery: DeliveryRecord | null,
  origin: Readonly<Record<string, string>> | undefined,
  sender: string,
): Promise<boolean> {
  if (origin === undefined) return false;
  const reason = originMismatch(origin, delivery);
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
