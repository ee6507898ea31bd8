import { isZodSchema, outcome, prepareAsk } from './ask-input.ts';
import { DEFAULT_RETRY, type RetryPolicy } from './backoff.ts';
import { InvalidAnswerError, NotFoundError } from './errors.ts';
import { type ExecutionMethods, executionMethods } from './execution.ts';
import { externalAsker } from './external.ts';
import {
  ClientAnswerDocument,
  ClientAskUserDocument,
  ClientAwaitAnswerDocument,
  ClientCancelQuestionDocument,
  ClientChannelDetailsDocument,
  ClientChannelsDocument,
  ClientOutboxDeadLettersDocument,
  ClientPrepareExternalDocument,
  ClientQuestionDocument,
  ClientQuestionsDocument,
  ClientReceiptDocument,
  ClientViewerDocument,
} from './generated/graphql.ts';
import { subscribeInbox } from './inbox.ts';
import { type PeopleMethods, peopleMethods } from './people.ts';
import { type FetchLike, Transport } from './transport.ts';
import type {
  AnswerOf,
  AnswerSchema,
  Approval,
  ApprovalAnswer,
  ApprovalRequest,
  ArgumentsOf,
  AskExternalOptions,
  AskedQuestion,
  AskInput,
  AskResult,
  AskUserOptions,
  ChannelDetail,
  ExternalAsker,
  ExternalTool,
  InboxSubscription,
  OutboxDeadLetters,
  PreparedExternal,
  Question,
  QuestionPage,
  QuestionsOptions,
  QuestionsPageOptions,
  SubscribeInboxOptions,
  Viewer,
  WaitOptions,
} from './types.ts';
import { createWaiting } from './waiting.ts';

export interface ClientOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:4000`. */
  url: string;
  /** An API key (sent as `Authorization: Bearer`); omit for a server with access control off. */
  apiKey?: string | undefined;
  /** The fetch to use (default: the global fetch). */
  fetch?: FetchLike | undefined;
  /**
   * Seconds each `awaitAnswer` holds before the server answers PENDING and the SDK asks again
   * (0 to 3600). Default: the server's own (`INTERACTIONS_HOLD_SECONDS`, 50 s by default).
   */
  holdSeconds?: number | undefined;
  /** Backoff for retried calls; any field may be given. */
  retry?: Partial<RetryPolicy> | undefined;
  /** Called before each retry of a failed call, with the error and the delay before it. */
  onRetry?: ((error: unknown, delayMs: number) => void) | undefined;
}

export interface InteractionsClient extends ExecutionMethods, PeopleMethods {
  /** The server's base URL. */
  readonly url: string;
  /**
   * Asks a question and blocks until it is answered, returning the typed answer. Throws
   * TimedOutError or CancelledError when it closes without one, and the error class of the
   * API code when the server refuses the question.
   */
  askUser<const I extends AskInput>(input: I, options?: AskUserOptions): Promise<AnswerOf<I>>;
  /**
   * Asks for approval of a concrete action (format APPROVAL, API.md §15) and blocks until it is
   * decided. Resolves with the decision and, when APPROVED, the arguments as approved (edits
   * included), parsed and typed by `argumentsSchema` when it is a zod schema. A timeout throws
   * TimedOutError: it is never a rejection.
   */
  askApproval<const S extends AnswerSchema | undefined = undefined>(
    input: ApprovalRequest<S>,
    options?: AskUserOptions,
  ): Promise<Approval<ArgumentsOf<S>>>;
  /**
   * Asks a question and returns at once with the recorded question (PENDING), without waiting:
   * for agents that cannot hold a connection. Learn the answer later with `waitFor(id)`, or be
   * called back by asking with `notify`.
   */
  ask(input: AskInput, options?: Pick<AskUserOptions, 'signal' | 'preparedId'>): Promise<AskedQuestion>;
  /**
   * Blocks until the question resolves and returns its answer, like `askUser` (TimedOutError,
   * CancelledError otherwise). For a sensitive question this is the one way to read the answer.
   */
  waitFor(id: string, options?: WaitOptions): Promise<unknown>;
  /** Re-attaches to a question by id and blocks like `askUser` (for a process that restarted). */
  waitForAnswer(id: string, options?: WaitOptions): Promise<AskResult>;
  /**
   * Wraps a tool that builds an external resource from a callback URL (a checkout page, a
   * signing request) and returns the URL to visit. The result takes the tool's own arguments
   * (no `callbackUrl`) plus the question, reserves a callback (`prepareExternal`), calls the
   * tool with it, asks an EXTERNAL question with the returned link and blocks like `askUser`,
   * resolving with the payload the provider posted. If the tool throws, nothing is asked.
   */
  askExternal<A extends { callbackUrl: string }, const S extends AnswerSchema | undefined = undefined>(
    tool: ExternalTool<A>,
    options?: AskExternalOptions<S>,
  ): ExternalAsker<A, S>;
  /** Reserves a question id and callback URL for an EXTERNAL question asked later with `preparedId`. */
  prepareExternal(timeoutSeconds?: number): Promise<PreparedExternal>;
  /** Answers a TEXT, CONFIRM, SELECT, FORM or APPROVAL question (a vote, with a quorum). */
  answer(id: string, answer: unknown): Promise<Question>;
  /** Cancels a pending question: its waiters get CANCELLED. */
  cancel(id: string, reason?: string): Promise<Question>;
  /** One question, or null when there is none the caller may see. */
  question(id: string): Promise<Question | null>;
  /**
   * The signed decision receipt of a resolved question (API.md §16; check it with
   * `verifyReceipt`); null while it is pending or when there is no question the caller may see.
   */
  receipt(id: string): Promise<string | null>;
  /** Every question the caller may see (newest first), fetched page by page as it is iterated. */
  questions(options?: QuestionsOptions): AsyncIterable<Question>;
  /** One page of questions, with the total count. */
  questionsPage(options?: QuestionsPageOptions): Promise<QuestionPage>;
  channels(): Promise<string[]>;
  /** The configured channels with their plugin and whether each is ready. */
  channelDetails(): Promise<ChannelDetail[]>;
  /** Follow-ups the server's outbox gave up, newest first (`first` 1-1000, default 50); admin only. */
  outboxDeadLetters(first?: number): Promise<OutboxDeadLetters>;
  viewer(): Promise<Viewer>;
  /** The live inbox feed: a SNAPSHOT of the pending questions, then changes; reconnects by itself. */
  subscribeInbox(options?: SubscribeInboxOptions): InboxSubscription;
}

/** How long to wait for the answer to an ask (it does not hold) or a read. */
const QUICK_TIMEOUT_MS = 30_000;

type OneRequestMethods = Pick<
  InteractionsClient,
  | 'prepareExternal'
  | 'answer'
  | 'cancel'
  | 'question'
  | 'receipt'
  | 'questionsPage'
  | 'questions'
  | 'channels'
  | 'channelDetails'
  | 'outboxDeadLetters'
  | 'viewer'
>;

/** The calls that are one request each: no hold, no retry loop. */
function oneRequestMethods(transport: Transport): OneRequestMethods {
  const methods: OneRequestMethods = {
    async prepareExternal(timeoutSeconds?: number): Promise<PreparedExternal> {
      const r = await transport.request(ClientPrepareExternalDocument, {
        timeoutSeconds: timeoutSeconds ?? null,
      });
      return r.prepareExternal;
    },

    async answer(id: string, answer: unknown): Promise<Question> {
      const r = await transport.request(ClientAnswerDocument, { id, answer });
      return r.answer;
    },

    async cancel(id: string, reason?: string): Promise<Question> {
      const r = await transport.request(ClientCancelQuestionDocument, { id, reason: reason ?? null });
      return r.cancelQuestion;
    },

    async question(id: string): Promise<Question | null> {
      const r = await transport.request(ClientQuestionDocument, { id });
      return r.question;
    },

    async receipt(id: string): Promise<string | null> {
      const r = await transport.request(ClientReceiptDocument, { id });
      return r.question?.receipt ?? null;
    },

    async questionsPage(o: QuestionsPageOptions = {}): Promise<QuestionPage> {
      const r = await transport.request(ClientQuestionsDocument, {
        filter: o.filter ?? null,
        first: o.first ?? null,
        after: o.after ?? null,
      });
      const { edges, pageInfo, totalCount } = r.questions;
      return { questions: edges.map((e) => e.node), totalCount, pageInfo };
    },

    async *questions(o: QuestionsOptions = {}): AsyncIterable<Question> {
      let after: string | undefined;
      for (;;) {
        const page = await methods.questionsPage({ filter: o.filter, first: o.pageSize ?? 100, after });
        yield* page.questions;
        if (!page.pageInfo.hasNextPage || page.pageInfo.endCursor === null) return;
        after = page.pageInfo.endCursor;
      }
    },

    async channels(): Promise<string[]> {
      const r = await transport.request(ClientChannelsDocument, {});
      return r.channels;
    },

    async channelDetails(): Promise<ChannelDetail[]> {
      const r = await transport.request(ClientChannelDetailsDocument, {});
      return r.channelDetails;
    },

    async outboxDeadLetters(first?: number): Promise<OutboxDeadLetters> {
      const r = await transport.request(ClientOutboxDeadLettersDocument, { first: first ?? null });
      return r.outboxDeadLetters;
    },

    async viewer(): Promise<Viewer> {
      const r = await transport.request(ClientViewerDocument, {});
      return r.viewer;
    },
  };
  return methods;
}

export function createInteractionsClient(options: ClientOptions): InteractionsClient {
  const transport = new Transport({ url: options.url, apiKey: options.apiKey, fetch: options.fetch });
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const holdSeconds = options.holdSeconds;

  const { retrying, settle } = createWaiting({ transport, policy, holdSeconds, onRetry: options.onRetry });

  /** Records the question without holding (retried with one idempotency key). */
  async function record(input: AskInput, o: AskUserOptions) {
    const { wire, parser } = await prepareAsk(input);
    wire.idempotencyKey = input.idempotencyKey ?? globalThis.crypto.randomUUID();
    const variables = { input: wire, holdSeconds: 0, preparedId: o.preparedId ?? null };
    const asked = await retrying(
      () =>
        transport.request(ClientAskUserDocument, variables, {
          signal: o.signal,
          timeoutMs: QUICK_TIMEOUT_MS,
        }),
      o.signal,
    );
    return { result: asked.askUser, parser };
  }

  /** `reserved`: the callback URL of a `prepareExternal` reservation (the ask does not repeat it). */
  async function ask(
    input: AskInput,
    o: AskUserOptions = {},
    reserved: string | null = null,
  ): Promise<unknown> {
    const { result, parser } = await record(input, o);
    o.onAsked?.(result.question, result.callbackUrl ?? reserved);
    return outcome(await settle(result, o.signal), parser);
  }

  const client: InteractionsClient = {
    url: transport.baseUrl,

    askUser<const I extends AskInput>(input: I, o?: AskUserOptions): Promise<AnswerOf<I>> {
      return ask(input, o) as Promise<AnswerOf<I>>;
    },

    async askApproval<const S extends AnswerSchema | undefined = undefined>(
      input: ApprovalRequest<S>,
      o: AskUserOptions = {},
    ): Promise<Approval<ArgumentsOf<S>>> {
      let question: Question | null = null;
      const answer = (await ask({ ...input, format: 'APPROVAL' } as AskInput, {
        ...o,
        onAsked: (q, url) => {
          question = q;
          o.onAsked?.(q, url);
        },
      })) as ApprovalAnswer;
      const asked = (await client.question(question!.id)) ?? question!;
      const note = answer.note ?? null;
      if (answer.decision !== 'APPROVED') {
        return { decision: 'REJECTED', arguments: null, note, edited: false, question: asked };
      }
      const approved = answer.arguments ?? {};
      const schema = input.argumentsSchema;
      let args: unknown = approved;
      if (schema !== undefined && isZodSchema(schema)) {
        const parsed = schema.safeParse(approved);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw new InvalidAnswerError(asked, answer, 'the approved arguments do not match argumentsSchema', {
            field: issue ? ['answer', 'arguments', ...issue.path.map(String)].join('.') : 'answer.arguments',
          });
        }
        args = parsed.data;
      }
      return {
        decision: 'APPROVED',
        arguments: args as ArgumentsOf<S>,
        note,
        edited: asked.edited === true,
        question: asked,
      };
    },

    async ask(input: AskInput, o: AskUserOptions = {}): Promise<AskedQuestion> {
      const { result } = await record(input, o);
      return { question: result.question, callbackUrl: result.callbackUrl ?? null };
    },

    async waitFor(id: string, o: WaitOptions = {}): Promise<unknown> {
      return (await client.waitForAnswer(id, o)).answer;
    },

    async waitForAnswer(id: string, o: WaitOptions = {}): Promise<AskResult> {
      const first = await retrying(
        () =>
          transport.request(
            ClientAwaitAnswerDocument,
            { id, holdSeconds: 0 },
            { signal: o.signal, timeoutMs: QUICK_TIMEOUT_MS },
          ),
        o.signal,
      );
      o.onAttached?.(first.awaitAnswer);
      const result = await settle(first.awaitAnswer, o.signal);
      outcome(result, null);
      return result;
    },

    askExternal<A extends { callbackUrl: string }, const S extends AnswerSchema | undefined = undefined>(
      tool: ExternalTool<A>,
      wrapOptions: AskExternalOptions<S> = {},
    ): ExternalAsker<A, S> {
      return externalAsker({ transport, retrying, ask, quickTimeoutMs: QUICK_TIMEOUT_MS }, tool, wrapOptions);
    },

    ...oneRequestMethods(transport),

    ...executionMethods(transport, (id) => oneRequestMethods(transport).receipt(id)),
    ...peopleMethods(transport),

    subscribeInbox(o?: SubscribeInboxOptions): InboxSubscription {
      return subscribeInbox(transport, policy, o);
    },
  };
  return client;
}

/** A question that must exist: `question(id)` or NotFoundError (for callers that want to fail). */
export async function requireQuestion(client: InteractionsClient, id: string): Promise<Question> {
  const q = await client.question(id);
  if (!q) throw new NotFoundError('question not found', { status: 404 });
  return q;
}
