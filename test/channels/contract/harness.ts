// What the shared channel contract suite (suite.ts) needs to know about one channel: a small
// harness per channel, one file each in this folder (`<plugin>.test.ts`), which starts the fake of
// its provider, names the manifest lines that configure the plugin against it, reads back what the
// provider received, and builds the requests the provider would post to the inbound door.
//
// Adding a channel (Discord, Teams, …) to the contract: write `test/channels/contract/<name>.test.ts`
// with a `ChannelHarness` for it and a call of `runChannelContract(harness)`. Leave out `resolved`
// when the medium cannot show the outcome afterwards (a text message cannot be edited), and
// `inbound` when the channel takes no inbound requests (answers then come through the callback
// door, and the suite checks the channel's inbound door is the uniform 404).
import type fc from 'fast-check';

/** What the provider received for one question (or one edit): every string in it, and the raw call. */
export interface Delivered {
  /** Every string leaf of the provider's request (texts, labels, URLs, headers that carry content). */
  strings: string[];
  raw: unknown;
}

/** A request to the channel's inbound door as the provider would post it. */
export interface InboundHttp {
  body: Buffer;
  headers: Record<string, string>;
}

/** What an inbound answer chooses (the formats every inbound channel answers from its message). */
export type Choice = { confirm: boolean } | { select: number };

/**
 * The question as the suite asked it, plus what the provider received for it. On an APPROVAL,
 * `{confirm: true}` presses Approve and `{confirm: false}` Reject.
 */
export interface AskedQuestion {
  id: string;
  format: 'CONFIRM' | 'SELECT' | 'APPROVAL';
  options: string[] | null;
  delivered: Delivered;
}

/** Where an inbound request's signature lives (see `inbound.signed`). */
export type Signed = 'body' | { header: string } | { bodyFields: string[] };

export interface ChannelHarness {
  /** The channel instance's name in the manifest. */
  channel: string;
  /**
   * Starts the provider's fake; returns the manifest lines for this channel (indented under
   * `channels:`, starting with `  <channel>:`) and the environment its `*Env` keys name.
   */
  start(): Promise<{ lines: string[]; env: Record<string, string> }>;
  close(): Promise<void>;
  /** The first delivery (already made or not) with a string containing `marker` (the question's text). */
  delivered(marker: string): Promise<Delivered>;
  /** The first reminder (an escalation's REMIND, API.md §18) for the question whose text contains `marker`. */
  reminded(marker: string): Promise<Delivered>;
  /** How the medium shows the outcome afterwards; absent when it cannot. */
  resolved?: {
    /** The first edit (or follow-up) made for the question whose text contains `marker`. */
    edited(marker: string): Promise<Delivered>;
    /**
     * What an edit says after an answer in the inbox by `ops`, a timeout, a cancel with `reason`,
     * and after `ops` approved an edited action in the inbox.
     */
    says: { inbox: RegExp; timedOut: RegExp; cancelled(reason: string): RegExp; approvedWithChanges: RegExp };
  };
  /** The provider's inbound door; absent when the channel takes no inbound requests. */
  inbound?: {
    /** A request signed as the provider signs it that answers `question` with `choice`. */
    answer(question: AskedQuestion, choice: Choice): InboundHttp;
    /** The provider user id the answer is recorded under (`answeredBy` = `<channel>:<by>`). */
    by: string;
    /**
     * What is signed: the body bytes; a header whose value is the secret itself (Telegram, basic
     * credentials); or some fields of a form-encoded body (Mailgun signs its timestamp and token
     * fields, not the message). A single changed byte there must be a 401.
     */
    signed: Signed;
    /** Requests shaped like the provider's, signed wrongly or not at all. */
    forged: fc.Arbitrary<InboundHttp>;
    /** The largest body the door takes (the suite posts forgeries up to it). */
    maxBytes: number;
  };
}
