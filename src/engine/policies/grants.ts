// Grants in the engine (API.md §20): given through the one answer path (answers/record.ts calls
// `split`, `check` before anything is recorded, and `give` after the approval counted), used at
// ask time like an ALLOW rule (one atomic store step per use), listed by their givers and
// revoked at once. The bounds themselves are pure rules in domain/policy/grant.ts.
import { randomBytes } from 'node:crypto';
import { actionDigest, approvedArgumentsOf, decisionOfAnswer } from '../../domain/approval.ts';
import type { ValidatedAsk } from '../../domain/ask-input.ts';
import { DomainError, isDomainError } from '../../domain/errors.ts';
import {
  type CoveredQuestion,
  GRANT_ID_PREFIX,
  GRANTS_PER_PERSON_MAX,
  type Grant,
  type Grantor,
  type GrantRequest,
  grantAnswerable,
  grantorRefusal,
  grantQuestionRefusal,
  grantRule,
  parseGrantRequest,
  reachOf,
} from '../../domain/policy/grant.ts';
import type { PolicyEffect, PolicyMode } from '../../domain/policy/rule.ts';
import { hasRole, type Principal } from '../../domain/principal.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import { isPlainObject } from '../../domain/values.ts';
import type { StoredGrant } from '../../store/grants.ts';
import type { EngineContext } from '../context.ts';
import { applyPolicies, type PolicyInputs, type PolicyOutcome } from './apply.ts';

/** An answer with its `grant` taken off (APPROVAL answers only; others are left as sent). */
export function splitGrant(
  q: Pick<QuestionRecord, 'format'>,
  sent: unknown,
): { given: unknown; grant: unknown | undefined } {
  if (q.format !== 'APPROVAL' || !isPlainObject(sent) || !Object.hasOwn(sent, 'grant')) {
    return { given: sent, grant: undefined };
  }
  const { grant, ...given } = sent;
  return { given, grant: grant === null ? undefined : grant };
}

export interface GrantGiving {
  /**
   * Checks a grant given with an answer whose value is valid, before anything is recorded:
   * who gives it (agents cannot), what it is given on, its own fields, the giver's limit.
   * Throws DomainError (FORBIDDEN, BAD_USER_INPUT at `answer.grant…`, LIMIT_EXCEEDED).
   */
  check(q: QuestionRecord, by: Grantor, value: unknown, sent: unknown): Promise<GrantRequest>;
  /** After the approval decided the question: keeps the grant (GRANT_GIVEN) and applies it here at once. */
  give(resolved: QuestionRecord, by: Grantor, request: GrantRequest): Promise<void>;
}

export function createGrantGiving(ctx: EngineContext): GrantGiving {
  return {
    async check(q, by, value, sent) {
      const forbidden = grantorRefusal(by, q);
      if (forbidden) throw forbidden;
      const request = parseGrantRequest(sent);
      const refused = grantQuestionRefusal(q, decisionOfAnswer(q.format, value), request);
      if (refused) throw refused;
      const active = await ctx.store.grants.byPerson(by.id, ctx.clock());
      if (active.length >= GRANTS_PER_PERSON_MAX) throw limitReached();
      return request;
    },

    async give(resolved, by, request) {
      const args = approvedArgumentsOf(resolved);
      if (!resolved.action || args === null) return;
      const now = ctx.clock();
      const grant: Grant = {
        id: `${GRANT_ID_PREFIX}${randomBytes(8).toString('hex')}`,
        scope: request.scope,
        asker: resolved.askedBy,
        action: resolved.action.name,
        actionDigest: request.scope === 'SAME_ARGUMENTS' ? actionDigest(resolved.action.name, args) : null,
        questionId: resolved.id,
        createdBy: by.id,
        ...(by.onBehalfOf ? { onBehalfOf: by.onBehalfOf } : {}),
        via: by.via,
        reach: reachOf(by, resolved),
        createdAt: now,
        expiresAt: now + request.seconds * 1000,
        maxUses: request.maxUses,
      };
      try {
        // The approval stands whatever happens here: a grant is an addition to it.
        if ((await ctx.store.grants.give(grant, GRANTS_PER_PERSON_MAX, now)) === 'limit') {
          ctx.logger.warn(
            { questionId: resolved.id },
            'grant not kept: its giver reached the limit meanwhile',
          );
          return;
        }
      } catch (err) {
        ctx.logger.warn(
          { questionId: resolved.id, err: err instanceof Error ? err.message : 'unknown' },
          'grant not kept: the store failed',
        );
        return;
      }
      const set = ctx.policies;
      set?.setGrants([...set.rules().filter((r) => r.source === 'grant'), grantRule(grant)]);
    },
  };
}

function limitReached(): DomainError {
  return new DomainError(
    'LIMIT_EXCEEDED',
    `at most ${GRANTS_PER_PERSON_MAX} active grants per person (revoke one with revokeGrant)`,
  );
}

/** A grant's refusal as the answer path reports it. */
export function grantRefusalKind(err: unknown): 'forbidden' | 'invalid' | null {
  if (!isDomainError(err)) return null;
  return err.code === 'FORBIDDEN' ? 'forbidden' : 'invalid';
}

/**
 * Uses a grant the rules picked for a new question: true when it decides it. First, once, whether
 * its giver could answer that question now (API.md §20, §22: their groups and delegations as they
 * are at this instant, `grantAnswerable`); then one atomic store step counts the use (false when it
 * is used up, expired or revoked on another instance). A grant refused here writes nothing.
 */
export type GrantUse = (grant: Grant, q: CoveredQuestion) => Promise<boolean>;

export function createGrantUse(ctx: EngineContext, questionId: string): GrantUse {
  return async (grant, q) => {
    const now = ctx.clock();
    const actsFor = (await ctx.store.delegations.delegatorsOf(grant.createdBy, now)).map((d) => d.from);
    const answerable = grantAnswerable(grant, q, {
      // Groups a sign-in's claim named are not known without the person: the configured ones count.
      isAddressee: (audience, identity) => ctx.directory.isAddressee({ audience }, identity),
      isVoter: (voters, identity) => ctx.directory.isVoter(voters, identity),
      actsFor,
    });
    if (!answerable) return false;
    return (await ctx.store.grants.use(grant.id, questionId, ctx.clock())) === 'used';
  };
}

/**
 * The rules and grants applied to an ask. A grant the rules pick is used through `use` (the
 * giver re-checked, then one atomic store step); when it is refused the ask is decided again
 * without it. The metric counts the final decision only.
 */
export async function applyPoliciesAndGrants(
  v: ValidatedAsk,
  inputs: PolicyInputs,
  use: GrantUse,
): Promise<PolicyOutcome> {
  const skip = new Set<string>();
  const counted: [PolicyEffect, PolicyMode][] = [];
  const observer = {
    policyDecision: (effect: string, mode: string) =>
      counted.push([effect as PolicyEffect, mode as PolicyMode]),
  };
  for (;;) {
    counted.length = 0;
    const out = applyPolicies(v, { ...inputs, observer, skip });
    if (out.kind === 'decided' && out.rule.grant && !(await use(out.rule.grant, coveredOf(v, inputs)))) {
      skip.add(out.rule.id);
      continue;
    }
    for (const [effect, mode] of counted) inputs.observer.policyDecision?.(effect, mode);
    return out;
  }
}

/** The question a grant is re-checked against: addressed as the agent asked it. */
function coveredOf(v: ValidatedAsk, inputs: PolicyInputs): CoveredQuestion {
  return {
    askedBy: inputs.askedBy,
    action: v.action!,
    sensitive: v.sensitive,
    quorum: v.quorum,
    audience: inputs.audience,
    channel: v.channel,
    recipient: inputs.recipient === undefined ? v.recipient : inputs.recipient,
  };
}

export interface GrantAdmin {
  /** The active grants the caller gave (with their ids, for revokeGrant). */
  mine(p: Principal): Promise<StoredGrant[]>;
  /** Ends a grant at once: its giver or an admin; false when there is none. */
  revoke(p: Principal, id: unknown): Promise<boolean>;
}

export function createGrantAdmin(ctx: EngineContext, refresh: () => Promise<void>): GrantAdmin {
  return {
    async mine(p) {
      return ctx.store.grants.byPerson(p.id, ctx.clock());
    },
    async revoke(p, id) {
      if (typeof id !== 'string' || id.length > 100)
        throw new DomainError('BAD_USER_INPUT', 'id must be a grant id', 'id');
      const grant = await ctx.store.grants.get(id);
      if (!grant) return false;
      if (!hasRole(p, 'admin') && grant.createdBy !== p.id) {
        throw new DomainError('FORBIDDEN', 'only the person who gave a grant, or an admin, may revoke it');
      }
      const revoked = await ctx.store.grants.revoke(id, p.id, ctx.clock());
      // Applied here at once (the store refuses its uses everywhere already).
      if (revoked) await refresh();
      return revoked;
    },
  };
}
