// `permission_prompt` (API.md §21): the tool Claude Code calls with --permission-prompt-tool.
// Its arguments are Claude Code's (tool_name, input, tool_use_id); it asks an APPROVAL of
// `claude-code.<tool_name>` through the one ask path and answers with Claude Code's expected
// text, {"behavior": "allow", "updatedInput"} or {"behavior": "deny", "message"}. It waits like
// ask_user (a task when the client declares the Tasks extension); with no decision when the wait
// ends it denies, naming the pending question, which a call with the same tool_use_id rejoins.
import type { CallToolResult, McpServer, ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { type PromptOutcome, permissionPromptResult } from '../domain/hooks/decision-output.ts';
import { approvalInputOf, inputTooLarge, type PermissionPrompt } from '../domain/hooks/permission-request.ts';
import { isPlainObject } from '../domain/values.ts';
import { checkedArguments } from './arguments.ts';
import type { InteractionsPort, McpQuestion } from './port.ts';
import { WAIT_DEFAULT_SECONDS, WAIT_MAX_SECONDS } from './schemas.ts';
import { createTaskResult, declaresTasks } from './tasks.ts';

// Loose: Claude Code may send more than these three; what is not read is ignored.
export const permissionPromptInput = z.looseObject({
  tool_name: z.string().min(1).max(256).describe('The tool Claude Code wants to use (e.g. Bash).'),
  input: z.record(z.string(), z.unknown()).describe("The tool's input, as Claude Code would run it."),
  tool_use_id: z
    .string()
    .max(256)
    .optional()
    .describe('The tool use; a call with the same id rejoins its question.'),
  wait_seconds: z
    .number()
    .int()
    .min(0)
    .max(WAIT_MAX_SECONDS)
    .optional()
    .describe(`Seconds to wait for a decision (0 to ${WAIT_MAX_SECONDS}, default ${WAIT_DEFAULT_SECONDS}).`),
});

export const permissionPromptOutput = z.object({
  behavior: z.enum(['allow', 'deny']),
  updatedInput: z.record(z.string(), z.unknown()).optional(),
  message: z.string().optional(),
});

type Args = z.infer<typeof permissionPromptInput>;

/** Whether a question was asked by permission_prompt (its task's result is a permission text). */
export function isPermissionPromptQuestion(q: McpQuestion): boolean {
  return isPlainObject(q.metadata) && q.metadata.via === 'permission_prompt';
}

function outcomeOfQuestion(q: McpQuestion): PromptOutcome {
  return {
    id: q.id,
    status: q.status,
    answer: q.answer ?? null,
    answeredBy: q.answeredBy ?? null,
    edited: q.edited === true,
  };
}

/** The tool result: the permission as JSON text (what Claude Code parses) and as structured content. */
export function permissionResultOf(q: McpQuestion): CallToolResult {
  const result = permissionPromptResult(outcomeOfQuestion(q));
  return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
}

function denied(message: string): CallToolResult {
  const result = { behavior: 'deny', message };
  return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
}

async function prompt(port: InteractionsPort, args: Args, ctx: ServerContext, pollMs: number) {
  const p: PermissionPrompt = {
    client: 'claude-code',
    sessionId: null,
    toolName: args.tool_name,
    toolInput: args.input,
    cwd: null,
    toolUseId: args.tool_use_id ?? null,
    via: 'permission_prompt',
  };
  // No prompt of its own to fall back to: too large to show a person is a refusal.
  if (inputTooLarge(p)) return denied('The tool input is over the 64 KiB a person can be asked about.');
  const tasks = declaresTasks(ctx);
  const wait = tasks ? 0 : (args.wait_seconds ?? WAIT_DEFAULT_SECONDS);
  const outcome = await port.ask(approvalInputOf(p, {}), wait, ctx.mcpReq.signal, { joinWhilePending: true });
  const q = await port.get(outcome.id);
  if (!q) return denied(`No decision: question ${outcome.id} is not readable.`);
  const result = permissionResultOf(q);
  if (tasks && q.status === 'PENDING')
    return createTaskResult(q, result, pollMs) as unknown as CallToolResult;
  return result;
}

/** Registers permission_prompt on a server built by createMcpTools. */
export function registerPermissionPrompt(
  server: McpServer,
  port: InteractionsPort,
  guard: (args: object, run: () => Promise<CallToolResult>) => Promise<CallToolResult>,
  pollMs: number,
): void {
  server.registerTool(
    'permission_prompt',
    {
      title: 'Ask a person for permission (Claude Code --permission-prompt-tool)',
      description:
        "Claude Code's permission prompt: asks a person to approve the tool use and returns {behavior: allow, updatedInput} or {behavior: deny, message}.",
      inputSchema: checkedArguments(permissionPromptInput),
      outputSchema: permissionPromptOutput,
    },
    (args, ctx) => guard(args, () => prompt(port, args, ctx, pollMs)),
  );
}
