// The inbox's passkey doors (API.md §23): registering a passkey (a signed-in person, sign-in under
// 5 minutes old) and approving a HIGH question with one. The approval itself goes through the one
// answer path like every answer (record.ts), carrying the verified assertion as its proof.
import { canAnswer } from '../../domain/access.ts';
import { DomainError } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import type { EngineContext } from '../context.ts';
import { createPasskeys } from '../people/passkeys.ts';
import { questionOrThrow, type RecordAnswer } from './record.ts';
import { createStepUp } from './step-up.ts';

export interface PasskeyDoors {
  /** Options for registering a passkey; `sessionId` is the caller's sign-in session. */
  passkeyRegistrationOptions(p: Principal, sessionId: string | null): Promise<unknown>;
  /** Verifies and keeps the new passkey; resolves with its credential id. */
  registerPasskey(p: Principal, sessionId: string | null, response: unknown): Promise<string>;
  /** The caller's passkeys (credential ids). */
  passkeyIds(p: Principal): Promise<string[]>;
  /** Options for the assertion that approves `id` with `answer`. */
  stepUpOptions(p: Principal, id: string, answer: unknown): Promise<unknown>;
  /** Checks the assertion and records the answer through the one answer path. */
  answerWithPasskey(p: Principal, id: string, answer: unknown, response: unknown): Promise<QuestionRecord>;
}

function signedInOnly(sessionId: string | null): string {
  if (sessionId === null) {
    throw new DomainError('FORBIDDEN', 'passkeys are for people signed in to the inbox, not for keys');
  }
  return sessionId;
}

export function createPasskeyDoors(ctx: EngineContext, recordAnswer: RecordAnswer): PasskeyDoors {
  const passkeys = createPasskeys(ctx.store.people, ctx.store.audit, ctx.settings.publicBaseUrl, ctx.clock);
  const stepUp = createStepUp(ctx, passkeys);

  async function signedInAt(sessionId: string | null): Promise<{ name: string; at: number | null }> {
    const s = await ctx.people.session(signedInOnly(sessionId), ctx.clock());
    return { name: s?.principal.name ?? '', at: s?.signedInAt ?? null };
  }

  async function answerable(p: Principal, id: string): Promise<QuestionRecord> {
    const q = await ctx.visible(p, id);
    if (!canAnswer(p)) throw new DomainError('FORBIDDEN', 'this principal may not answer questions');
    return q;
  }

  return {
    async passkeyRegistrationOptions(p, sessionId) {
      const s = await signedInAt(sessionId);
      return passkeys.registrationOptions({ ...p, name: s.name || p.id }, s.at);
    },
    async registerPasskey(p, sessionId, response) {
      const s = await signedInAt(sessionId);
      return passkeys.register(p, s.at, response);
    },
    async passkeyIds(p) {
      return (await passkeys.list(p.id)).map((k) => k.id);
    },
    async stepUpOptions(p, id, answer) {
      return stepUp.assertionOptions(p, await answerable(p, id), answer);
    },
    async answerWithPasskey(p, id, answer, response) {
      const q = await answerable(p, id);
      const proof = await stepUp.verify(p, q, answer, response);
      return questionOrThrow(await recordAnswer(q, { id: p.id, via: 'api' }, answer, { stepUp: proof }));
    },
  };
}
