// API.md §22 from the SDK: a person's delegation (out of office), quiet hours and digest, the
// channel recipients linked to them, and claims on questions. One request each.
import {
  type ChannelLinkFieldsFragment,
  type DelegationFieldsFragment,
  LinkChannelDocument,
  type LinkChannelMutation,
  type NotificationPrefsFieldsFragment,
  type NotificationPrefsInput,
  PeopleChannelLinksDocument,
  PeopleClaimQuestionDocument,
  PeopleEndDelegationDocument,
  PeopleSetDelegationDocument,
  PeopleSetNotificationPrefsDocument,
  PeopleSettingsDocument,
  PeopleUnclaimQuestionDocument,
  UnlinkChannelDocument,
} from './generated/graphql.ts';
import type { Transport } from './transport.ts';
import type { Question } from './types.ts';

export type Delegation = DelegationFieldsFragment;
export type NotificationPrefs = NotificationPrefsFieldsFragment;
export type ChannelLink = ChannelLinkFieldsFragment;
/** The yes/no question `linkChannel` sent the recipient: the link is made when it says yes there. */
export type LinkQuestion = LinkChannelMutation['linkChannel'];

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
  /** The channel recipients linked to the caller (their quiet hours hold them), newest first. */
  channelLinks(): Promise<ChannelLink[]>;
  /**
   * Asks `recipient` on `channel` to confirm a link to the caller: a "yes" answered there links
   * it (within 15 minutes). Resolves with the question sent, not the link.
   */
  linkChannel(channel: string, recipient: string): Promise<LinkQuestion>;
  /** Ends the caller's link of `recipient` on `channel`; false when they had none. */
  unlinkChannel(channel: string, recipient: string): Promise<boolean>;
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
    async channelLinks() {
      return (await transport.request(PeopleChannelLinksDocument, {})).viewer.channelLinks;
    },
    async linkChannel(channel, recipient) {
      return (await transport.request(LinkChannelDocument, { channel, recipient })).linkChannel;
    },
    async unlinkChannel(channel, recipient) {
      return (await transport.request(UnlinkChannelDocument, { channel, recipient })).unlinkChannel;
    },
    async claimQuestion(id) {
      return (await transport.request(PeopleClaimQuestionDocument, { id })).claimQuestion;
    },
    async unclaimQuestion(id) {
      return (await transport.request(PeopleUnclaimQuestionDocument, { id })).unclaimQuestion;
    },
  };
}
