// The audit log's entries (API.md §17): what happened to a question, by whom, through which
// door, as digests and small facts only. Each entry is chained to the one before it: `hash` is
// `sha256:` over the JCS canonical JSON of the entry without `hash`, and `prev` is the previous
// entry's hash, so removing, editing or reordering one entry breaks every hash after it.
import { jcsDigest } from './digest.ts';
import type { AnswerEvidence } from './question.ts';
import { isoTime } from './question-view.ts';

export const AUDIT_ENTRY_TYPES = [
  'ASKED',
  'DELIVERED',
  'DELIVERY_FAILED',
  'REMINDED',
  'ESCALATED',
  'VOTED',
  'ANSWERED',
  'TIMED_OUT',
  'CANCELLED',
  'CALLBACK_REFUSED',
  // API.md §20: a rule decided a question (instead of ANSWERED); a rule was put or deleted.
  'DECIDED_BY_POLICY',
  'POLICY_CHANGED',
  // §20 grants: given while approving, used by a later ask, revoked.
  'GRANT_GIVEN',
  'GRANT_USED',
  'GRANT_REVOKED',
  // §23: an approval used once, and what its use did.
  'CONSUMED',
  'EXECUTED',
  // §22: a person handed their questions to a delegate, or took them back early.
  'DELEGATION_SET',
  'DELEGATION_ENDED',
  // §22: a person claimed a pending question, or a claim was ended early; a person's quiet hours
  // or digest changed.
  'CLAIMED',
  'UNCLAIMED',
  'NOTIFICATION_PREFS_CHANGED',
  // §22: a channel recipient confirmed as a person's (their quiet hours hold its deliveries), or unlinked.
  'CHANNEL_LINKED',
  'CHANNEL_UNLINKED',
  // A person registered a passkey for step-up (API.md §23).
  'PASSKEY_REGISTERED',
] as const;

export type AuditEntryType = (typeof AUDIT_ENTRY_TYPES)[number];

/**
 * The status a question left PENDING with, from the entry that records it: a rule's decision
 * (DECIDED_BY_POLICY) is an answer, as its receipt says. Null for entries that resolve nothing.
 */
export function resolvedStatusOf(type: string): 'ANSWERED' | 'TIMED_OUT' | 'CANCELLED' | null {
  if (type === 'ANSWERED' || type === 'DECIDED_BY_POLICY') return 'ANSWERED';
  if (type === 'TIMED_OUT' || type === 'CANCELLED') return type;
  return null;
}

/** Small facts about an entry: digests, formats, channel names, decisions — never a value or a secret. */
export type AuditDetail = Record<string, string | number | boolean | null>;

/**
 * An entry as the step that made the change writes it: numbered, timed (epoch ms) and not yet
 * chained. On Redis the Lua script writes it; the chain is added by Node right after (Lua has
 * no SHA-256), in seq order (see store/audit.ts).
 */
export interface AuditDraft {
  seq: number;
  at: number;
  type: AuditEntryType;
  questionId: string | null;
  actor: string | null;
  via: string | null;
  detail: AuditDetail | null;
}

/** An entry of the log, as read, exported and hashed. */
export interface AuditEntry {
  seq: number;
  /** ISO 8601 UTC with milliseconds. */
  at: string;
  type: AuditEntryType;
  questionId: string | null;
  actor: string | null;
  via: string | null;
  detail: AuditDetail | null;
  /** The previous entry's hash; null for the very first entry. */
  prev: string | null;
  hash: string;
}

/** The last entry of the chain: what the export signs so a cut export is detectable. */
export interface AuditHead {
  seq: number;
  hash: string;
}

/** The hash an entry must carry: over every field but `hash` itself. */
export function auditHashOf(entry: Omit<AuditEntry, 'hash'> | AuditEntry): string {
  // Every member but `hash`, whatever they are: a verifier must see a member added to an entry.
  const { hash: _ignored, ...rest } = entry as AuditEntry;
  return jcsDigest(rest);
}

/** A draft chained after `prev` (the hash of the entry before it, null for the first). */
export function chainAuditEntry(d: AuditDraft, prev: string | null): AuditEntry {
  const body: Omit<AuditEntry, 'hash'> = {
    seq: d.seq,
    at: isoOf(d.at),
    type: d.type,
    questionId: d.questionId,
    actor: d.actor,
    via: d.via,
    detail: d.detail,
    prev,
  };
  // RFC 8785 through the JCS library, as verifiers compute it (digest.ts). Writing the canonical
  // form by hand measured about 7 µs less per entry (bench/README.md, issue 46); chaining is off
  // the claim's path, and the project keeps JCS in the library rather than a second copy of it.
  return { ...body, hash: auditHashOf(body) };
}

/** A draft chained after `prev`, as its hash and the JSON text a store keeps. */
export function chainedAuditJson(d: AuditDraft, prev: string | null): { hash: string; json: string } {
  const e = chainAuditEntry(d, prev);
  return { hash: e.hash, json: JSON.stringify(e) };
}

// Consecutive entries mostly share their millisecond: one Date and toISOString for a run of them.
let lastAtMs = Number.NaN;
let lastAtIso = '';
function isoOf(ms: number): string {
  if (ms !== lastAtMs) {
    lastAtIso = isoTime(ms);
    lastAtMs = ms;
  }
  return lastAtIso;
}

/**
 * The door a change came through, from who made it: `callback` (a callback URL), `mcp` (an MCP
 * client's own user), `policy` (a rule, API.md §20), `channel:<name>` (a channel user of the question's channel) or `api` (a
 * key). Mirrors audit_via in common.lua and the receipt's via.
 */
export function auditViaOf(actor: string | null, channel: string | null): string | null {
  if (actor === null) return null;
  if (actor === 'callback') return 'callback';
  // Decided by a rule (API.md §20): answeredBy `policy:<id>`.
  if (actor.startsWith('policy:')) return 'policy';
  // Put to the asker's own user by its MCP client (elicitation, API.md §13.1), as in receipts.
  if (actor.startsWith('mcp:')) return 'mcp';
  if (channel !== null && channel !== '' && actor.startsWith(`${channel}:`)) return `channel:${channel}`;
  return 'api';
}

/**
 * What an answer's entry may say about it: its digest and, for a decision (an APPROVAL's
 * `decision`, a CONFIRM's yes or no), the decision. Nothing for a sensitive question (its answer
 * is not stored; even a digest of a yes/no would give it away).
 */
export function answerAuditDetail(answer: unknown): AuditDetail {
  if (answer === null || answer === undefined) return {};
  const detail: AuditDetail = { answerDigest: jcsDigest(answer) };
  if (answer === true) detail.decision = 'APPROVED';
  else if (answer === false) detail.decision = 'REJECTED';
  else if (typeof answer === 'object' && !Array.isArray(answer)) {
    const d = (answer as Record<string, unknown>).decision;
    if (d === 'APPROVED' || d === 'REJECTED') detail.decision = d;
  }
  return detail;
}

/** The facts of an answer's evidence an audit entry carries (never a secret: digests and an id). */
export function evidenceAuditDetail(e: AnswerEvidence | null | undefined): AuditDetail {
  if (!e) return {};
  const d: AuditDetail = {};
  if (e.presentedDigest) d.presentedDigest = e.presentedDigest;
  if (e.assurance) d.assurance = e.assurance;
  if (e.credentialId) d.credentialId = e.credentialId;
  return d;
}

/** What an ASKED entry says of the question: its format, the digest of its text, its channel. */
export function askedAuditDetail(spec: {
  format: string;
  text: string;
  channel: string | null;
}): AuditDetail {
  const detail: AuditDetail = { format: spec.format, textDigest: jcsDigest(spec.text) };
  if (spec.channel) detail.channel = spec.channel;
  return detail;
}
