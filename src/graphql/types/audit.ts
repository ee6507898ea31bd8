// The audit log's types (API.md §17): entries, their pages and the filter.
import { AUDIT_ENTRY_TYPES, type AuditEntry as AuditEntryShape } from '../../domain/audit.ts';
import type { AuditEdge as AuditEdgeShape, AuditPageResult } from '../../engine/views/audit.ts';
import { builder } from '../builder.ts';
import { DateTime, JSONObjectScalar } from '../scalars.ts';
import { PageInfo } from './page-info.ts';

const TYPE_DESCRIPTIONS: Record<(typeof AUDIT_ENTRY_TYPES)[number], string> = {
  ASKED: 'The question was asked.',
  DELIVERED: 'A channel took the question.',
  DELIVERY_FAILED: 'A channel could not deliver the question.',
  REMINDED: 'A reminder was sent (an escalation step).',
  ESCALATED: 'The question was delivered to another channel or recipient (an escalation step).',
  VOTED: 'A vote was counted towards a quorum.',
  ANSWERED: 'The question was answered.',
  TIMED_OUT: 'Nobody answered in time.',
  CANCELLED: 'The question was cancelled.',
  CALLBACK_REFUSED:
    'A callback whose signature failed, or a channel event from a place the question was not delivered to, was refused (the question did not change).',
  DECIDED_BY_POLICY:
    'A policy rule decided the question (approved or rejected) without asking anyone; detail names the rule, its version and effect.',
  POLICY_CHANGED: 'A policy rule was put or deleted.',
  GRANT_GIVEN: 'A person approving a question allowed the same for a while (a grant).',
  GRANT_USED: 'A grant decided a question (one use counted).',
  GRANT_REVOKED: 'A grant was ended before its time.',
  CONSUMED: 'An approval was used, once, by its asker or a named executor.',
  EXECUTED: 'The outcome of a used approval was reported.',
  DELEGATION_SET:
    'A person handed their questions to a delegate until a time (detail: `to`, `until`; the reason is not kept here).',
  DELEGATION_ENDED: 'A person ended their delegation before its end time (detail: `to`).',
  CLAIMED: 'A person claimed a pending question: they are looking at it (detail: `until`).',
  UNCLAIMED: 'A claim was ended before it lapsed, by its claimer or an operator (detail: `claimedBy`).',
  NOTIFICATION_PREFS_CHANGED:
    'A person set their quiet hours and digest (detail: `digest`, `quietFrom`, `quietTo`, `timeZone`).',
  CHANNEL_LINKED:
    'A channel recipient was confirmed, by an answer from that channel, as a person’s: their quiet hours hold its deliveries (detail: `person`, `channel`, `confirmedBy`).',
  CHANNEL_UNLINKED: 'A person unlinked a channel recipient (detail: `channel`).',
  PASSKEY_REGISTERED:
    'A signed-in person registered a passkey or security key for step-up approvals (detail: credentialId).',
};

export const AuditEntryType = builder.enumType('AuditEntryType', {
  description: 'What an audit entry records.',
  values: Object.fromEntries(
    AUDIT_ENTRY_TYPES.map((t) => [t, { description: TYPE_DESCRIPTIONS[t] }]),
  ) as Record<(typeof AUDIT_ENTRY_TYPES)[number], { description: string }>,
});

export const AuditEntry = builder.objectRef<AuditEntryShape>('AuditEntry').implement({
  description:
    'One entry of the hash-chained audit log: `hash` is SHA-256 over the RFC 8785 canonical JSON of the entry without `hash`, and `prev` the hash of the entry before it.',
  fields: (t) => ({
    seq: t.exposeInt('seq', { description: 'Its place in the log: starts at 1, rises by 1.' }),
    at: t.field({ type: DateTime, description: 'When it happened.', resolve: (e) => Date.parse(e.at) }),
    type: t.field({ type: AuditEntryType, description: 'What happened.', resolve: (e) => e.type }),
    questionId: t.id({
      nullable: true,
      description: 'The question it concerns.',
      resolve: (e) => e.questionId,
    }),
    actor: t.string({
      nullable: true,
      description:
        'Who made the change (a principal id, `<channel>:<user>`, `callback`); null when nobody did (a timeout).',
      resolve: (e) => e.actor,
    }),
    via: t.string({
      nullable: true,
      description: 'The door: `api`, `callback` or `channel:<name>`.',
      resolve: (e) => e.via,
    }),
    detail: t.field({
      type: JSONObjectScalar,
      nullable: true,
      description: 'Small facts: digests, the format, the channel, a decision. Never an answer or a secret.',
      resolve: (e) => e.detail,
    }),
    prev: t.string({
      nullable: true,
      description: 'The previous entry’s hash; null for the first entry.',
      resolve: (e) => e.prev,
    }),
    hash: t.exposeString('hash', { description: '`sha256:<hex>` over the entry without `hash`.' }),
  }),
});

export const AuditEdge = builder.objectRef<AuditEdgeShape>('AuditEdge').implement({
  description: 'An entry in a page of the audit log.',
  fields: (t) => ({
    node: t.field({ type: AuditEntry, description: 'The entry.', resolve: (e) => e.node }),
    cursor: t.exposeString('cursor', { description: 'Pass as `after` to continue after this entry.' }),
  }),
});

export const AuditConnection = builder.objectRef<AuditPageResult>('AuditConnection').implement({
  description: 'A page of the audit log, oldest first.',
  fields: (t) => ({
    edges: t.field({
      type: [AuditEdge],
      description: 'The entries on this page, oldest first.',
      resolve: (p) => p.edges,
    }),
    pageInfo: t.field({ type: PageInfo, description: 'Where this page ends.', resolve: (p) => p }),
  }),
});

export const AuditFilter = builder.inputType('AuditFilter', {
  description: 'Which audit entries to list. Every given condition must hold.',
  fields: (t) => ({
    questionId: t.id({ description: 'Only the entries of this question.' }),
    since: t.field({ type: DateTime, description: 'Only entries at or after this moment.' }),
    until: t.field({ type: DateTime, description: 'Only entries before this moment.' }),
    types: t.field({
      type: [AuditEntryType],
      description: 'Any of these types; every type when omitted or empty.',
    }),
  }),
});
