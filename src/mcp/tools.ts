// The MCP tools (API.md §13, and §21's permission_prompt), defined once over an InteractionsPort: the /mcp endpoint
// and `tai mcp` build the same server, each over its own adapter.
import { randomUUID } from 'node:crypto';
import {
  type CallToolResult,
  inputRequired,
  McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { ERROR_STATUS } from '../domain/errors.ts';
import { VERSION } from '../domain/version.ts';
import { answerFromRetry, type SessionElicits, waitWithSessionForm } from './answer-here.ts';
import { type AskArgs, askInputOf, checkedArguments, refusalOf } from './arguments.ts';
import {
  ANSWER_KEY,
  clientElicitsForms,
  createElicitStateCodec,
  declaresFormElicitation,
  type ElicitState,
  elicitationRefusal,
  elicitParamsOf,
} from './elicitation.ts';
import {
  isPermissionPromptQuestion,
  permissionResultOf,
  registerPermissionPrompt,
} from './permission-prompt.ts';
import type { InteractionsPort, WaitOutcome } from './port.ts';
import {
  askUserInput,
  awaitAnswerInput,
  cancelQuestionInput,
  cancelQuestionOutput,
  getQuestionOutput,
  idInput,
  LIST_DEFAULT,
  listQuestionsInput,
  listQuestionsOutput,
  WAIT_DEFAULT_SECONDS,
  waitOutput,
} from './schemas.ts';
import {
  createTaskResult,
  declaresTasks,
  registerTaskMethods,
  TASK_POLL_INTERVAL_MS,
  TASKS_EXTENSION,
} from './tasks.ts';

export interface McpToolsOptions {
  /** Interval of the progress heartbeat while a call waits (default 10 s; tests shorten it). */
  progressIntervalMs?: number;
  /** The polling interval a task suggests (default 2 s; tests shorten it). */
  taskPollIntervalMs?: number;
  /**
   * The HMAC key that signs elicitation states (API.md §13.1, at least 32 characters); absent,
   * or without `caller`, `answer_here` puts nothing to the client.
   */
  requestStateKey?: string;
  /** Who the states are bound to: the principal id of this request (set per request). */
  caller?: string;
  /** Called with an unexpected failure before the tool answers INTERNAL (for the log). */
  onInternalError?: (err: unknown) => void;
}

export const PROGRESS_INTERVAL_MS = 10_000;
const SERVER_INFO = { name: 'tai-interactions', version: VERSION };

function errorResult(code: string, message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `${code}: ${message}` }] };
}

/** A port error with an API code keeps it; anything else is INTERNAL with a generic text. */
function toErrorResult(err: unknown, options: McpToolsOptions): CallToolResult {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code !== 'INTERNAL' && Object.hasOwn(ERROR_STATUS, code)) {
    return errorResult(code, (err as Error).message);
  }
  options.onInternalError?.(err);
  return errorResult('INTERNAL', 'internal error');
}

function pendingText(o: WaitOutcome): string {
  switch (o.status) {
    case 'PENDING':
      return `No answer yet. The question (id ${o.id}) is still pending: call await_answer with id "${o.id}" to keep waiting. The answer is never lost.`;
    case 'ANSWERED':
      return `The person answered: ${JSON.stringify(o.answer)}`;
    case 'TIMED_OUT':
      return `Question ${o.id} timed out without an answer.`;
    case 'CANCELLED':
      return `Question ${o.id} was cancelled.`;
  }
}

function waitResult(o: WaitOutcome): CallToolResult {
  return {
    content: [{ type: 'text', text: pendingText(o) }],
    structuredContent: {
      status: o.status,
      id: o.id,
      answer: o.answer ?? null,
      // One shape on every transport (docs/mcp.md): null while PENDING or when there is none.
      receipt: o.receipt ?? null,
    },
  };
}

/**
 * A still-pending question as a task when the client declared the Tasks extension (API.md §13.1):
 * the client polls tasks/get instead of holding this call. Any other outcome is the tool result.
 */
async function taskOrResult(port: InteractionsPort, o: WaitOutcome, pollMs: number): Promise<CallToolResult> {
  const result = waitResult(o);
  if (o.status !== 'PENDING') return result;
  const q = await port.get(o.id);
  if (!q) return result;
  // The SDK's tool-result type has no task variant; the wire takes it as it is (tools/call may
  // return any resultType on 2026-07-28).
  return createTaskResult(q, result, pollMs) as unknown as CallToolResult;
}

/** Sends a progress notification every interval while `work` runs, if the client asked. */
async function withProgress<T>(ctx: ServerContext, intervalMs: number, work: () => Promise<T>): Promise<T> {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return work();
  let progress = 0;
  const timer = setInterval(() => {
    progress += 1;
    ctx.mcpReq
      .notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress, message: 'waiting for a person to answer' },
      })
      .catch(() => {
        // A client gone mid-wait: the wait itself ends through the abort signal.
      });
  }, intervalMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/**
 * Runs a tool's body once its arguments passed the schema (refused ones are answered
 * BAD_USER_INPUT naming them); a thrown error becomes the tool's isError result.
 */
type Guard = (args: object, run: () => Promise<CallToolResult>) => Promise<CallToolResult>;

/** What ask_user and await_answer work with. */
interface WaitingSetup {
  port: InteractionsPort;
  guard: Guard;
  /** Progress heartbeat while a call holds. */
  interval: number;
  /** The polling interval a task suggests. */
  pollMs: number;
  /** Signs elicitation states; null: answer_here puts nothing to the client. */
  states: ReturnType<typeof createElicitStateCodec> | null;
  /** Who an answer given in the client is by (`mcp:<principal id>`), when known. */
  answerer: string | undefined;
  /** Whether this server's 2025 session client declared form elicitation. */
  sessionElicits: SessionElicits;
}

async function askUser(w: WaitingSetup, args: AskArgs, ctx: ServerContext): Promise<CallToolResult> {
  const { port } = w;
  const signal = ctx.mcpReq.signal;
  const tasks = declaresTasks(ctx);
  const wait = args.wait_seconds ?? WAIT_DEFAULT_SECONDS;
  // With tasks nothing is held: the task is handed back at once and the client polls it.
  const waitFor = (id: string) =>
    tasks ? port.await(id, 0, signal) : withProgress(ctx, w.interval, () => port.await(id, wait, signal));
  const finish = (o: WaitOutcome) => (tasks ? taskOrResult(port, o, w.pollMs) : waitResult(o));

  const state = w.states ? ctx.mcpReq.requestState<ElicitState>() : undefined;
  if (state !== undefined && typeof state === 'object') {
    await answerFromRetry(port, state, ctx);
    return finish(await waitFor(state.q));
  }
  if (args.answer_here) {
    const refused = elicitationRefusal(args, w.answerer);
    if (refused !== null) return errorResult('BAD_USER_INPUT', `answer_here: ${refused}`);
  }
  // A 2025 client that keeps a session (only those that elicit get one): elicitation/create on
  // this call's stream while it holds.
  if (args.answer_here && port.here && ctx.sessionId !== undefined && w.sessionElicits()) {
    const asked = await port.ask(askInputOf(args), 0, signal);
    if (asked.status !== 'PENDING') return waitResult(asked);
    const params = elicitParamsOf(args);
    return waitResult(
      await withProgress(ctx, w.interval, () => waitWithSessionForm(port, asked.id, params, wait, ctx)),
    );
  }
  const here = w.states !== null && args.answer_here === true && clientElicitsForms(ctx);
  const outcome =
    tasks || here
      ? await port.ask(askInputOf(args), 0, signal)
      : await withProgress(ctx, w.interval, () => port.ask(askInputOf(args), wait, signal));
  if (here && w.states && outcome.status === 'PENDING') {
    // Multi-round-trip: the client asks its user and calls again with the answer and this state.
    const requestState = await w.states.mint({ q: outcome.id, n: randomUUID() }, ctx);
    const elicit = inputRequired.elicit(elicitParamsOf(args));
    // The SDK's tool-result type has no input_required variant; the seam takes it as it is.
    return inputRequired({
      inputRequests: { [ANSWER_KEY]: elicit },
      requestState,
    }) as unknown as CallToolResult;
  }
  return finish(outcome);
}

/** ask_user and await_answer: the calls that hold, with progress while they wait. */
function registerWaitingTools(server: McpServer, w: WaitingSetup): void {
  const { port, guard } = w;
  server.registerTool(
    'ask_user',
    {
      title: 'Ask a person',
      description:
        'Ask a person a question and wait up to wait_seconds for the answer. Returns {status, id, answer}; on PENDING call await_answer with the id. Pass idempotency_key so a retry never asks twice.',
      inputSchema: checkedArguments(askUserInput),
      outputSchema: waitOutput,
    },
    (args, ctx) => guard(args, () => askUser(w, args, ctx)),
  );

  server.registerTool(
    'await_answer',
    {
      title: 'Wait for an answer',
      description:
        'Wait again (up to wait_seconds) for the answer to a question asked with ask_user. Returns {status, id, answer}.',
      inputSchema: checkedArguments(awaitAnswerInput),
      outputSchema: waitOutput,
    },
    (args, ctx) =>
      guard(args, async () => {
        if (declaresTasks(ctx))
          return taskOrResult(port, await port.await(args.id, 0, ctx.mcpReq.signal), w.pollMs);
        const wait = args.wait_seconds ?? WAIT_DEFAULT_SECONDS;
        const outcome = await withProgress(ctx, w.interval, () =>
          port.await(args.id, wait, ctx.mcpReq.signal),
        );
        return waitResult(outcome);
      }),
  );
}

/** get_question, list_questions and cancel_question: one store read or change each. */
function registerRecordTools(server: McpServer, port: InteractionsPort, guard: Guard): void {
  server.registerTool(
    'get_question',
    {
      title: 'Read a question',
      description: 'A question and its status, or null when there is none you may see.',
      inputSchema: checkedArguments(idInput),
      outputSchema: getQuestionOutput,
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guard(args, async () => {
        const question = await port.get(args.id);
        const text = question ? JSON.stringify(question) : `No question ${args.id}.`;
        return { content: [{ type: 'text', text }], structuredContent: { question } };
      }),
  );

  server.registerTool(
    'list_questions',
    {
      title: 'List questions',
      description: 'Your questions, newest first, optionally only those in the given states.',
      inputSchema: checkedArguments(listQuestionsInput),
      outputSchema: listQuestionsOutput,
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guard(args, async () => {
        const page = await port.list({
          status: args.status,
          first: args.first ?? LIST_DEFAULT,
          after: args.after,
        });
        const structured = {
          questions: page.questions,
          totalCount: page.totalCount,
          endCursor: page.endCursor,
        };
        return {
          content: [{ type: 'text', text: JSON.stringify(structured) }],
          structuredContent: structured,
        };
      }),
  );

  server.registerTool(
    'cancel_question',
    {
      title: 'Cancel a question',
      description: 'Cancel a pending question; anyone waiting on it gets CANCELLED.',
      inputSchema: checkedArguments(cancelQuestionInput),
      outputSchema: cancelQuestionOutput,
      annotations: { destructiveHint: true },
    },
    (args) =>
      guard(args, async () => {
        const question = await port.cancel(args.id, args.reason);
        return {
          content: [{ type: 'text', text: `Question ${question.id} is ${question.status}.` }],
          structuredContent: { question },
        };
      }),
  );
}

export function createMcpTools(port: InteractionsPort, options: McpToolsOptions = {}): McpServer {
  const states =
    options.requestStateKey && options.caller !== undefined && port.here
      ? createElicitStateCodec(options.requestStateKey, options.caller, port.here.useOnce)
      : null;
  const server = new McpServer(SERVER_INFO, {
    capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    instructions:
      'Ask a person a question and wait for the typed answer. ask_user waits a while; when it returns PENDING, call await_answer with the id until the status is no longer PENDING.',
    // Every echoed requestState is checked before a tool runs: a forged, expired, foreign or
    // replayed one is refused there (-32602), never reaching ask_user.
    ...(states ? { requestState: { verify: states.verify } } : {}),
  });
  const interval = options.progressIntervalMs ?? PROGRESS_INTERVAL_MS;
  const guard: Guard = async (args, run) => {
    const refused = refusalOf(args);
    if (refused !== null) return errorResult('BAD_USER_INPUT', refused);
    try {
      return await run();
    } catch (err) {
      return toErrorResult(err, options);
    }
  };
  const pollMs = options.taskPollIntervalMs ?? TASK_POLL_INTERVAL_MS;
  registerWaitingTools(server, {
    port,
    guard,
    interval,
    pollMs,
    states,
    answerer: options.caller === undefined ? undefined : `mcp:${options.caller}`,
    sessionElicits: () => declaresFormElicitation(server.server.getClientCapabilities()?.elicitation),
  });
  registerRecordTools(server, port, guard);
  registerPermissionPrompt(server, port, guard, pollMs);
  registerTaskMethods(server, port, {
    pollIntervalMs: pollMs,
    // A permission_prompt task ends in Claude Code's permission text, any other in ask_user's shape.
    resultOf: (o, q) =>
      (isPermissionPromptQuestion(q) ? permissionResultOf(q) : waitResult(o)) as Record<string, unknown>,
    ...(options.onInternalError ? { onInternalError: options.onInternalError } : {}),
  });
  return server;
}
