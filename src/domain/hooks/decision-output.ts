// A permission prompt's outcome in each client's own words (API.md §21):
// - Claude Code's hook output (code.claude.com/docs/en/hooks, "PermissionRequest decision
//   control"): {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision":
//   {"behavior": "allow", "updatedInput"?} | {"behavior": "deny", "message"}}}; `{}` decides nothing.
// - Codex's (developers.openai.com/codex/hooks; its permission-request.command.output schema):
//   the same envelope, and `updatedInput` present makes Codex fail closed, so it is never sent.
// - Claude Code's --permission-prompt-tool result text: {"behavior": "allow", "updatedInput"} or
//   {"behavior": "deny", "message"}.
import type { QuestionStatus } from '../question.ts';
import { clip, isPlainObject } from '../values.ts';

/** What the doors know of a prompt's question when they answer. */
export interface PromptOutcome {
  id: string;
  status: QuestionStatus;
  /** The APPROVAL answer once ANSWERED: {decision, arguments, note?}. */
  answer: unknown;
  answeredBy: string | null;
  /** Whether the approved arguments differ from the proposal. */
  edited: boolean;
}

const MESSAGE_MAX_CHARS = 2000;

type Decided =
  | { behavior: 'allow'; arguments: Record<string, unknown>; edited: boolean }
  | { behavior: 'deny'; message: string };

/** The decision, or null while nobody decided (pending, timed out, cancelled). */
export function decisionOf(o: PromptOutcome): Decided | null {
  if (o.status !== 'ANSWERED' || !isPlainObject(o.answer)) return null;
  const { decision, arguments: args, note } = o.answer;
  if (decision === 'APPROVED') {
    return { behavior: 'allow', arguments: isPlainObject(args) ? args : {}, edited: o.edited };
  }
  const by = o.answeredBy ?? 'a person';
  const why = typeof note === 'string' && note.trim() !== '' ? `: ${note}` : '';
  return { behavior: 'deny', message: clip(`Rejected by ${by}${why}`, MESSAGE_MAX_CHARS) };
}

/** Claude Code's hook output; edited arguments become `updatedInput`; `{}` when undecided. */
export function claudeHookOutput(o: PromptOutcome): Record<string, unknown> {
  const d = decisionOf(o);
  if (d === null) return {};
  const decision =
    d.behavior === 'allow'
      ? { behavior: 'allow', ...(d.edited ? { updatedInput: d.arguments } : {}) }
      : { behavior: 'deny', message: d.message };
  return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } };
}

/** Codex's hook output: allow or deny, never `updatedInput`; null when undecided (print nothing). */
export function codexHookOutput(o: PromptOutcome): Record<string, unknown> {
  const d = decisionOf(o);
  if (d === null) return {};
  const decision = d.behavior === 'allow' ? { behavior: 'allow' } : { behavior: 'deny', message: d.message };
  return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } };
}

/**
 * The --permission-prompt-tool result: allow with the approved input, or deny; with no decision
 * when the wait ended it denies, naming the pending question a retry with the same tool_use_id
 * rejoins.
 */
export function permissionPromptResult(o: PromptOutcome): Record<string, unknown> {
  const d = decisionOf(o);
  if (d?.behavior === 'allow') return { behavior: 'allow', updatedInput: d.arguments };
  if (d?.behavior === 'deny') return { behavior: 'deny', message: d.message };
  const why =
    o.status === 'PENDING'
      ? `No decision yet: question ${o.id} is still pending. Retrying with the same tool_use_id waits for it again.`
      : `No decision: question ${o.id} ${o.status === 'TIMED_OUT' ? 'timed out' : 'was cancelled'}.`;
  return { behavior: 'deny', message: why };
}
