// tai-interactions/openai: OpenAI's own approval prompts answered by a person (or a policy)
// through tai-interactions (API.md §21). Two shapes:
//  - the Responses API: an `mcp_approval_request` output item becomes an APPROVAL question, and
//    the decision comes back as the `mcp_approval_response` input item of the next request;
//  - the OpenAI Agents SDK (JS): a run's interruptions are approved or rejected on its RunState
//    (`state.approve` / `state.reject` with the person's note), ready for `run(agent, state)`
//    — or parked with a resume webhook (openai-agents.ts).
// Typed against the libraries' own published types; the imports are type-only, so neither
// `openai` nor `@openai/agents` is needed at run time by this module (they are the caller's).
import type { Response, ResponseInputItem, ResponseOutputItem } from 'openai/resources/responses/responses';
import type { InteractionsClient } from '../client.ts';
import {
  type ApprovalOptions,
  allOrNothing,
  decideToolCall,
  type ToolCallToApprove,
  type ToolDecision,
} from './common.ts';

export type { ApprovalOptions, ToolCallToApprove, ToolDecision } from './common.ts';
export {
  type AgentsApprovals,
  type ApprovingState,
  createAgentsApprovals,
  type InterruptedRun,
  type ParkedInterruption,
  type ParkedInterruptions,
  type ResumableState,
} from './openai-agents.ts';

/** The Responses API's request for approval of an MCP tool call (an output item). */
export type McpApprovalRequest = ResponseOutputItem.McpApprovalRequest;
/** The answer to it (an input item of the next request). */
export type McpApprovalResponse = ResponseInputItem.McpApprovalResponse;

export interface ResponsesApprovals {
  /** The `mcp_approval_request` items of a response, in order (empty when there are none). */
  pending(response: Pick<Response, 'output'>): McpApprovalRequest[];
  /** Asks about one request and waits: its `mcp_approval_response` (`approve`, `reason`). */
  answer(request: McpApprovalRequest): Promise<McpApprovalResponse>;
  /**
   * Asks about every `mcp_approval_request` of a response at once and waits for all: the input
   * items to send with `previous_response_id` (empty when there was nothing to approve).
   */
  respond(response: Pick<Response, 'output'>): Promise<McpApprovalResponse[]>;
}

function isMcpApprovalRequest(item: ResponseOutputItem): item is McpApprovalRequest {
  return item.type === 'mcp_approval_request';
}

/** The action an MCP approval request proposes: `openai.mcp.<server_label>.<tool>`. */
function callOfMcpRequest(request: McpApprovalRequest): ToolCallToApprove {
  return { tool: request.name, input: request.arguments, source: request.server_label };
}

/**
 * Answers the Responses API's `mcp_approval_request` items from tai-interactions decisions.
 *
 * ```ts
 * const approvals = createResponsesApprovals(tai, { channel: 'slack' });
 * let response = await openai.responses.create({ model, tools, input });
 * while (approvals.pending(response).length > 0)
 *   response = await openai.responses.create({ model, tools, previous_response_id: response.id,
 *     input: await approvals.respond(response) });
 * ```
 */
export function createResponsesApprovals(
  client: InteractionsClient,
  options: ApprovalOptions = {},
): ResponsesApprovals {
  const answer = async (request: McpApprovalRequest, signal: AbortSignal | undefined) => {
    const name = `openai.mcp.${request.server_label}.${request.name}`;
    return mcpApprovalResponseOf(
      request,
      await decideToolCall(client, callOfMcpRequest(request), name, options, signal),
    );
  };
  const pending = (response: Pick<Response, 'output'>) => response.output.filter(isMcpApprovalRequest);
  return {
    pending,
    answer: (request) => answer(request, options.signal),
    respond: (response) => allOrNothing(pending(response), options.signal, answer),
  };
}

/** A decision as the Responses API's `mcp_approval_response` item. */
export function mcpApprovalResponseOf(
  request: McpApprovalRequest,
  decision: ToolDecision,
): McpApprovalResponse {
  const response: McpApprovalResponse = {
    type: 'mcp_approval_response',
    approval_request_id: request.id,
    approve: decision.approved,
  };
  if (decision.reason !== undefined) response.reason = decision.reason;
  return response;
}
