// POST /api/interactions/hooks/claude-code and …/codex — coding agents' permission prompts
// (API.md §21). The body is the client's own `PermissionRequest` hook event, the answer its own
// hook output. In order: the door's key (401/403, the door hook, before the body is read), the
// body cap (1 MiB, 413), the query and the event (400), then one ask through the engine's one ask path — an APPROVAL that
// policies, quorum, channels, escalation, receipts and the audit log treat like any other —
// held until a decision or `?wait=` seconds. A retry of the same request joins the question while
// it is PENDING; once decided, the same request asks again: an approval is never replayed.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { editedOf } from '../../domain/approval.ts';
import { DomainError } from '../../domain/errors.ts';
import { claudeHookOutput, codexHookOutput, type PromptOutcome } from '../../domain/hooks/decision-output.ts';
import {
  approvalInputOf,
  HOOK_CLIENTS,
  HOOK_MAX_BODY_BYTES,
  type HookClient,
  hookQueryOf,
  inputTooLarge,
  permissionRequestOf,
} from '../../domain/hooks/permission-request.ts';
import { parseJsonText } from '../../domain/json-text.ts';
import type { Logger } from '../../engine/logger.ts';
import type { AskResult, Interactions } from '../../engine/types.ts';
import { useTextBodies } from '../json-body.ts';

export interface HookRouteOptions {
  engine: Interactions;
  logger: Logger;
}

export const HOOKS_PREFIX = '/api/interactions/hooks';

/** What the doors answer with, from the ask's result. */
export function promptOutcomeOf(r: AskResult): PromptOutcome {
  return {
    id: r.question.id,
    status: r.status,
    answer: r.answer,
    answeredBy: r.question.answeredBy,
    edited: editedOf(r.question) === true,
  };
}

const OUTPUTS: Readonly<Record<HookClient, (o: PromptOutcome) => Record<string, unknown>>> = {
  'claude-code': claudeHookOutput,
  codex: codexHookOutput,
};

/** Aborts when the client goes away before its answer is sent: the wait ends, the question stays. */
function goneSignal(reply: FastifyReply): AbortSignal {
  const gone = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  return gone.signal;
}

export async function hookRoutes(app: FastifyInstance, o: HookRouteOptions): Promise<void> {
  useTextBodies(app, HOOK_MAX_BODY_BYTES);
  for (const client of HOOK_CLIENTS) {
    app.post(`${HOOKS_PREFIX}/${client}`, { config: { door: 'hooks' } }, async (req, reply) => {
      const { wait, routing } = hookQueryOf(req.query);
      const text = typeof req.body === 'string' ? req.body : '';
      const body = parseJsonText(text);
      if (body === undefined)
        throw new DomainError('BAD_USER_INPUT', 'the body must be the hook event as a JSON object');
      const prompt = permissionRequestOf(body, client);
      if (inputTooLarge(prompt)) {
        // Not asked: the client falls back to its own prompt (API.md §21).
        o.logger.warn(
          { client, tool: prompt.toolName.slice(0, 100) },
          'permission prompt not asked: tool_input is over the 64 KiB arguments cap',
        );
        return reply.send({});
      }
      const result = await o.engine.ask(req.principal, approvalInputOf(prompt, routing), {
        holdSeconds: wait,
        signal: goneSignal(reply),
        joinWhilePending: true,
      });
      return reply.send(OUTPUTS[client](promptOutcomeOf(result)));
    });
  }
}
