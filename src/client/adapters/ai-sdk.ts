// tai-interactions/ai-sdk: the Vercel AI SDK's tool approval (tools with `needsApproval`)
// answered by a person (or a policy) through tai-interactions (API.md §21). The SDK stops a
// step at a `tool-approval-request` part; the app answers it with a `tool-approval-response`
// part in a `tool` message and calls the model again. This module asks, waits (or parks the
// run with a resume webhook, API.md §12) and returns that message in the SDK's own shape.
// Typed against the SDK's published types; the imports are type-only, so `ai` is the caller's.
import type {
  ContentPart,
  ToolApprovalRequestOutput,
  ToolApprovalResponse,
  ToolModelMessage,
  ToolSet,
} from 'ai';
import type { InteractionsClient } from '../client.ts';
import {
  type ApprovalOptions,
  allOrNothing,
  decideToolCall,
  parkedDecisions,
  parkToolCall,
  type ToolCallToApprove,
  type ToolDecision,
} from './common.ts';

export type { ApprovalOptions, ToolCallToApprove, ToolDecision } from './common.ts';

/** A step's content (`result.content`), or the result itself. */
export type StepContent<TOOLS extends ToolSet> =
  | readonly ContentPart<TOOLS>[]
  | { readonly content: readonly ContentPart<TOOLS>[] };

/** One parked approval: JSON, to keep with the run's messages until the decisions arrive. */
export interface ParkedApproval {
  approvalId: string;
  questionId: string;
  /** The SDK sends only provider-executed approval responses to the model. */
  providerExecuted: boolean;
}

/** The approvals of one step, asked and not waited for (`park`). */
export interface ParkedApprovals {
  approvals: ParkedApproval[];
}

export interface ParkOptions {
  /**
   * The resume-webhook endpoint (a name from the server's manifest) called, signed, as each
   * question resolves; its body's `question.metadata.aiSdkApproval` names the approval.
   */
  notify?: string | undefined;
}

export interface ToolApprovals {
  /** The `tool-approval-request` parts of a step (empty when nothing waits for approval). */
  pending<TOOLS extends ToolSet>(content: StepContent<TOOLS>): ToolApprovalRequestOutput<TOOLS>[];
  /** Asks about one request and waits: the `tool-approval-response` part for it. */
  answer<TOOLS extends ToolSet>(request: ToolApprovalRequestOutput<TOOLS>): Promise<ToolApprovalResponse>;
  /**
   * Asks about every request of a step at once and waits for all: the `tool` message to append
   * after `result.response.messages` (null when nothing needed approval).
   */
  respond<TOOLS extends ToolSet>(content: StepContent<TOOLS>): Promise<ToolModelMessage | null>;
  /**
   * Asks about every request of a step without waiting (with the resume webhook `notify`, when
   * given): keep the returned JSON with the run's messages and end the request; `resume` it when
   * the webhooks say the questions resolved. A policy may have decided some already.
   */
  park<TOOLS extends ToolSet>(content: StepContent<TOOLS>, options?: ParkOptions): Promise<ParkedApprovals>;
  /**
   * The `tool` message for parked approvals once every question is decided; null while any is
   * still pending. A question nobody decided follows `undecided` (TimedOutError by default).
   */
  resume(parked: ParkedApprovals): Promise<ToolModelMessage | null>;
}

function partsOf<TOOLS extends ToolSet>(content: StepContent<TOOLS>): readonly ContentPart<TOOLS>[] {
  return 'content' in content ? content.content : content;
}

function isApprovalRequest<TOOLS extends ToolSet>(
  part: ContentPart<TOOLS>,
): part is ToolApprovalRequestOutput<TOOLS> {
  return part.type === 'tool-approval-request';
}

function callOf<TOOLS extends ToolSet>(request: ToolApprovalRequestOutput<TOOLS>): ToolCallToApprove {
  return { tool: request.toolCall.toolName, input: request.toolCall.input };
}

/** A decision as the SDK's `tool-approval-response` part. */
export function toolApprovalResponseOf(
  approvalId: string,
  decision: ToolDecision,
  providerExecuted = false,
): ToolApprovalResponse {
  const response: ToolApprovalResponse = {
    type: 'tool-approval-response',
    approvalId,
    approved: decision.approved,
  };
  if (decision.reason !== undefined) response.reason = decision.reason;
  if (providerExecuted) response.providerExecuted = true;
  return response;
}

function toolMessage(content: ToolApprovalResponse[]): ToolModelMessage | null {
  return content.length > 0 ? { role: 'tool', content } : null;
}

/**
 * Answers the AI SDK's tool-approval requests from tai-interactions decisions.
 *
 * ```ts
 * const approvals = createToolApprovals(tai, { channel: 'slack' });
 * let result = await generateText({ model, tools, messages });
 * for (let reply; (reply = await approvals.respond(result)); result = await generateText({ model, tools, messages }))
 *   messages.push(...result.response.messages, reply);
 * ```
 */
export function createToolApprovals(
  client: InteractionsClient,
  options: ApprovalOptions = {},
): ToolApprovals {
  const answer = async <TOOLS extends ToolSet>(
    request: ToolApprovalRequestOutput<TOOLS>,
    signal: AbortSignal | undefined,
  ): Promise<ToolApprovalResponse> => {
    const call = callOf(request);
    const decision = await decideToolCall(client, call, `ai-sdk.${call.tool}`, options, signal);
    return toolApprovalResponseOf(request.approvalId, decision, request.toolCall.providerExecuted === true);
  };
  const approvals: ToolApprovals = {
    pending: (content) => partsOf(content).filter(isApprovalRequest),

    answer: (request) => answer(request, options.signal),

    async respond(content) {
      return toolMessage(await allOrNothing(approvals.pending(content), options.signal, answer));
    },

    async park(content, parkOptions = {}) {
      const parked = await Promise.all(
        approvals.pending(content).map(async (request): Promise<ParkedApproval> => {
          const call = callOf(request);
          const question = await parkToolCall(
            client,
            call,
            `ai-sdk.${call.tool}`,
            options,
            parkOptions.notify,
            {
              aiSdkApproval: { approvalId: request.approvalId, toolCallId: request.toolCall.toolCallId },
            },
          );
          const providerExecuted = request.toolCall.providerExecuted === true;
          return { approvalId: request.approvalId, questionId: question.id, providerExecuted };
        }),
      );
      return { approvals: parked };
    },

    async resume(parked) {
      const ids = parked.approvals.map((p) => p.questionId);
      const decisions = await parkedDecisions(client, ids, options.undecided);
      if (decisions === null) return null;
      return toolMessage(
        parked.approvals.map((p, i) =>
          toolApprovalResponseOf(p.approvalId, decisions[i]!, p.providerExecuted),
        ),
      );
    },
  };
  return approvals;
}
