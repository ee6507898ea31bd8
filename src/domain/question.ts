// The question record: what the store keeps and every surface shows (API.md §4).
// Times are epoch milliseconds here; surfaces render them as RFC 3339.
import type { EscalationStep } from './escalation.ts';
import type { QuestionTrace } from './trace.ts';

export const ANSWER_FORMATS = ['TEXT', 'CONFIRM', 'SELECT', 'FORM', 'EXTERNAL', 'APPROVAL'] as const;
export type AnswerFormat = (typeof ANSWER_FORMATS)[number];

export const QUESTION_STATUSES = ['PENDING', 'ANSWERED', 'TIMED_OUT', 'CANCELLED'] as const;
export type QuestionStatus = (typeof QUESTION_STATUSES)[number];
export type ClosedStatus = Exclude<QuestionStatus, 'PENDING'>;

export const MEDIA_KINDS = ['IMAGE', 'LINK'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];

export interface MediaItem {
  kind: MediaKind;
  url: string;
  caption?: string;
}

export interface VerifierBinding {
  name: string;
  config: Record<string, unknown>;
}

export type JsonObject = Record<string, unknown>;

export const DECISIONS = ['APPROVED', 'REJECTED'] as const;
export type Decision = (typeof DECISIONS)[number];

/** What an APPROVAL question proposes (API.md §15), as asked; `digest` covers {name, arguments}. */
export interface ActionSpec {
  name: string;
  summary: string | null;
  arguments: JsonObject;
  argumentsSchema: JsonObject | null;
  editable: boolean;
  digest: string;
  /** Principals besides the asker that may consume the approval and read the question (§23). */
  executors?: string[] | null;
  /** How long the approval may be consumed, counted from the decision (§23); absent: no limit. */
  validSeconds?: number | null;
  /** The person the agent acts for (§22): never answers or votes on it, nor do their delegates. */
  requestedBy?: string | null;
  /**
   * Set by an ASK rule's `requireSeparateRequester` (§20, §22), never by the agent: nobody on the
   * asking side decides it — not the asker (admin or not), not its MCP client's user, not the requester.
   */
  requireSeparateRequester?: boolean;
  /** `HIGH`: approving needs a fresh passkey assertion in the inbox (§23); absent: `STANDARD`. */
  assurance?: ActionAssurance | null;
}

export const ACTION_ASSURANCES = ['STANDARD', 'HIGH'] as const;
export type ActionAssurance = (typeof ACTION_ASSURANCES)[number];

/** How many distinct approvals or rejections decide, and who may vote (null: anyone who may answer). */
export interface QuorumSpec {
  approvals: number;
  rejections: number;
  voters: string[] | null;
}

/** A policy rule as a question records it (API.md §20): which rule, which version, what it does. */
export interface PolicyRef {
  ruleId: string;
  version: string;
  effect: 'ALLOW' | 'DENY' | 'ASK';
}

/** One vote on a question with a quorum. */
export interface Vote {
  /** The voter's identity: a principal id, `<channel>:<provider user id>`, or `callback`. */
  by: string;
  /** The door: `api`, `callback` or `channel:<name>`. */
  via: string;
  decision: Decision;
  note: string | null;
  at: number;
  /** A delegate's vote (API.md §22): the person it was cast for, whose one vote it is. */
  onBehalfOf?: string;
  /** APPROVAL: what the voter was shown and how they proved presence (API.md §23). */
  presentedDigest?: string;
  assurance?: Assurance;
  credentialId?: string;
}

/** How an approver proved they were there (API.md §23): a user-verifying WebAuthn assertion. */
export type Assurance = 'webauthn-uv';

/** What an APPROVAL answer or vote records about how it was given (API.md §23). */
export interface AnswerEvidence {
  /** `sha256:` of {name, summary, arguments} as shown to this person (domain/presentation.ts). */
  presentedDigest?: string;
  assurance?: Assurance;
  /** The WebAuthn credential (base64url id) that signed the step-up. */
  credentialId?: string;
}

/** The part of a question fixed when it is asked. */
export interface QuestionSpec {
  id: string;
  text: string;
  format: AnswerFormat;
  options: string[] | null;
  schema: JsonObject | null;
  /** EXTERNAL: the final URL the person visits (template already substituted). */
  link: string | null;
  verifier: VerifierBinding | null;
  media: MediaItem[] | null;
  groupId: string | null;
  audience: string | null;
  /**
   * `oncall:<group>` audiences (API.md §22): who was on duty when it was asked; null when no one
   * was (the rotation had not started). Absent for other audiences.
   */
  routedTo?: string | null;
  channel: string | null;
  recipient: string | null;
  sensitive: boolean;
  askedBy: string;
  idempotencyKey: string | null;
  /** The asker's own JSON object, returned with the question and in its resume webhooks. */
  metadata?: JsonObject | null;
  /** The resume-webhook endpoint (a manifest name) called when it resolves. */
  notify?: string | null;
  /** APPROVAL: the proposed action. */
  action?: ActionSpec | null;
  /** APPROVAL and CONFIRM: several approvers. */
  quorum?: QuorumSpec | null;
  /** APPROVAL: the enforced rule that decided it or added scrutiny (API.md §20); absent: none. */
  policy?: PolicyRef | null;
  /** APPROVAL: the SHADOW rules that matched, and what each would have done; absent: none. */
  policyShadow?: PolicyRef[] | null;
  /** The escalation ladder (API.md §18), fixed at ask time; absent or null: none. */
  escalation?: EscalationStep[] | null;
  /** The `wait_for human_decision` span (API.md §24), when tracing was on at ask time; absent: none. */
  trace?: QuestionTrace | null;
  /**
   * A link question (API.md §22): the person whose profile its recipient is linked to when it is
   * answered "yes" from its own channel. Server-only: set by the engine's linking service through
   * an internal ask option, never from askUser, MCP or REST input (those refuse unknown fields).
   */
  linkFor?: string;
  createdAt: number;
  timeoutAt: number;
}

/** How a question left PENDING; absent while it is pending. */
export interface Resolution {
  status: ClosedStatus;
  /** Always null for sensitive questions: their answer lives only in the one-read reply slot. */
  answer: unknown;
  answeredBy: string | null;
  /** A delegate's answer (API.md §22): the person it was given for; absent otherwise. */
  onBehalfOf?: string;
  answeredAt: number | null;
  closedAt: number | null;
  cancelReason: string | null;
  /** The votes cast before it resolved (questions with a quorum). */
  votes?: Vote[];
  /** An APPROVED question's use (API.md §23): written by the consume and report steps only. */
  execution?: Execution;
  /** The deciding answer's evidence (API.md §23): what was shown, the step-up. */
  evidence?: AnswerEvidence;
}

export interface QuestionRecord extends QuestionSpec {
  /** Votes so far (questions with a quorum); absent or empty otherwise. */
  votes?: Vote[];
  status: QuestionStatus;
  answer: unknown;
  answeredBy: string | null;
  /** A delegate's answer (API.md §22): the person it was given for; absent otherwise. */
  onBehalfOf?: string;
  answeredAt: number | null;
  closedAt: number | null;
  cancelReason: string | null;
  /** An APPROVED question's use (API.md §23); absent until it is consumed. */
  execution?: Execution;
  /** The deciding answer's evidence (API.md §23): what was shown, the step-up. */
  evidence?: AnswerEvidence;
}

/** Open resolution fields of a pending question. */
const UNRESOLVED = {
  status: 'PENDING',
  answer: null,
  answeredBy: null,
  answeredAt: null,
  closedAt: null,
  cancelReason: null,
} as const;

export function recordOf(
  spec: QuestionSpec,
  resolution: Resolution | null,
  votes?: Vote[] | null,
): QuestionRecord {
  // Object.assign, not object spread: the same keys in the same order, but V8 builds a spread
  // of a parsed spec plus further keys about ten times slower, and every read decodes records.
  const record: QuestionRecord = Object.assign({}, spec, resolution ?? UNRESOLVED);
  if (votes && votes.length > 0) record.votes = votes;
  return record;
}

export function isPending(record: QuestionRecord): boolean {
  return record.status === 'PENDING';
}

/** EXTERNAL questions bound to a webhook verifier: their link is never shown. */
export function isServerVerified(record: QuestionSpec): boolean {
  return record.format === 'EXTERNAL' && record.verifier !== null;
}

// Single-use approvals (API.md §23): the record's part; the rules are in execution.ts.
export const EXECUTION_OUTCOMES = ['SUCCEEDED', 'FAILED'] as const;
export type ExecutionOutcome = (typeof EXECUTION_OUTCOMES)[number];

/** What the record says about the approval's use; absent until it is consumed. */
export interface Execution {
  consumedAt: number;
  consumedBy: string;
  outcome?: ExecutionOutcome;
  reportedAt?: number;
  reportedBy?: string;
  resultDigest?: string | null;
  /** The reporter's own small JSON object (≤ 8 KiB); never in an audit entry (only its digest). */
  detail?: JsonObject | null;
}
