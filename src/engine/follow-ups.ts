// The follow-ups a question's resolution enqueues (the outbox performs them): its channel's
// message edit and the resume webhook it asked for. Fixed at ask time, so the announced spec
// tells every instance whether a resolution left anything in the outbox.
import type { QuestionSpec } from '../domain/question.ts';

type FollowUpFields = Pick<QuestionSpec, 'channel'> & { notify?: string | null };

export function followUpsOf(q: FollowUpFields): string[] {
  const targets: string[] = [];
  if (q.channel !== null) targets.push(`channel:${q.channel}`);
  if (q.notify != null) targets.push(`webhook:${q.notify}`);
  return targets;
}

export function hasFollowUps(q: FollowUpFields): boolean {
  return q.channel !== null || q.notify != null;
}
