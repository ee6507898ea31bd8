// POST /api/interactions/{id}/answer — the human answer door for in-client formats.
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../domain/errors.ts';
import { parseJsonText } from '../../domain/json-text.ts';
import { questionView } from '../../domain/question-view.ts';
import type { Interactions } from '../../engine/types.ts';
import { useTextBodies } from '../json-body.ts';

export interface AnswerRouteOptions {
  engine: Interactions;
  maxBodyBytes: number;
}

function answerOf(body: unknown): unknown {
  const value = typeof body === 'string' ? parseJsonText(body) : body;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DomainError('BAD_USER_INPUT', 'the body must be a JSON object {"answer": …}');
  }
  if (!Object.hasOwn(value, 'answer'))
    throw new DomainError('BAD_USER_INPUT', 'the body has no "answer"', 'answer');
  return (value as { answer: unknown }).answer;
}

export async function answerRoutes(app: FastifyInstance, o: AnswerRouteOptions): Promise<void> {
  useTextBodies(app, o.maxBodyBytes);
  app.post<{ Params: { id: string } }>(
    '/api/interactions/:id/answer',
    { config: { door: 'answer' } },
    async (req, reply) => {
      const q = await o.engine.answer(req.principal, req.params.id, answerOf(req.body));
      return reply.send({ data: questionView(q, await o.engine.escalations(q)) });
    },
  );
}
