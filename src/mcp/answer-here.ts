// What the client's user answered (API.md §13.1), recorded through the engine in both forms of
// `answer_here`: the 2026-07-28 retry carrying the elicitation's response, and the 2025
// `elicitation/create` request sent on a session's stream while the tool call holds. Either way
// the answer is by `mcp:<principal id>`, goes through the one claim (or vote) guard, and the first
// answer anywhere wins; a declined or cancelled form leaves the question to everyone else.
import type { ServerContext } from '@modelcontextprotocol/server';
import { answerOf, type ElicitState, type elicitParamsOf, elicitResponseOf } from './elicitation.ts';
import type { ElicitedQuestion, InteractionsPort, WaitOutcome } from './port.ts';
import { WAIT_MAX_SECONDS } from './schemas.ts';

/** Refusals that mean another door was first, or the answer does not fit: not the call's error. */
const LEFT_TO_OTHERS = new Set(['ALREADY_ANSWERED', 'QUESTION_CLOSED', 'BAD_USER_INPUT', 'FORBIDDEN']);

/** Records the content of an accepted form as the answer of the client's user, if still pending. */
async function recordClientAnswer(
  port: InteractionsPort,
  id: string,
  content: Record<string, unknown> | undefined,
): Promise<void> {
  if (!port.here) return;
  const q = (await port.get(id)) as ElicitedQuestion | null;
  if (q?.status !== 'PENDING') return;
  try {
    await port.here.answer(id, answerOf(q.format, content));
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    if (typeof code !== 'string' || !LEFT_TO_OTHERS.has(code)) throw err;
  }
}

/**
 * The 2026-07-28 retry after the client's user was asked (its state already verified: signature,
 * caller, expiry, first use). Only an accepted form is recorded.
 */
export async function answerFromRetry(
  port: InteractionsPort,
  state: ElicitState,
  ctx: ServerContext,
): Promise<void> {
  const response = elicitResponseOf(ctx);
  if (response?.action === 'accept') await recordClientAnswer(port, state.q, response.content);
}

/** A 2025 session's client declared form elicitation at `initialize`. */
export type SessionElicits = () => boolean;

/** How much longer than the hold the SDK's own timer on the form waits (the hold ends it first). */
const FORM_TIMER_SLACK_MS = 5_000;

/**
 * ask_user's wait in a 2025 session whose client elicits forms (the question is pending): the form
 * goes to the client on this call's stream (`elicitation/create`) while the call holds. The call
 * holds while the form is open, up to WAIT_MAX_SECONDS, so a person filling it in is not cut off
 * by a short `wait_seconds`; an accepted form is the answer (or a vote); once the form is declined
 * or cancelled the call waits out the rest of `wait_seconds`, as without a form. When the question
 * is resolved elsewhere, or the hold ends, or the client cancels the call, an open form is
 * withdrawn (the SDK sends notifications/cancelled for it).
 */
export async function waitWithSessionForm(
  port: InteractionsPort,
  id: string,
  params: ReturnType<typeof elicitParamsOf>,
  waitSeconds: number,
  ctx: ServerContext,
): Promise<WaitOutcome> {
  const call = ctx.mcpReq.signal;
  const started = Date.now();
  // Aborted when the form gets its reply: the hold below then stops waiting on the form.
  const replied = new AbortController();
  // Aborted when the hold ends first: the SDK withdraws the form.
  const withdraw = new AbortController();
  // `send` relates the request to this call, so it travels on the call's own stream (the SDK's
  // elicitInput would put it on the session's GET stream, which a client need not open).
  const form = ctx.mcpReq
    .send(
      { method: 'elicitation/create', params: { mode: 'form', ...params } },
      { signal: withdraw.signal, timeout: WAIT_MAX_SECONDS * 1000 + FORM_TIMER_SLACK_MS },
    )
    .then(
      async (r) => {
        if (r.action === 'accept') await recordClientAnswer(port, id, r.content);
      },
      // Withdrawn, timed out, refused or a client gone: the question stays with the others.
      () => undefined,
    )
    .finally(() => replied.abort());
  let outcome: WaitOutcome;
  try {
    outcome = await port.await(id, WAIT_MAX_SECONDS, AbortSignal.any([call, replied.signal]));
  } finally {
    withdraw.abort();
  }
  // An answer from the form is recorded before the hold above lets go; wait for it to land.
  await form;
  if (outcome.status !== 'PENDING' || call.aborted) return outcome;
  const left = Math.ceil(waitSeconds - (Date.now() - started) / 1000);
  return port.await(id, Math.max(0, left), call);
}
