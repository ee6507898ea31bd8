// Step-up for `assurance: HIGH` approvals (API.md §23), and what every APPROVAL answer records
// about how it was given. The one answer path (record.ts) asks `evidenceFor` before it votes or
// claims: an approval of a HIGH action that does not carry a verified passkey assertion, bound
// to this question, these approved arguments, this decision and this person, is refused there
// with STEP_UP_REQUIRED — so every door that is not the inbox's passkey door (channels, the CLI,
// API keys, push buttons, MCP elicitation, the hooks, grants, policies) refuses alike. A rejection
// needs no step-up: saying no cannot do harm.
//
// The assertion itself is checked by @simplewebauthn/server against the person's stored
// credentials, over a challenge that is random (a nonce), derived from what it binds, kept
// server-side for 5 minutes and taken once.
import { createHash, randomBytes } from 'node:crypto';
import { generateAuthenticationOptions, verifyAuthenticationResponse } from '@simplewebauthn/server';
import { validateAnswer } from '../../domain/answer.ts';
import { actionDigest, decisionOfAnswer } from '../../domain/approval.ts';
import { canonicalJson } from '../../domain/digest.ts';
import { DomainError } from '../../domain/errors.ts';
import { presentOn, type Surface, surfaceOfPlugin } from '../../domain/presentation.ts';
import { presentedDigestOf } from '../../domain/presented-digest.ts';
import type { Principal } from '../../domain/principal.ts';
import type { AnswerEvidence, JsonObject, QuestionRecord } from '../../domain/question.ts';
import { isPlainObject } from '../../domain/values.ts';
import type { EngineContext } from '../context.ts';
import { CHALLENGE_MS, notConfigured, type Passkeys } from '../people/passkeys.ts';

/** A verified assertion, as the passkey door hands it to the answer path. */
export interface StepUpProof {
  credentialId: string;
  principal: string;
  questionId: string;
  /** The digest of {name, arguments} approved (edited or not). */
  digest: string;
}

/** What a challenge binds (kept server-side under the person and the question). */
interface Binding {
  challenge: string;
  principal: string;
  questionId: string;
  digest: string;
  decision: 'APPROVED';
  at: number;
}

/** The arguments an APPROVAL answer approves, or null when it does not approve. */
function approvedArgs(q: QuestionRecord, value: unknown): JsonObject | null {
  if (q.format !== 'APPROVAL' || !q.action || decisionOfAnswer(q.format, value) !== 'APPROVED') return null;
  const given = isPlainObject(value) ? value.arguments : undefined;
  return isPlainObject(given) ? (given as JsonObject) : q.action.arguments;
}

/** The surface an answer came by (`via`): channels by their plugin, every other door shows it whole. */
export function surfaceOfVia(ctx: Pick<EngineContext, 'channels'>, via: string): Surface {
  if (via.startsWith('channel:')) return surfaceOfPlugin(ctx.channels.pluginOf?.(via.slice(8)));
  if (via === 'callback' || via === 'mcp') return via;
  return 'api';
}

/** The refusal of a HIGH approval without its step-up: FORBIDDEN, the reason, a link to the inbox. */
export function stepUpRequired(
  ctx: Pick<EngineContext, 'settings'>,
  questionId: string,
  why?: string,
): DomainError {
  const base = ctx.settings.publicBaseUrl?.replace(/\/$/, '') ?? '';
  const url = `${base}/?question=${encodeURIComponent(questionId)}`;
  // The link is in the message too: a channel or the CLI shows the message, not the extensions.
  return new DomainError(
    'FORBIDDEN',
    `${why ?? 'this approval needs your passkey: approve it in the inbox'} (${url})`,
    undefined,
    { reason: 'STEP_UP_REQUIRED', url },
  );
}

/**
 * What an answer records (presentedDigest, the step-up), or the refusal of a HIGH approval
 * without a matching proof. `value` is the validated answer.
 */
export function evidenceFor(
  ctx: Pick<EngineContext, 'channels' | 'settings'>,
  q: QuestionRecord,
  by: { id: string; via: string },
  value: unknown,
  proof: StepUpProof | undefined,
): { evidence: AnswerEvidence | null } | { refused: DomainError } {
  if (q.format !== 'APPROVAL' || !q.action) return { evidence: null };
  const args = approvedArgs(q, value);
  const shown = presentOn(surfaceOfVia(ctx, by.via), q.action, args ?? q.action.arguments);
  const evidence: AnswerEvidence = { presentedDigest: presentedDigestOf(shown) };
  if (args === null || q.action.assurance !== 'HIGH') return { evidence };
  const digest = actionDigest(q.action.name, args);
  if (!proof || proof.principal !== by.id || proof.questionId !== q.id || proof.digest !== digest) {
    return { refused: stepUpRequired(ctx, q.id) };
  }
  return { evidence: { ...evidence, assurance: 'webauthn-uv', credentialId: proof.credentialId } };
}

export interface StepUp {
  /** Options for navigator.credentials.get() to approve `q` with `answer` (its challenge binds both). */
  assertionOptions(p: Principal, q: QuestionRecord, answer: unknown): Promise<unknown>;
  /** Checks an assertion made over those options; the proof the answer path takes. */
  verify(p: Principal, q: QuestionRecord, answer: unknown, response: unknown): Promise<StepUpProof>;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

export function createStepUp(ctx: EngineContext, passkeys: Passkeys): StepUp {
  const key = (principal: string, questionId: string): string =>
    `stepup:${sha256(canonicalJson([principal, questionId]))}`;

  function bound(q: QuestionRecord, answer: unknown): { digest: string } {
    const value = validateAnswer(q, answer);
    const args = approvedArgs(q, value);
    if (!q.action || args === null) {
      throw new DomainError(
        'BAD_USER_INPUT',
        'a passkey step-up is for approving an APPROVAL question',
        'answer',
      );
    }
    return { digest: actionDigest(q.action.name, args) };
  }

  return {
    async assertionOptions(p, q, answer) {
      if (!passkeys.rp) throw notConfigured();
      const { digest } = bound(q, answer);
      const keys = await passkeys.list(p.id);
      if (keys.length === 0) {
        throw new DomainError('FORBIDDEN', 'register a passkey in the inbox first', undefined, {
          reason: 'PASSKEY_REQUIRED',
        });
      }
      const at = ctx.clock();
      // Random, and derived from everything it binds: a response made over it fits nothing else.
      const nonce = randomBytes(32).toString('base64url');
      const challenge = new Uint8Array(
        createHash('sha256')
          .update(canonicalJson({ nonce, questionId: q.id, digest, decision: 'APPROVED', principal: p.id }))
          .digest(),
      );
      const options = await generateAuthenticationOptions({
        rpID: passkeys.rp.id,
        challenge,
        userVerification: 'required',
        timeout: CHALLENGE_MS,
        allowCredentials: keys.map((k) => ({ id: k.id })),
      });
      const binding: Binding = {
        challenge: options.challenge,
        principal: p.id,
        questionId: q.id,
        digest,
        decision: 'APPROVED',
        at,
      };
      await ctx.store.people.put(key(p.id, q.id), JSON.stringify(binding), at + CHALLENGE_MS);
      return options;
    },

    async verify(p, q, answer, response) {
      const rp = passkeys.rp;
      if (!rp) throw notConfigured();
      const { digest } = bound(q, answer);
      const now = ctx.clock();
      const text = await ctx.store.people.take(key(p.id, q.id), now);
      const binding = text === null ? null : (JSON.parse(text) as Binding);
      // Taken once: a second use, or an answer other than the one bound, starts over.
      if (!binding || binding.digest !== digest || now - binding.at > CHALLENGE_MS) {
        throw stepUpRequired(
          ctx,
          q.id,
          'the passkey step-up is stale or was made for another approval: try again',
        );
      }
      const id = isPlainObject(response) && typeof response.id === 'string' ? response.id : '';
      const keys = await passkeys.list(p.id);
      const stored = keys.find((k) => k.id === id);
      if (!stored) throw stepUpRequired(ctx, q.id, 'that passkey is not registered to you');
      let result: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
      try {
        result = await verifyAuthenticationResponse({
          response: response as Parameters<typeof verifyAuthenticationResponse>[0]['response'],
          expectedChallenge: binding.challenge,
          expectedOrigin: rp.origin,
          expectedRPID: rp.id,
          requireUserVerification: true,
          credential: {
            id: stored.id,
            publicKey: stored.publicKey,
            counter: stored.counter,
          },
        });
      } catch {
        throw stepUpRequired(ctx, q.id, 'the passkey assertion did not verify: try again');
      }
      if (!result.verified || !result.authenticationInfo.userVerified) {
        throw stepUpRequired(ctx, q.id, 'the passkey assertion did not verify: try again');
      }
      await passkeys.touch(p.id, stored, result.authenticationInfo.newCounter);
      return { credentialId: stored.id, principal: p.id, questionId: q.id, digest };
    },
  };
}
