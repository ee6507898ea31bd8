// How long and how much: the default answer timeout, the hold of a blocking call, the pending
// caps (in questions and in media bytes), the outbox's cap, the callback body cap, the public doors' rate and the
// reaper's tick (API.md §1).
import {
  DEFAULT_MAX_PENDING_MEDIA_BYTES,
  DEFAULT_MAX_PENDING_MEDIA_BYTES_PER_PRINCIPAL,
  DEFAULT_MAX_PENDING_PER_PRINCIPAL,
  DEFAULT_OUTBOX_MAX,
} from '../../domain/quotas.ts';
import { settingsArea, wholeNumber } from './fields.ts';

export interface LimitSettings {
  readonly answerTimeoutSeconds: number;
  readonly holdSeconds: number;
  readonly maxPending: number;
  /** Pending questions one principal may have at once (a key's `maxPending` overrides it). */
  readonly maxPendingPerPrincipal: number;
  /** Media bytes of one principal's pending questions together. */
  readonly maxPendingMediaBytesPerPrincipal: number;
  /** Media bytes of every pending question together. */
  readonly maxPendingMediaBytes: number;
  /** Outbox items at which questions with follow-ups are refused (API.md §12). */
  readonly outboxMax: number;
  readonly callbackMaxBodyBytes: number;
  readonly reaperIntervalMs: number;
  readonly rateLimitPerMinute: number;
}

export const limitSettings = settingsArea({
  env: {
    INTERACTIONS_ANSWER_TIMEOUT_SECONDS: wholeNumber(3600, 1, 31_536_000),
    INTERACTIONS_HOLD_SECONDS: wholeNumber(50, 0, 3600),
    INTERACTIONS_MAX_PENDING: wholeNumber(10_000, 1),
    INTERACTIONS_MAX_PENDING_PER_PRINCIPAL: wholeNumber(DEFAULT_MAX_PENDING_PER_PRINCIPAL, 1),
    INTERACTIONS_MAX_PENDING_MEDIA_BYTES_PER_PRINCIPAL: wholeNumber(
      DEFAULT_MAX_PENDING_MEDIA_BYTES_PER_PRINCIPAL,
      0,
    ),
    INTERACTIONS_MAX_PENDING_MEDIA_BYTES: wholeNumber(DEFAULT_MAX_PENDING_MEDIA_BYTES, 0),
    INTERACTIONS_OUTBOX_MAX: wholeNumber(DEFAULT_OUTBOX_MAX, 1),
    INTERACTIONS_CALLBACK_MAX_BODY_BYTES: wholeNumber(65_536, 1, 16_777_216),
    INTERACTIONS_REAPER_INTERVAL_MS: wholeNumber(1000, 50, 60_000),
    INTERACTIONS_RATE_LIMIT_PER_MINUTE: wholeNumber(120, 1),
  },
  read: (e): LimitSettings => ({
    answerTimeoutSeconds: e.INTERACTIONS_ANSWER_TIMEOUT_SECONDS,
    holdSeconds: e.INTERACTIONS_HOLD_SECONDS,
    maxPending: e.INTERACTIONS_MAX_PENDING,
    maxPendingPerPrincipal: e.INTERACTIONS_MAX_PENDING_PER_PRINCIPAL,
    maxPendingMediaBytesPerPrincipal: e.INTERACTIONS_MAX_PENDING_MEDIA_BYTES_PER_PRINCIPAL,
    maxPendingMediaBytes: e.INTERACTIONS_MAX_PENDING_MEDIA_BYTES,
    outboxMax: e.INTERACTIONS_OUTBOX_MAX,
    callbackMaxBodyBytes: e.INTERACTIONS_CALLBACK_MAX_BODY_BYTES,
    reaperIntervalMs: e.INTERACTIONS_REAPER_INTERVAL_MS,
    rateLimitPerMinute: e.INTERACTIONS_RATE_LIMIT_PER_MINUTE,
  }),
});
