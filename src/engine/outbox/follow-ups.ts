// The follow-ups a question's resolution enqueues (the outbox performs them): its channel's
// message edit, the resume webhook it asked for, and its recorded wait span (`trace`, API.md §24). Fixed at ask time, so the announced spec
// tells every instance whether a resolution left anything in the outbox.
import type { QuestionSpec } from '../../domain/question.ts';

type FollowUpFields = Pick<QuestionSpec, 'channel' | 'escalation' | 'trace'> & { notify?: string | null };

/** The target whose item records the question's wait span (engine/outbox/trace-span.ts). */
export const TRACE_TARGET = 'trace';

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
  // Whoever resolves the question (any instance, any door, the reaper) enqueues it in the same
  // step, so the span is recorded once even when the instance that asked is gone.
  if (q.trace?.sampled) targets.push(TRACE_TARGET);
  return targets;
}

export function hasFollowUps(q: FollowUpFields): boolean {
  return followUpsOf(q).length > 0;
}
