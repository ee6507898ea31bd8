// The five MCP tools (API.md §13), defined once over an InteractionsPort: the /mcp endpoint
// and `tai mcp` build the same server, each over its own adapter.
import { type CallToolResult, McpServer, type ServerContext } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { ERROR_STATUS } from '../domain/errors.ts';
import { VERSION } from '../domain/version.ts';
import { checkedArguments, refusalOf } from './arguments.ts';
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

export interface McpToolsOptions {
  /** Interval of the progress heartbeat while a call waits (default 10 s; tests shorten it). */
  progressIntervalMs?: number;
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
      ...(o.receipt === undefined ? {} : { receipt: o.receipt }),
    },
  };
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

/** snake_case tool arguments to the camelCase AskUserInput; undefined fields are left out. */
function askInputOf(args: z.infer<typeof askUserInput>): Record<string, unknown> {
  const input: Record<string, unknown> = {
    text: args.text,
    format: args.format,
    options: args.options,
    schema: args.schema,
    link: args.link,
    verifier: args.verifier,
    channel: args.channel,
    recipient: args.recipient,
    audience: args.audience,
    groupId: args.group_id,
    media: args.media,
    timeoutSeconds: args.timeout_seconds,
    sensitive: args.sensitive,
    idempotencyKey: args.idempotency_key,
    metadata: args.metadata,
    notify: args.notify,
    escalation: args.escalation?.map((s) => ({
      afterSeconds: s.after_seconds,
      action: s.action,
      ...(s.channel === undefined ? {} : { channel: s.channel }),
      ...(s.recipient === undefined ? {} : { recipient: s.recipient }),
    })),
    escalationPolicy: args.escalation_policy,
  };
  for (const k of Object.keys(input)) if (input[k] === undefined) delete input[k];
  return input;
}

/**
 * Runs a tool's body once its arguments passed the schema (refused ones are answered
 * BAD_USER_INPUT naming them); a thrown error becomes the tool's isError result.
 */
type Guard = (args: object, run: () => Promise<CallToolResult>) => Promise<CallToolResult>;

/** ask_user and await_answer: the calls that hold, with progress while they wait. */
function registerWaitingTools(
  server: McpServer,
  port: InteractionsPort,
  guard: Guard,
  interval: number,
): void {
  server.registerTool(
    'ask_user',
    {
      title: 'Ask a person',
      description:
        'Ask a person a question and wait up to wait_seconds for the answer. Returns {status, id, answer}; on PENDING call await_answer with the id. Pass idempotency_key so a retry never asks twice.',
      inputSchema: checkedArguments(askUserInput),
      outputSchema: waitOutput,
    },
    (args, ctx) =>
      guard(args, async () => {
        const wait = args.wait_seconds ?? WAIT_DEFAULT_SECONDS;
        const outcome = await withProgress(ctx, interval, () =>
          port.ask(askInputOf(args), wait, ctx.mcpReq.signal),
        );
        return waitResult(outcome);
      }),
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
        const wait = args.wait_seconds ?? WAIT_DEFAULT_SECONDS;
        const outcome = await withProgress(ctx, interval, () => port.await(args.id, wait, ctx.mcpReq.signal));
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
  const server = new McpServer(SERVER_INFO, {
    instructions:
      'Ask a person a question and wait for the typed answer. ask_user waits a while; when it returns PENDING, call await_answer with the id until the status is no longer PENDING.',
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
  registerWaitingTools(server, port, guard, interval);
  registerRecordTools(server, port, guard);
  return server;
}
