// The tools' port over the in-process engine, acting as one principal (the /mcp endpoint).

import type { Principal } from '../domain/principal.ts';
import type { QuestionRecord } from '../domain/question.ts';
import { questionView } from '../domain/question-view.ts';
import type { AskResult, Interactions } from '../engine/types.ts';
import type { InteractionsPort, WaitOutcome } from './port.ts';

export function createEnginePort(engine: Interactions, principal: Principal): InteractionsPort {
  // The GraphQL Question shape the SDK port returns, `escalations` (API.md §18) included.
  const view = async (q: QuestionRecord) => questionView(q, await engine.escalations(q));
  const outcomeOf = async (r: AskResult): Promise<WaitOutcome> => ({
    status: r.status,
    id: r.question.id,
    answer: r.status === 'ANSWERED' ? r.answer : null,
    receipt: await engine.receipt(r.question),
  });
  return {
    async ask(input, waitSeconds, signal, options) {
      const join = options?.joinWhilePending ? { joinWhilePending: true } : {};
      return outcomeOf(await engine.ask(principal, input, { holdSeconds: waitSeconds, signal, ...join }));
    },
    async await(id, waitSeconds, signal) {
      return outcomeOf(await engine.awaitAnswer(principal, id, { holdSeconds: waitSeconds, signal }));
    },
    async get(id) {
      const q = await engine.get(principal, id);
      return q ? view(q) : null;
    },
    async list({ status, first, after }) {
      const page = await engine.list(principal, { status: status ?? null }, { first, after: after ?? null });
      return {
        questions: await Promise.all(page.edges.map((edge) => view(edge.node))),
        totalCount: page.totalCount,
        endCursor: page.endCursor,
      };
    },
    async cancel(id, reason) {
      return view(await engine.cancel(principal, id, reason ?? null));
    },
    here: {
      async answer(id, answer) {
        await engine.answerHere(principal, id, answer);
      },
      useOnce: (key, ttlMs) => engine.useOnce(principal, key, ttlMs),
    },
  };
}
