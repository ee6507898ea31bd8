// tai-interactions/client: the typed SDK for agents and tools. HTTP only; see docs/sdk-and-cli.md.

export {
  type AuditExportSummary,
  AuditVerificationError,
  type VerifyAuditOptions,
  verifyAuditExport,
} from './audit.ts';
export type { RetryPolicy } from './backoff.ts';
export {
  type ClientOptions,
  createInteractionsClient,
  type InteractionsClient,
  requireQuestion,
} from './client.ts';
export {
  AlreadyAnsweredError,
  AnswerUnavailableError,
  API_ERROR_CLASSES,
  API_ERROR_STATUS,
  type ApiErrorCode,
  BadUserInputError,
  CancelledError,
  ChannelDeliveryFailedError,
  type ClientErrorCode,
  type ErrorCode,
  ForbiddenError,
  InteractionsError,
  InternalError,
  InvalidAnswerError,
  LimitExceededError,
  NetworkError,
  NotConfiguredError,
  NotFoundError,
  PayloadTooLargeError,
  QuestionClosedError,
  RateLimitedError,
  TimedOutError,
  UnauthenticatedError,
  UnavailableError,
  WrongDoorError,
} from './errors.ts';
export type { ExecutionMethods, ReportOptions } from './execution.ts';
export type {
  ChannelLink,
  Delegation,
  LinkQuestion,
  NotificationPrefs,
  PeopleMethods,
  PeopleSettings,
} from './people.ts';
export {
  type ReceiptAction,
  type ReceiptClaims,
  type ReceiptFailure,
  type ReceiptOutcomeClaims,
  type ReceiptQuestionClaims,
  ReceiptVerificationError,
  type VerifyReceiptOptions,
  verifyReceipt,
} from './receipts.ts';
export type { FetchLike } from './transport.ts';
export type * from './types.ts';
export {
  type ExecutedWebhook,
  type ResolvedWebhook,
  verifyWebhook,
  type WebhookEvent,
  type WebhookHeaders,
  WebhookVerificationError,
} from './webhooks.ts';
