// The inbox's view of a question: the generated GraphQL result type, read as it arrives.
import type {
  AnswerFormat,
  InboxEventType,
  QuestionFieldsFragment,
  QuestionStatus,
} from '../../client/generated/graphql.ts';

export type Question = QuestionFieldsFragment;
export type { AnswerFormat, InboxEventType, QuestionStatus };

export interface FeedEvent {
  type: InboxEventType;
  questions: readonly Question[];
  /** More of the backlog follows (each part an ASKED) until the first event without it. */
  more: boolean;
}

export interface Viewer {
  id: string;
  roles: readonly string[];
  restricted: boolean;
  /** A signed-in person's name (API.md §19); keys have none. */
  name?: string;
  /** Whose questions they receive while those people are away (API.md §22), when read. */
  actingFor?: readonly string[];
}

/** Milliseconds since the epoch of an RFC 3339 time; NaN when it does not parse. */
export function timeOf(value: string | null | undefined): number {
  return value ? Date.parse(value) : Number.NaN;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
