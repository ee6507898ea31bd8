// The follow-ups a question's resolution enqueues (the outbox performs them): its channel's
// message edit and the resume webhook it asked for. Fixed at ask time, so the announced spec
// tells every instance whether a resolution left anything in the outbox.
import type { QuestionSpec } from '../../domain/question.ts';

type FollowUpFields = Pick<QuestionSpec, 'channel' | 'escalation'> & { notify?: string | null };

/**
 * The channels whose messages are edited after the resolution: the question's own and every
 * channel a REROUTE step may deliver it to (API.md §18: every place is edited; a channel the
 * ladder never reached has no delivery record there, and its follow-up does nothing).
 */
export function followUpChannels(q: Pick<QuestionSpec, 'channel' | 'escalation'>): string[] {
  const names = new Set<string>();
  if (q.channel !== null) names.add(q.channel);
  for (const s of q.escalation ?? []) if (s.action === 'REROUTE' && s.channel) names.add(s.channel);
  return [...names];
}

export function followUpsOf(q: FollowUpFields): string[] {
  const targets = followUpChannels(q).map((c) => `channel:${c}`);
  if (q.notify != null) targets.push(`webhook:${q.notify}`);
  return targets;
}

export function hasFollowUps(q: FollowUpFields): boolean {
  return followUpsOf(q).length > 0;
}
