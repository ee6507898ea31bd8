// The OpenAI Agents SDK (JS) half of tai-interactions/openai (API.md §21): a run's tool-approval
// interruptions (tools with `needsApproval`, hosted MCP tools with `requireApproval`) asked as
// APPROVAL questions and answered on the run's RunState — `state.approve(item)` or
// `state.reject(item, { message })` with who rejected it and their note — ready for
// `run(agent, state)`. Or parked: asked without waiting, the state serialized by the caller
// (`state.toString()`), and resumed when the resume webhooks say the questions resolved.
// Type-only imports: `@openai/agents` is the caller's.
import type { RunState, RunToolApprovalItem } from '@openai/agents';
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

/** What the Agents SDK's `run()` returns, as far as approvals go (RunResult, StreamedRunResult). */
export interface InterruptedRun<TState> {
  readonly interruptions: RunToolApprovalItem[];
  readonly state: TState;
}

/** The part of the SDK's RunState the adapter uses (any context, any agent). */
export type ApprovingState = Pick<RunState<never, never>, 'approve' | 'reject'>;

/** A state to resume parked approvals on: a RunState read back with `RunState.fromString`. */
export type ResumableState = ApprovingState & Pick<RunState<never, never>, 'getInterruptions'>;

/** One parked interruption: JSON, to keep with the serialized run state. */
export interface ParkedInterruption {
  /** The tool call's id (`callId`, or the hosted MCP request's id). */
  key: string;
  questionId: string;
}

/** The interruptions of one run, asked and not waited for (`park`). */
export interface ParkedInterruptions {
  approvals: ParkedInterruption[];
}

export interface AgentsApprovals {
  /** Asks about one interruption and waits for the decision (nothing is applied to a state). */
  decide(item: RunToolApprovalItem): Promise<ToolDecision>;
  /**
   * Asks about every interruption of a run at once, waits for all, and approves or rejects each
   * on the run's state (a rejection carries who rejected it and their note as the message the
   * model sees). Returns that state: pass it to `run(agent, state)` to continue.
   */
  answer<TState extends ApprovingState>(result: InterruptedRun<TState>): Promise<TState>;
  /**
   * Asks about every interruption without waiting (with the resume webhook `notify`, when
   * given; its body's `question.metadata.openaiAgentsApproval.key` names the tool call). Keep
   * the returned JSON with `result.state.toString()`, and `resume` when the questions resolved.
   */
  park(
    result: InterruptedRun<unknown>,
    options?: { notify?: string | undefined },
  ): Promise<ParkedInterruptions>;
  /**
   * Applies the decisions of parked interruptions to the run state (read back with
   * `RunState.fromString(agent, saved)`) once every question is settled, and returns it for
   * `run(agent, state)`; null while any is pending. A question nobody decided follows `undecided`.
   */
  resume<TState extends ResumableState>(state: TState, parked: ParkedInterruptions): Promise<TState | null>;
}

/** What identifies an interruption across a serialized state: its tool call's id. */
function keyOf(item: RunToolApprovalItem): string {
  const raw = item.rawItem as { callId?: unknown; id?: unknown };
  if (typeof raw.callId === 'string') return raw.callId;
  if (typeof raw.id === 'string') return raw.id;
  return `${item.name ?? 'tool'}:${item.arguments ?? ''}`;
}

function apply(state: ApprovingState, item: RunToolApprovalItem, d: ToolDecision): void {
  if (d.approved) state.approve(item);
  else state.reject(item, d.reason !== undefined ? { message: d.reason } : undefined);
}

/**
 * The tool call an interruption is about. A hosted MCP approval carries the server's
 * `mcp_approval_request` in `providerData` (its server label and the arguments' JSON).
 */
function callOfInterruption(item: RunToolApprovalItem): ToolCallToApprove {
  const provider = (item.rawItem as { providerData?: Record<string, unknown> }).providerData ?? {};
  const server = provider.server_label;
  const hostedArguments = provider.type === 'mcp_approval_request' ? provider.arguments : undefined;
  return {
    tool: item.name ?? item.toolName ?? 'tool',
    input: item.arguments ?? hostedArguments ?? {},
    source: typeof server === 'string' ? server : undefined,
  };
}

/** `openai-agents.<tool>`, or `openai-agents.mcp.<server>.<tool>` for a hosted MCP tool. */
function nameOf(call: ToolCallToApprove): string {
  return call.source ? `openai-agents.mcp.${call.source}.${call.tool}` : `openai-agents.${call.tool}`;
}

/**
 * Answers the OpenAI Agents SDK's tool-approval interruptions (tools with `needsApproval`,
 * hosted MCP tools with `requireApproval`) from tai-interactions decisions.
 *
 * ```ts
 * const approvals = createAgentsApprovals(tai, { channel: 'slack' });
 * let result = await run(agent, input);
 * while (result.interruptions.length > 0) result = await run(agent, await approvals.answer(result));
 * ```
 */
export function createAgentsApprovals(
  client: InteractionsClient,
  options: ApprovalOptions = {},
): AgentsApprovals {
  const decide = (item: RunToolApprovalItem, signal: AbortSignal | undefined) => {
    const call = callOfInterruption(item);
    return decideToolCall(client, call, nameOf(call), options, signal);
  };
  return {
    decide: (item) => decide(item, options.signal),

    async answer(result) {
      const items = [...result.interruptions];
      const decisions = await allOrNothing(items, options.signal, decide);
      for (const [i, item] of items.entries()) apply(result.state, item, decisions[i]!);
      return result.state;
    },

    async park(result, parkOptions = {}) {
      const parked = await Promise.all(
        result.interruptions.map(async (item): Promise<ParkedInterruption> => {
          const call = callOfInterruption(item);
          const key = keyOf(item);
          const question = await parkToolCall(client, call, nameOf(call), options, parkOptions.notify, {
            openaiAgentsApproval: { key, tool: call.tool },
          });
          return { key, questionId: question.id };
        }),
      );
      return { approvals: parked };
    },

    async resume(state, parked) {
      const ids = parked.approvals.map((p) => p.questionId);
      const decisions = await parkedDecisions(client, ids, options.undecided);
      if (decisions === null) return null;
      const items = new Map(state.getInterruptions().map((item) => [keyOf(item), item]));
      parked.approvals.forEach((p, i) => {
        const item = items.get(p.key);
        if (!item)
          throw new Error(`the run state has no interruption ${p.key}: resume the state that was parked`);
        apply(state, item, decisions[i]!);
      });
      return state;
    },
  };
}
