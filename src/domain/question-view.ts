// The public shape of a question (API.md §4 `Question`), shared by every surface that
// writes a question as JSON: times as RFC 3339, no verifier config, no idempotency key,
// the link hidden when a verifier is bound, never a sensitive answer.
import { decisionOf, editedOf } from './approval.ts';
import type { EscalationStep } from './escalation.ts';
import type { ActionSpec, Decision, MediaItem, QuestionRecord, QuorumSpec } from './question.ts';
import { isServerVerified } from './question.ts';

/** A ladder step with what it recorded when it fired (epoch ms), as the engine reads it. */
export interface EscalationState extends EscalationStep {
  firedAt: number | null;
  outcome: string | null;
}

/** One step of the question's escalation ladder (API.md §18 `EscalationStep`). */
export interface EscalationStepView {
  afterSeconds: number;
  action: EscalationStep['action'];
  channel: string | null;
  recipient: string | null;
  /** When it fired; null while it has not. */
  firedAt: string | null;
  /** `DELIVERED` or `FAILED: …`; null while it has not fired. */
  outcome: string | null;
}

export interface QuestionView {
  id: string;
  text: string;
  format: QuestionRecord['format'];
  options: string[] | null;
  schema: Record<string, unknown> | null;
  link: string | null;
  serverVerified: boolean;
  media: { kind: MediaItem['kind']; url: string; caption: string | null }[] | null;
  groupId: string | null;
  audience: string | null;
  channel: string | null;
  recipient: string | null;
  sensitive: boolean;
  metadata: Record<string, unknown> | null;
  notify: string | null;
  status: QuestionRecord['status'];
  askedBy: string;
  createdAt: string;
  timeoutAt: string;
  answer: unknown;
  answeredBy: string | null;
  answeredAt: string | null;
  closedAt: string | null;
  cancelReason: string | null;
  action: ActionSpec | null;
  quorum: QuorumSpec | null;
  votes: { by: string; via: string; decision: Decision; note: string | null; at: string }[];
  decision: Decision | null;
  edited: boolean | null;
  /**
   * The escalation ladder (§18), empty without one. Present when the caller read the fired steps
   * (`questionView(q, escalations)`); the view never guesses that a step has not fired.
   */
  escalations?: EscalationStepView[];
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : isoTime(ms);
}

export function escalationStepView(s: EscalationState): EscalationStepView {
  return {
    afterSeconds: s.afterSeconds,
    action: s.action,
    channel: s.channel,
    recipient: s.recipient,
    firedAt: isoOrNull(s.firedAt),
    outcome: s.outcome,
  };
}

/** The view; `escalations` (what `Interactions.escalations` read for `q`) adds the ladder. */
export function questionView(q: QuestionRecord, escalations?: readonly EscalationState[]): QuestionView {
  const serverVerified = isServerVerified(q);
  return {
    id: q.id,
    text: q.text,
    format: q.format,
    options: q.options,
    schema: q.schema,
    link: serverVerified ? null : q.link,
    serverVerified,
    media: q.media?.map((m) => ({ kind: m.kind, url: m.url, caption: m.caption ?? null })) ?? null,
    groupId: q.groupId,
    audience: q.audience,
    channel: q.channel,
    recipient: q.recipient,
    sensitive: q.sensitive,
    metadata: q.metadata ?? null,
    notify: q.notify ?? null,
    status: q.status,
    askedBy: q.askedBy,
    createdAt: isoTime(q.createdAt),
    timeoutAt: isoTime(q.timeoutAt),
    answer: q.sensitive ? null : q.answer,
    answeredBy: q.answeredBy,
    answeredAt: isoOrNull(q.answeredAt),
    closedAt: isoOrNull(q.closedAt),
    cancelReason: q.cancelReason,
    action: q.action ?? null,
    quorum: q.quorum ?? null,
    votes: (q.votes ?? []).map((v) => ({ ...v, at: isoTime(v.at) })),
    decision: q.sensitive ? null : decisionOf(q),
    edited: q.sensitive ? null : editedOf(q),
    ...(escalations === undefined ? {} : { escalations: escalations.map(escalationStepView) }),
  };
}
