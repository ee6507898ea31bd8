// What the framework adapters (tai-interactions/openai, tai-interactions/ai-sdk) share: a
// framework's "may I run this tool?" turned into an APPROVAL question (API.md §15, §21), and the
// decision turned back into the words the framework passes on to its model.
import { type InteractionsClient, requireQuestion } from '../client.ts';
import { CancelledError, TimedOutError } from '../errors.ts';
import type { Approval, ApprovalRequest, AskBase, AskUserOptions, Question, QuorumInput } from '../types.ts';

/** The tool call a framework asks about, as the adapters see it. */
export interface ToolCallToApprove {
  /** The framework's tool name (for a hosted MCP tool, the tool on that server). */
  tool: string;
  /** The tool's input as the framework gave it (an object, or the JSON string of one). */
  input: unknown;
  /** Where it came from, e.g. the MCP server's label; part of the default action name. */
  source?: string | undefined;
}

/**
 * Where and how the adapters ask: the routing of any question (API.md §4, §18), plus the
 * question's text and action name when the defaults do not suit.
 */
export interface ApprovalOptions
  extends Pick<
    AskBase,
    | 'audience'
    | 'channel'
    | 'recipient'
    | 'timeoutSeconds'
    | 'groupId'
    | 'metadata'
    | 'escalation'
    | 'escalationPolicy'
  > {
  /** Several approvers (API.md §15). */
  quorum?: QuorumInput | undefined;
  /** The question people read (default: "Allow <tool>?" with its source). */
  text?: string | ((call: ToolCallToApprove) => string) | undefined;
  /**
   * The action's name, 1–100 of A-Z a-z 0-9 _ . : - (policies match on it). Default:
   * `<adapter>.<tool>` (`openai.mcp.<server>.<tool>`, `openai-agents.<tool>`, `ai-sdk.<tool>`),
   * with other characters replaced by `_`.
   */
  actionName?: ((call: ToolCallToApprove) => string) | undefined;
  /**
   * What a question that nobody decided (timed out or cancelled) becomes. `throw` (the default)
   * rejects with TimedOutError / CancelledError: a timeout is never a rejection. `deny` answers
   * the framework with a denial whose reason names the question, so the run can go on.
   */
  undecided?: 'throw' | 'deny' | undefined;
  /** Stops waiting (the question stays pending). */
  signal?: AbortSignal | undefined;
  /** Called as soon as each question is recorded, before any decision. */
  onAsked?: AskUserOptions['onAsked'];
}

/** The decision in the terms every framework takes: approved or not, and a reason. */
export interface ToolDecision {
  approved: boolean;
  /** For a denial: who rejected it and their note; for an approval: the note, if any. */
  reason: string | undefined;
  /** The question that carried it (timed out or cancelled when `undecided: 'deny'` denied it). */
  question: Question;
}

const ACTION_MAX = 100;
const SUMMARY_MAX = 300;

/** A name the API takes as an action name: its characters, at most 100 of them. */
export function safeActionName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_.:-]/g, '_').slice(0, ACTION_MAX);
  return cleaned.length > 0 ? cleaned : 'tool';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A tool's input as the JSON object an APPROVAL carries. A JSON string is parsed (OpenAI sends
 * arguments that way); anything that is not an object is kept whole under `input`, so people see
 * exactly what the model proposed.
 */
export function argumentsObject(input: unknown): Record<string, unknown> {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = input.trim() === '' ? {} : JSON.parse(input);
    } catch {
      value = input;
    }
  }
  return isPlainObject(value) ? value : { input: value ?? null };
}

function clip(s: string, max: number): string {
  const chars = [...s];
  return chars.length <= max ? s : `${chars.slice(0, max - 1).join('')}…`;
}

/** One line for people: the tool and its arguments, cut to the API's 300 characters. */
export function summaryOf(call: ToolCallToApprove, args: Record<string, unknown>): string {
  const where = call.source ? ` (${call.source})` : '';
  return clip(`${call.tool}${where} ${JSON.stringify(args)}`.replace(/\s+/g, ' '), SUMMARY_MAX);
}

/** Why a person (or a rule) said no, in one sentence the model can read. */
export function rejectionReason(approval: Approval<unknown>): string {
  const by = approval.question.answeredByName ?? approval.question.answeredBy;
  const head = by ? `Rejected by ${by}` : 'Rejected';
  return approval.note ? `${head}: ${approval.note}` : head;
}

function undecidedReason(question: Question): string {
  const what = question.status === 'CANCELLED' ? 'was cancelled' : 'was not decided in time';
  return `Not approved: the approval ${question.id} ${what}`;
}

/**
 * The APPROVAL question for one tool call: named `defaultName` (or `actionName`), not editable
 * (none of these frameworks can take edited input back).
 */
export function approvalRequestFor(
  call: ToolCallToApprove,
  defaultName: string,
  options: ApprovalOptions,
  extraMetadata?: Record<string, unknown>,
): ApprovalRequest<undefined> {
  const args = argumentsObject(call.input);
  const text =
    typeof options.text === 'function'
      ? options.text(call)
      : (options.text ?? `Allow ${call.tool}${call.source ? ` on ${call.source}` : ''}?`);
  const metadata = extraMetadata || options.metadata ? { ...options.metadata, ...extraMetadata } : undefined;
  return {
    ...routingOf(options),
    text,
    metadata,
    action: {
      name: safeActionName(options.actionName ? options.actionName(call) : defaultName),
      summary: summaryOf(call, args),
      arguments: args,
    },
  };
}

/** Asks for approval of one tool call and waits for the decision. */
export async function decideToolCall(
  client: InteractionsClient,
  call: ToolCallToApprove,
  defaultName: string,
  options: ApprovalOptions,
  signal: AbortSignal | undefined = options.signal,
): Promise<ToolDecision> {
  try {
    const approval = await client.askApproval(approvalRequestFor(call, defaultName, options), {
      signal,
      onAsked: options.onAsked,
    });
    return approval.decision === 'APPROVED'
      ? { approved: true, reason: approval.note ?? undefined, question: approval.question }
      : { approved: false, reason: rejectionReason(approval), question: approval.question };
  } catch (err) {
    if (options.undecided === 'deny' && (err instanceof TimedOutError || err instanceof CancelledError)) {
      return { approved: false, reason: undecidedReason(err.question), question: err.question };
    }
    throw err;
  }
}

/** The routing fields of the options, and nothing else (the rest is the adapter's). */
export function routingOf(o: ApprovalOptions): Omit<AskBase, 'text'> & { quorum?: QuorumInput } {
  const out: Omit<AskBase, 'text'> & { quorum?: QuorumInput } = {};
  if (o.audience !== undefined) out.audience = o.audience;
  if (o.channel !== undefined) out.channel = o.channel;
  if (o.recipient !== undefined) out.recipient = o.recipient;
  if (o.timeoutSeconds !== undefined) out.timeoutSeconds = o.timeoutSeconds;
  if (o.groupId !== undefined) out.groupId = o.groupId;
  if (o.escalation !== undefined) out.escalation = o.escalation;
  if (o.escalationPolicy !== undefined) out.escalationPolicy = o.escalationPolicy;
  if (o.quorum !== undefined) out.quorum = o.quorum;
  return out;
}

/** The decision a resolved question carries, read the way `decideToolCall` reads it. */
export function decisionOfQuestion(question: Question, undecided: 'throw' | 'deny' = 'throw'): ToolDecision {
  if (question.status === 'ANSWERED') {
    const answer = (question.answer ?? {}) as { note?: string | null };
    const note = typeof answer.note === 'string' ? answer.note : null;
    if (question.decision === 'APPROVED') return { approved: true, reason: note ?? undefined, question };
    const approval = { decision: 'REJECTED', arguments: null, note, edited: false, question } as const;
    return { approved: false, reason: rejectionReason(approval), question };
  }
  if (undecided === 'deny') return { approved: false, reason: undecidedReason(question), question };
  if (question.status === 'CANCELLED') throw new CancelledError(question);
  throw new TimedOutError(question);
}

/**
 * Runs one wait per item at once and resolves with all results in order. The first failure
 * stops the other waits (their questions stay pending on the server) and is the one thrown, so
 * no wait outlives the call that started it.
 */
export async function allOrNothing<T, R>(
  items: readonly T[],
  outer: AbortSignal | undefined,
  each: (item: T, signal: AbortSignal) => Promise<R>,
): Promise<R[]> {
  const stop = new AbortController();
  const signal = outer ? AbortSignal.any([outer, stop.signal]) : stop.signal;
  try {
    return await Promise.all(items.map((item) => each(item, signal)));
  } catch (err) {
    stop.abort(err);
    throw err;
  }
}

/** Asks about one tool call without waiting (with the resume webhook `notify`, when given). */
export async function parkToolCall(
  client: InteractionsClient,
  call: ToolCallToApprove,
  defaultName: string,
  options: ApprovalOptions,
  notify: string | undefined,
  extraMetadata: Record<string, unknown>,
): Promise<Question> {
  const input = approvalRequestFor(call, defaultName, options, extraMetadata);
  const asked = await client.ask(
    { ...input, format: 'APPROVAL', ...(notify ? { notify } : {}) },
    { signal: options.signal },
  );
  options.onAsked?.(asked.question, asked.callbackUrl);
  return asked.question;
}

/**
 * The decisions of parked questions, in order, once every one is settled; null while any is
 * still pending. A question nobody decided follows `undecided`.
 */
export async function parkedDecisions(
  client: InteractionsClient,
  questionIds: readonly string[],
  undecided: ApprovalOptions['undecided'],
): Promise<ToolDecision[] | null> {
  const questions = await Promise.all(questionIds.map((id) => requireQuestion(client, id)));
  if (questions.some((q) => q.status === 'PENDING')) return null;
  return questions.map((q) => decisionOfQuestion(q, undecided));
}
