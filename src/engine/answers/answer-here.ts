// An asker's own user answering in the asker's client (MCP elicitation, API.md §13.1): one more
// door to the same question. The answer is by `mcp:<principal id>` and is recorded through the
// one answer path (answers/record.ts), so the first answer anywhere wins and a retry is a retry;
// the signed state that carried the question id to the client is used once (`useOnce`), so a
// replayed retry changes nothing.
import { canAsk } from '../../domain/access.ts';
import { DomainError, notFound } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';
import type { EngineContext } from '../context.ts';
import type { Interactions } from '../types.ts';
import { questionOrThrow, type RecordAnswer } from './record.ts';

/** Where answers given in an MCP client are recorded as coming from. */
export function mcpAnswerer(p: Principal): string {
  return `mcp:${p.id}`;
}

/** Longest part of a once-key the caller gives (a question id and a nonce). */
const MAX_ONCE_KEY_CHARS = 300;

export function createAnswerHere(
  ctx: EngineContext,
  recordAnswer: RecordAnswer,
): Pick<Interactions, 'answerHere' | 'useOnce'> {
  return {
    async answerHere(p, id, answer) {
      const q = await ctx.visible(p, id);
      // Only the asker's own client puts the question to its user.
      if (q.askedBy !== p.id || !canAsk(p)) throw notFound();
      // Form elicitation must not ask for secrets, and cannot show media (API.md §13.1).
      if (q.sensitive || (q.media?.length ?? 0) > 0 || q.format === 'EXTERNAL') {
        throw new DomainError('FORBIDDEN', 'this question cannot be answered in the MCP client');
      }
      return questionOrThrow(await recordAnswer(q, { id: mcpAnswerer(p), via: 'mcp' }, answer));
    },

    async useOnce(p, key, ttlMs) {
      if (key.length === 0 || key.length > MAX_ONCE_KEY_CHARS) return false;
      const seen = await ctx.store.seenOnce(`mcp-state:${p.id}:${key}`, ctx.clock(), ttlMs);
      return seen.first;
    },
  };
}
