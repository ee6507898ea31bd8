// API.md §22 from the SDK: a person's delegation (out of office), quiet hours and digest, and
// claims on questions. One request each.
import {
  type DelegationFieldsFragment,
  type NotificationPrefsFieldsFragment,
  type NotificationPrefsInput,
  PeopleClaimQuestionDocument,
  PeopleEndDelegationDocument,
  PeopleSetDelegationDocument,
  PeopleSetNotificationPrefsDocument,
  PeopleSettingsDocument,
  PeopleUnclaimQuestionDocument,
} from './generated/graphql.ts';
import type { Transport } from './transport.ts';
import type { Question } from './types.ts';

export type Delegation = DelegationFieldsFragment;
export type NotificationPrefs = NotificationPrefsFieldsFragment;

export interface PeopleSettings {
  id: string;
  /** The people whose questions the caller receives now by delegation. */
  actingFor: string[];
  delegation: Delegation | null;
  notificationPrefs: NotificationPrefs;
}

export interface PeopleMethods {
  /** The caller's delegation, whom they act for, their quiet hours and digest. */
  peopleSettings(): Promise<PeopleSettings>;
  /** Hands the caller's questions to `to` until `until` (at most 90 days; not to oneself). */
  setDelegation(to: string, until: Date | string, reason?: string): Promise<Delegation>;
  /** Ends the caller's delegation now; false when there was none. */
  endDelegation(): Promise<boolean>;
  setNotificationPrefs(input: NotificationPrefsInput): Promise<NotificationPrefs>;
  /** Marks a pending question as being looked at by the caller (lapses after 15 minutes). */
  claimQuestion(id: string): Promise<Question>;
  unclaimQuestion(id: string): Promise<Question>;
}

export function peopleMethods(transport: Transport): PeopleMethods {
  return {
    async peopleSettings() {
      return (await transport.request(PeopleSettingsDocument, {})).viewer;
    },
    async setDelegation(to, until, reason) {
      const at = until instanceof Date ? until.toISOString() : until;
      return (await transport.request(PeopleSetDelegationDocument, { to, until: at, reason: reason ?? null }))
        .setDelegation;
    },
    async endDelegation() {
      return (await transport.request(PeopleEndDelegationDocument, {})).endDelegation;
    },
    async setNotificationPrefs(input) {
      return (await transport.request(PeopleSetNotificationPrefsDocument, { input })).setNotificationPrefs;
    },
    async claimQuestion(id) {
      return (await transport.request(PeopleClaimQuestionDocument, { id })).claimQuestion;
    },
    async unclaimQuestion(id) {
      return (await transport.request(PeopleUnclaimQuestionDocument, { id })).unclaimQuestion;
    },
  };
}
