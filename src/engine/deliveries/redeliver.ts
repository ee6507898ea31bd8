// A delivery after ask time: an escalation step's REROUTE or reminder (outbox/escalation-steps.ts)
// and a delivery held by quiet hours (outbox/quiet-delivery.ts) each send the question as a new
// message with a callback URL of its own, shortened links and its delivery recorded for that place,
// as the ask-time delivery (asking.ts) does. One module, so the two cannot drift apart.
import type { QuestionRecord } from '../../domain/question.ts';
import type { QuestionStore } from '../../store/types.ts';
import { createShortLinks } from '../answers/short-links.ts';
import { callbackUrlFor, mintTicket } from '../answers/tickets.ts';
import type { ChannelPort } from '../ports.ts';
import { atPlace } from './question.ts';
import { deliveryToStore } from './stored.ts';

export interface RedeliveryDeps {
  store: QuestionStore;
  channels: ChannelPort;
  /** The public base URL callback URLs are built on; null: none can be handed out. */
  publicBaseUrl: string | null;
  clock: () => number;
}

export interface Redelivery {
  /** A fresh callback URL for `q` (its own ticket, living as long as the question); null once it is closed. */
  callbackUrl(q: QuestionRecord): Promise<string | null>;
  /**
   * Sends `q` to `place` as a new message (`text` in place of its own, e.g. a reminder) and keeps
   * the delivery record; 'closed' when the question left PENDING first. Throws when the channel fails.
   */
  deliverTo(q: QuestionRecord, place: string, text?: string): Promise<'delivered' | 'closed'>;
}

export function createRedelivery(deps: RedeliveryDeps): Redelivery {
  // Every delivery shortens a link as the first did: a REROUTE to Discord (512 characters a
  // button URL) or an SMS would otherwise refuse it.
  const shortLinks = createShortLinks(deps);

  async function callbackUrl(q: QuestionRecord): Promise<string | null> {
    if (!deps.publicBaseUrl) throw new Error('INTERACTIONS_PUBLIC_BASE_URL is not set');
    const t = mintTicket();
    if (!(await deps.store.addTicket(q.id, t.hash))) return null;
    return callbackUrlFor(deps.publicBaseUrl, t.ticket);
  }

  return {
    callbackUrl,
    async deliverTo(q, place, text) {
      const url = await callbackUrl(q);
      if (url === null) return 'closed';
      const there = await shortLinks.forChannel(atPlace(q, place));
      const delivery = await deps.channels.deliver(text === undefined ? there : { ...there, text }, url);
      await deps.store.deliveries.save(q.id, deliveryToStore(delivery).delivery, deps.clock(), place);
      return 'delivered';
    },
  };
}
