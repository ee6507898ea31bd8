// Grants (API.md §20): "approve, and allow the same". A person approving an APPROVAL question
// may add `grant: {scope, seconds, maxUses?}`; it becomes an ALLOW rule (source "grant") for the
// same asker and action — and, for SAME_ARGUMENTS, exactly the approved arguments — that expires
// when given. Everything here is pure: the answer-time refusals, and whether a grant covers a
// later question (never one the person could not have answered, never a quorum above 1, never a
// sensitive one).
import { DomainError } from '../errors.ts';
import { addressedGroup } from '../groups.ts';
import { HOOK_CLIENTS } from '../hooks/permission-request.ts';
import type { Principal } from '../principal.ts';
import type { ActionSpec, QuestionRecord, QuorumSpec } from '../question.ts';
import { clip, isPlainObject, listChoices, own } from '../values.ts';
import type { PolicyRule } from './rule.ts';

export const GRANT_SCOPES = ['SAME_ARGUMENTS', 'SAME_ACTION'] as const;
export type GrantScope = (typeof GRANT_SCOPES)[number];
export const GRANT_SECONDS_MIN = 60;
export const GRANT_SECONDS_MAX = 2_592_000;
export const GRANT_MAX_USES_MAX = 1000;
/** Active grants one person may have given (API.md §20). */
export const GRANTS_PER_PERSON_MAX = 100;
/**
 * Actions of the agent hooks (§21): "any shell command for an hour" is not a grant, so only
 * SAME_ARGUMENTS may be given on them.
 */
export const HOOK_ACTION_PREFIXES: readonly string[] = HOOK_CLIENTS.map((c) => `${c}.`);
/** Grant ids: a rule id (a-z 0-9 -) that store rules may not take. */
export { GRANT_ID_PREFIX } from './grant-id.ts';

const GRANT_KEYS = new Set(['scope', 'seconds', 'maxUses']);
const FIELD = 'answer.grant';

export interface GrantRequest {
  scope: GrantScope;
  seconds: number;
  maxUses: number | null;
}

/** Who the person could answer for: what a later question must stay within. */
export interface GrantReach {
  /** A restricted principal answers only questions addressed to itself. */
  restricted: boolean;
  /** A channel user answers in its channel's conversation only: the channel and recipient. */
  channel: string | null;
  recipient: string | null;
}

/** A grant as given: kept by the store, turned into a rule by `grantRule`. */
export interface Grant {
  id: string;
  scope: GrantScope;
  asker: string;
  action: string;
  /** SAME_ARGUMENTS: the digest of {name, arguments} as approved; null for SAME_ACTION. */
  actionDigest: string | null;
  /** The APPROVAL question it was given with. */
  questionId: string;
  /** The person who gave it. */
  createdBy: string;
  /**
   * The person it was given for, when its giver approved as their delegate (API.md §22): the grant
   * decides nothing once that delegation no longer holds.
   */
  onBehalfOf?: string;
  /** The door they approved through (`api`, `channel:<name>`). */
  via: string;
  reach: GrantReach;
  createdAt: number;
  expiresAt: number;
  maxUses: number | null;
}

/** A grant as kept, with how many asks it decided so far. */
export interface StoredGrant extends Grant {
  uses: number;
}

/** The person giving a grant, as the answer path knows them. */
export interface Grantor {
  id: string;
  via: string;
  /** The key or session behind an `api` answer. */
  principal?: Pick<Principal, 'roles' | 'restricted'> | undefined;
  /** The person the giver approved for, as their delegate (set by the answer path). */
  onBehalfOf?: string | undefined;
}

/** What a later question must show for a grant to cover it. */
export interface CoveredQuestion {
  askedBy: string;
  action: Pick<ActionSpec, 'name'> & { digest?: string; assurance?: unknown; requestedBy?: unknown };
  sensitive?: boolean;
  quorum?: QuorumSpec | null;
  audience?: string | null;
  channel?: string | null;
  recipient?: string | null;
}

function wholeNumber(value: unknown, min: number, max: number, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new DomainError('BAD_USER_INPUT', `must be a whole number from ${min} to ${max}`, field);
  }
  return value;
}

/** Checks `grant` as given in an answer (errors at `answer.grant…`). */
export function parseGrantRequest(given: unknown): GrantRequest {
  if (!isPlainObject(given)) {
    throw new DomainError('BAD_USER_INPUT', 'grant must be an object {scope, seconds, maxUses?}', FIELD);
  }
  for (const key of Object.keys(given)) {
    if (!GRANT_KEYS.has(key)) {
      throw new DomainError(
        'BAD_USER_INPUT',
        `unknown field (expected: ${listChoices(GRANT_KEYS)})`,
        `${FIELD}.${clip(key, 64)}`,
      );
    }
  }
  const scope = own(given, 'scope');
  if (typeof scope !== 'string' || !(GRANT_SCOPES as readonly string[]).includes(scope)) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `scope must be one of: ${GRANT_SCOPES.join(', ')}`,
      `${FIELD}.scope`,
    );
  }
  const seconds = wholeNumber(
    own(given, 'seconds'),
    GRANT_SECONDS_MIN,
    GRANT_SECONDS_MAX,
    `${FIELD}.seconds`,
  );
  const usesGiven = own(given, 'maxUses');
  const maxUses =
    usesGiven === undefined || usesGiven === null
      ? null
      : wholeNumber(usesGiven, 1, GRANT_MAX_USES_MAX, `${FIELD}.maxUses`);
  return { scope: scope as GrantScope, seconds, maxUses };
}

export function isHookAction(name: string): boolean {
  return HOOK_ACTION_PREFIXES.some((p) => name.startsWith(p));
}

/**
 * Agents cannot create grants: an MCP client's user, the asker itself (even an admin key), a
 * key with the agent role (unless admin), or an unidentified callback. FORBIDDEN when refused.
 */
export function grantorRefusal(by: Grantor, q: Pick<QuestionRecord, 'askedBy'>): DomainError | null {
  const refuse = (why: string) => new DomainError('FORBIDDEN', why, FIELD);
  if (by.id === q.askedBy) return refuse('the asker cannot give itself a grant');
  if (by.via === 'mcp' || by.id.startsWith('mcp:')) return refuse('agents cannot give grants');
  if (by.via.startsWith('channel:')) return null;
  if (by.via !== 'api' || !by.principal) return refuse('a grant needs a signed-in person or a channel user');
  const roles = by.principal.roles;
  if (roles.includes('agent') && !roles.includes('admin')) return refuse('agents cannot give grants');
  return null;
}

/**
 * The question-side bounds of a grant, checked when it is given: an approval (decided APPROVED)
 * of one person, not sensitive, not HIGH assurance; SAME_ACTION only where the action has a
 * schema and is not a hook's. BAD_USER_INPUT at `answer.grant…`.
 */
export function grantQuestionRefusal(
  q: Pick<QuestionRecord, 'format' | 'sensitive' | 'quorum' | 'action'>,
  decision: string | null,
  request: GrantRequest,
): DomainError | null {
  const refuse = (why: string, field = FIELD) => new DomainError('BAD_USER_INPUT', why, field);
  if (q.format !== 'APPROVAL' || !q.action) return refuse('grants are given with APPROVAL answers only');
  if (decision !== 'APPROVED') return refuse('a grant goes with an approval (decision APPROVED)');
  if (q.sensitive) return refuse('a sensitive question cannot be granted');
  if ((q.quorum?.approvals ?? 1) > 1)
    return refuse('a question that needs several approvals cannot be granted');
  if ((q.action as { assurance?: unknown }).assurance === 'HIGH') {
    return refuse('an action that needs step-up (assurance HIGH) cannot be granted');
  }
  if (request.scope === 'SAME_ACTION') {
    if (isHookAction(q.action.name)) {
      return refuse(
        `SAME_ACTION is refused for hook actions (${HOOK_ACTION_PREFIXES.join(', ')}*): use SAME_ARGUMENTS`,
        `${FIELD}.scope`,
      );
    }
    if (!q.action.argumentsSchema) {
      return refuse('SAME_ACTION needs an action with argumentsSchema: use SAME_ARGUMENTS', `${FIELD}.scope`);
    }
  }
  return null;
}

/** What a person could answer, from the door they approved through and the question's routing. */
export function reachOf(by: Grantor, q: Pick<QuestionRecord, 'channel' | 'recipient'>): GrantReach {
  if (by.via.startsWith('channel:')) return { restricted: false, channel: q.channel, recipient: q.recipient };
  return { restricted: by.principal?.restricted ?? true, channel: null, recipient: null };
}

/**
 * Whether a grant covers a later question (beyond asker and action, which the index matches):
 * the same arguments for SAME_ARGUMENTS; never sensitive, a quorum above 1, step-up, or a question
 * its giver (or the person they gave it for) requested; for a channel user's grant, the same
 * channel and recipient. Who the question is addressed to (audience, voters) depends on groups and
 * delegations as they are when the grant is used: engine/policies/grants.ts checks that there,
 * once, before the use is counted (`grantAnswerable`).
 */
export function grantCovers(g: Grant, q: CoveredQuestion): boolean {
  if (q.askedBy !== g.asker || q.action.name !== g.action) return false;
  if (g.scope === 'SAME_ARGUMENTS' && (!q.action.digest || q.action.digest !== g.actionDigest)) return false;
  if (q.sensitive !== false) return false;
  const requester = q.action.requestedBy;
  if (q.action.assurance === 'HIGH' || requester === g.createdBy) return false;
  if (g.onBehalfOf !== undefined && requester === g.onBehalfOf) return false;
  if ((q.quorum?.approvals ?? 1) > 1) return false;
  if (g.reach.channel !== null && (q.channel !== g.reach.channel || q.recipient !== g.reach.recipient)) {
    return false;
  }
  return true;
}

/** What a grant's giver may answer at the instant it is used: groups and delegations as they are then. */
export interface AnswerableNow {
  /** Whether `identity` is a member of the group a `group:`/`oncall:` audience names. */
  isAddressee(audience: string, identity: string): boolean;
  /** Whether a voters list allows `identity`, directly or through a `group:` entry. */
  isVoter(voters: readonly string[], identity: string): boolean;
  /** The people who delegated to `identity` and whose delegation still holds. */
  actsFor: readonly string[];
}

/**
 * Whether the giver of `g` could answer `q` now (API.md §20, §22): a grant never decides a question
 * its giver could not. A grant given as a delegate needs that delegation to hold still; a question
 * addressed to a group needs the giver to be a member (an administrator's grant included: roles are
 * not known when it is used); a voters list must allow the giver, or someone who delegated to them;
 * a restricted giver answers questions addressed to themselves, their groups, or the people who
 * delegated to them; a requester's delegate never decides their request. A channel user's grant is
 * bound to the channel conversation its question was delivered to (`grantCovers`), which the asker
 * addressed on purpose: groups do not bind it, as they do not bind its answers.
 */
export function grantAnswerable(
  g: Grant,
  q: Pick<CoveredQuestion, 'audience' | 'quorum'> & {
    action: Pick<CoveredQuestion['action'], 'requestedBy'>;
  },
  now: AnswerableNow,
): boolean {
  const who = g.createdBy;
  const actsFor = new Set(now.actsFor);
  if (g.onBehalfOf !== undefined && !actsFor.has(g.onBehalfOf)) return false;
  const requester = q.action.requestedBy;
  if (typeof requester === 'string' && actsFor.has(requester)) return false;
  const audience = q.audience ?? null;
  const byChannel = g.reach.channel !== null;
  const grouped = audience !== null && addressedGroup(audience) !== null;
  if (!byChannel && grouped && !now.isAddressee(audience, who)) return false;
  const voters = q.quorum?.voters ?? null;
  if (voters !== null) {
    const allowed = byChannel ? voters.includes(who) : now.isVoter(voters, who);
    if (!allowed && !voters.some((v) => actsFor.has(v))) return false;
  }
  if (g.reach.restricted && !grouped && audience !== who && !(audience !== null && actsFor.has(audience))) {
    return false;
  }
  return true;
}

/** A grant as the rule set holds it: an exact-action ALLOW for one asker, expiring when given. */
export function grantRule(g: Grant): PolicyRule {
  const what = g.scope === 'SAME_ARGUMENTS' ? `the same arguments (${g.actionDigest})` : 'any arguments';
  return {
    id: g.id,
    description: `Granted by ${g.createdBy} while approving question ${g.questionId}: ${g.action} with ${what}${
      g.maxUses === null ? '' : `, at most ${g.maxUses} times`
    }`,
    effect: 'ALLOW',
    mode: 'ENFORCE',
    match: { action: g.action, askers: [g.asker], arguments: null },
    ask: null,
    expiresAt: g.expiresAt,
    source: 'grant',
    version: '1',
    createdBy: g.createdBy,
    createdAt: g.createdAt,
    compiled: null,
    grant: g,
  };
}

/** What every surface offers next to Approve (API.md §20): the same arguments, for an hour. */
export const ONE_HOUR_GRANT: GrantRequest = Object.freeze({
  scope: 'SAME_ARGUMENTS',
  seconds: 3600,
  maxUses: null,
});
export const ONE_HOUR_GRANT_LABEL = 'Approve and allow for 1 hour';

/** Whether a surface may offer a grant on this question: an APPROVAL one person decides, not sensitive, no step-up. */
export function grantOffered(
  q: Pick<QuestionRecord, 'format' | 'sensitive'> & {
    quorum?: Pick<QuorumSpec, 'approvals'> | null;
    action?: object | null;
  },
): boolean {
  return (
    q.format === 'APPROVAL' &&
    !!q.action &&
    !q.sensitive &&
    (q.quorum?.approvals ?? 1) <= 1 &&
    (q.action as { assurance?: unknown }).assurance !== 'HIGH'
  );
}
