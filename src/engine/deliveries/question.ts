// The plugin view of a question: what the engine (and the composition root, for delivery) hands a
// channel plugin. It lives beside the ports, not in src/channels/, so the engine depends on the
// plugin contract's types only and never on plugin code.
import type { ChannelQuestion } from '../../channels/types.ts';
import { grantOffered } from '../../domain/policy/grant.ts';
import type { QuestionRecord, QuorumSpec } from '../../domain/question.ts';

/** The fields of a stored question a plugin may see: no media, no verifier, no asker, no idempotency key. */
export function channelQuestionOf(
  record: {
    id: string;
    text: string;
    format: ChannelQuestion['format'];
    options: string[] | null;
    schema: Record<string, unknown> | null;
    link: string | null;
    action?: ChannelQuestion['action'];
    quorum?: QuorumSpec | null;
    recipient: string | null;
    sensitive: boolean;
    status: ChannelQuestion['status'];
    answer: unknown;
    answeredBy: string | null;
    cancelReason: string | null;
    createdAt: number;
    timeoutAt: number;
  },
  answeredByName: string | null = null,
): ChannelQuestion {
  const out: ChannelQuestion = {
    id: record.id,
    text: record.text,
    format: record.format,
    options: record.options,
    schema: record.schema,
    link: record.link,
    recipient: record.recipient,
    sensitive: record.sensitive,
    status: record.status,
    answer: record.sensitive ? null : record.answer,
    answeredBy: record.answeredBy,
    answeredByName: record.sensitive ? null : answeredByName,
    cancelReason: record.cancelReason,
    createdAt: record.createdAt,
    timeoutAt: record.timeoutAt,
  };
  if (record.action) out.action = record.action;
  if (record.action && grantOffered({ ...record, action: record.action })) out.grantable = true;
  return out;
}

/** The question as the place `name` received it (a REROUTE place: its own recipient). */
export function atPlace(q: QuestionRecord, name: string): QuestionRecord {
  if (q.channel === name) return q;
  const step = (q.escalation ?? []).find((s) => s.action === 'REROUTE' && s.channel === name);
  return step ? { ...q, channel: name, recipient: step.recipient } : q;
}
