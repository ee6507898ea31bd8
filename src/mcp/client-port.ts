// The tools' port over the SDK (`tai-interactions/client`), for `tai mcp`: the stdio bridge
// forwards every tool call to a server over HTTP with the bridge's API key.
import {
  AnswerUnavailableError,
  type AskInput,
  CancelledError,
  type InteractionsClient,
  TimedOutError,
} from '../client/index.ts';
import type { InteractionsPort, WaitOutcome } from './port.ts';

/** Runs `work` with a signal that also aborts `waitSeconds` after `arm()` is called. */
function boundedWait(outer: AbortSignal) {
  const bound = new AbortController();
  const onOuter = () => bound.abort(outer.reason);
  outer.addEventListener('abort', onOuter, { once: true });
  let timer: NodeJS.Timeout | undefined;
  return {
    signal: bound.signal,
    arm(waitSeconds: number) {
      timer = setTimeout(() => bound.abort(new Error('wait ended')), waitSeconds * 1000);
    },
    /** True when the wait ended by its own bound (not by the caller). */
    ranOut: () => bound.signal.aborted && !outer.aborted,
    done() {
      clearTimeout(timer);
      outer.removeEventListener('abort', onOuter);
    },
  };
}

/** How a question closed without an answer, from the SDK's errors; other errors pass. */
function closedOutcome(err: unknown, id: string): WaitOutcome {
  if (err instanceof TimedOutError) return { status: 'TIMED_OUT', id, answer: null };
  if (err instanceof CancelledError) return { status: 'CANCELLED', id, answer: null };
  // A sensitive answer already delivered once: answered, but not shown again.
  if (err instanceof AnswerUnavailableError) return { status: 'ANSWERED', id, answer: null };
  throw err;
}

/**
 * The SDK types asks by format; the server checks every rule, so the bridge passes them on as
 * given (a SELECT without options too: the SDK leaves the list out and the server refuses it with
 * the message /mcp gives).
 */
function sdkAskOf(input: Record<string, unknown>): AskInput {
  return input as unknown as AskInput;
}

export function createClientPort(client: InteractionsClient): InteractionsPort {
  /**
   * A closed outcome with its decision receipt (one more read). A receipt that cannot be read
   * (the server is gone again) leaves the outcome as it is: the answer matters more.
   */
  async function withReceipt(o: WaitOutcome): Promise<WaitOutcome> {
    if (o.status === 'PENDING') return o;
    const receipt = await client.receipt(o.id).catch(() => null);
    return { ...o, receipt };
  }

  return {
    async ask(input, waitSeconds, signal) {
      const wait = boundedWait(signal);
      // Set once the question is recorded: the wait counts from then, not from the request.
      const asked = { id: '' };
      try {
        const answer = await client.askUser(sdkAskOf(input), {
          signal: wait.signal,
          onAsked: (question) => {
            asked.id = question.id;
            wait.arm(waitSeconds);
          },
        });
        return await withReceipt({ status: 'ANSWERED', id: asked.id, answer });
      } catch (err) {
        if (asked.id === '') throw err;
        if (wait.ranOut()) return { status: 'PENDING', id: asked.id, answer: null };
        return await withReceipt(closedOutcome(err, asked.id));
      } finally {
        wait.done();
      }
    },

    async await(id, waitSeconds, signal) {
      const wait = boundedWait(signal);
      try {
        // The wait counts from the first read, which always happens: armed before the request
        // returns, a zero wait would end it and say PENDING for an answered or unknown question.
        const r = await client.waitForAnswer(id, {
          signal: wait.signal,
          onAttached: () => wait.arm(waitSeconds),
        });
        return await withReceipt({ status: r.status, id, answer: r.answer ?? null });
      } catch (err) {
        if (wait.ranOut()) return { status: 'PENDING', id, answer: null };
        return await withReceipt(closedOutcome(err, id));
      } finally {
        wait.done();
      }
    },

    get: (id) => client.question(id),

    async list({ status, first, after }) {
      const page = await client.questionsPage({
        ...(status ? { filter: { status } } : {}),
        first,
        ...(after ? { after } : {}),
      });
      return { questions: page.questions, totalCount: page.totalCount, endCursor: page.pageInfo.endCursor };
    },

    cancel: (id, reason) => client.cancel(id, reason),
  };
}
