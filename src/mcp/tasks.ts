// The Tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`, API.md §13.1): a wait
// for a person as a task the client polls, so no tool call has to outlive the client's timeout.
// The task is the question: its id is the question id and its state is the question's record in
// the store, so a task outlives the request that made it and any instance can answer for it.
// The SDK (2.4) parses task vocabulary but implements no 2026-07-28 task runtime; the wire
// shapes below follow the extension's specification, revision 2026-07-28 (docs/DECISIONS.md).
import {
  type McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { InteractionsPort, McpQuestion, WaitOutcome } from './port.ts';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** How often a client should poll `tasks/get` (a person answers in seconds at best). */
export const TASK_POLL_INTERVAL_MS = 2_000;
/** The per-request capabilities in the 2026-07-28 `_meta` envelope, as the SDK lifts it. */
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** Did this request's client declare the extension (2026-07-28 per-request capabilities)? */
export function declaresTasks(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const caps = envelope?.[CLIENT_CAPABILITIES] as { extensions?: Record<string, unknown> } | undefined;
  const extensions = caps?.extensions;
  return typeof extensions === 'object' && extensions !== null && Object.hasOwn(extensions, TASKS_EXTENSION);
}

/**
 * The refusal of a task method to a request that did not declare the extension: the extension
 * says -32021 (missing required client capability), judged per request like every 2026-07-28
 * capability, before the task id is even looked at, so a non-declaring client learns nothing of
 * its tasks and changes none.
 */
function tasksNotDeclared(method: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `${method} needs the ${TASKS_EXTENSION} extension: declare it in this request's client capabilities`,
  );
}

type TaskStatus = 'working' | 'completed' | 'cancelled';

/** The Task fields of a question: created with it, kept until its timeoutAt. */
function taskFields(q: McpQuestion, status: TaskStatus, pollIntervalMs: number) {
  const createdAt = q.createdAt;
  return {
    taskId: q.id,
    status,
    createdAt,
    // The last status change: answered, or timed out / cancelled (closedAt), else the creation.
    lastUpdatedAt: q.answeredAt ?? q.closedAt ?? createdAt,
    ttlMs: Math.max(0, Date.parse(q.timeoutAt) - Date.parse(createdAt)),
    pollIntervalMs,
  };
}

/**
 * The `CreateTaskResult` for a pending question. It also carries the PENDING tool content, which
 * the SDK's output check asks of every tool result and which a task-aware client ignores.
 */
export function createTaskResult(
  q: McpQuestion,
  pending: { content: unknown; structuredContent?: unknown },
  pollIntervalMs: number,
) {
  return {
    resultType: 'task' as const,
    ...taskFields(q, 'working', pollIntervalMs),
    statusMessage: 'Waiting for a person to answer.',
    content: pending.content,
    structuredContent: pending.structuredContent,
  };
}

const taskParams = z.looseObject({ taskId: z.string().min(1) });

export interface TaskMethodsOptions {
  pollIntervalMs: number;
  /** The tool result a closed question's outcome becomes (the same as ask_user/await_answer). */
  resultOf(outcome: WaitOutcome, question: McpQuestion): Record<string, unknown>;
  onInternalError?: (err: unknown) => void;
}

/** A port error keeps its API code in a JSON-RPC error; anything else is a generic internal one. */
function protocolErrorOf(err: unknown, options: TaskMethodsOptions): ProtocolError {
  if (err instanceof ProtocolError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code !== 'INTERNAL') {
    return new ProtocolError(ProtocolErrorCode.InvalidParams, `${code}: ${(err as Error).message}`);
  }
  options.onInternalError?.(err);
  return new ProtocolError(ProtocolErrorCode.InternalError, 'internal error');
}

/** The caller's question behind a task id; any other id is the same "no such task" error. */
async function questionOf(port: InteractionsPort, taskId: string): Promise<McpQuestion> {
  const q = await port.get(taskId);
  if (!q) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No task ${taskId}.`);
  return q;
}

/**
 * tasks/get, tasks/update and tasks/cancel over the caller's questions, for requests that declare
 * the extension. (tasks/result and tasks/list are not part of the 2026-07-28 extension: the
 * SDK answers them -32601, method not found.)
 */
export function registerTaskMethods(
  server: McpServer,
  port: InteractionsPort,
  options: TaskMethodsOptions,
): void {
  const guarded =
    <T>(method: string, run: (taskId: string, ctx: ServerContext) => Promise<T>) =>
    async (params: { taskId: string }, ctx: ServerContext): Promise<T> => {
      if (!declaresTasks(ctx)) throw tasksNotDeclared(method);
      try {
        return await run(params.taskId, ctx);
      } catch (err) {
        throw protocolErrorOf(err, options);
      }
    };

  server.server.setRequestHandler(
    'tasks/get',
    { params: taskParams },
    guarded('tasks/get', async (taskId, ctx) => {
      const q = await questionOf(port, taskId);
      if (q.status === 'PENDING') return taskFields(q, 'working', options.pollIntervalMs);
      if (q.status === 'CANCELLED') {
        return {
          ...taskFields(q, 'cancelled', options.pollIntervalMs),
          statusMessage: `The question was cancelled${q.cancelReason ? `: ${q.cancelReason}` : '.'}`,
        };
      }
      // Closed: the outcome with its receipt, read without holding (it is already there).
      const outcome = await port.await(taskId, 0, ctx.mcpReq.signal);
      return {
        ...taskFields(q, 'completed', options.pollIntervalMs),
        result: { resultType: 'complete', ...options.resultOf(outcome, q) },
      };
    }),
  );

  // Nothing of ours ever waits for input from the client (no input_required tasks), so every
  // response is one for a key that is not outstanding, which the extension says to ignore.
  server.server.setRequestHandler(
    'tasks/update',
    { params: taskParams },
    guarded('tasks/update', async (taskId) => {
      await questionOf(port, taskId);
      return {};
    }),
  );

  server.server.setRequestHandler(
    'tasks/cancel',
    { params: taskParams },
    guarded('tasks/cancel', async (taskId) => {
      const q = await questionOf(port, taskId);
      if (q.status !== 'PENDING') return {};
      try {
        await port.cancel(taskId, 'cancelled by the MCP client (tasks/cancel)');
      } catch (err) {
        // Answered or closed meanwhile: cancellation is cooperative, the first outcome stands.
        const code = (err as { code?: unknown } | null)?.code;
        if (code !== 'ALREADY_ANSWERED' && code !== 'QUESTION_CLOSED') throw err;
      }
      return {};
    }),
  );
}
