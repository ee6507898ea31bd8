// Policy rules (API.md §20): what an operator writes to decide routine APPROVAL questions
// without a person. This file checks a rule as given (manifest entry or `putPolicyRule` input)
// and compiles its argument schema once, so deciding never parses or compiles anything.
import { checkQuorum } from '../approval.ts';
import { jcsDigest } from '../digest.ts';
import { badInput, DomainError, isDomainError } from '../errors.ts';
import { type CompiledSchema, compileJsonSchema } from '../json-schema.ts';
import { ACTION_NAME_MAX_CHARS, exceedsChars, isBlank, LABEL_MAX_CHARS } from '../limits.ts';
import type { JsonObject, QuorumSpec } from '../question.ts';
import { clip, isPlainObject, listChoices, own } from '../values.ts';
import { GRANT_ID_PREFIX, type Grant } from './grant.ts';

export const POLICY_EFFECTS = ['ALLOW', 'DENY', 'ASK'] as const;
export type PolicyEffect = (typeof POLICY_EFFECTS)[number];
export const POLICY_MODES = ['ENFORCE', 'SHADOW'] as const;
export type PolicyMode = (typeof POLICY_MODES)[number];
export type PolicySource = 'manifest' | 'store' | 'grant';
/** What an ASK rule may demand of the approver (§23 step-up). */
export const POLICY_ASSURANCES = ['STANDARD', 'HIGH'] as const;
export type PolicyAssurance = (typeof POLICY_ASSURANCES)[number];

export const POLICY_ID_MAX_CHARS = 64;
export const POLICY_DESCRIPTION_MAX_CHARS = 500;
export const POLICY_ASKERS_MAX = 100;

const POLICY_ID = /^[a-z0-9-]+$/;
// An action name (API.md §15) where `*` may also stand for any run of characters.
const ACTION_PATTERN = /^[A-Za-z0-9_.:*-]+$/;
const RULE_KEYS = new Set(['id', 'description', 'effect', 'mode', 'match', 'ask', 'expiresAt']);
const MATCH_KEYS = new Set(['action', 'askers', 'arguments']);
const ASK_KEYS = new Set([
  'quorum',
  'audience',
  'channel',
  'escalationPolicy',
  'assurance',
  'requireSeparateRequester',
]);

export interface PolicyMatch {
  action: string;
  askers: string[] | null;
  /** The argument schema as given (a plain copy); `compiled` is what decides. */
  arguments: JsonObject | null;
}

export interface PolicyAsk {
  quorum: QuorumSpec | null;
  audience: string | null;
  channel: string | null;
  escalationPolicy: string | null;
  /** HIGH: the approver must step up (§23), whatever the agent asked. Enforced at ask time by §23's code. */
  assurance: PolicyAssurance | null;
  /** The requester (`action.requestedBy`) may not approve (§22). Enforced by §22's code. */
  requireSeparateRequester: boolean;
}

/** A rule as written: what the manifest lists, the store keeps and GraphQL shows. */
export interface PolicyRuleSpec {
  id: string;
  description: string | null;
  effect: PolicyEffect;
  mode: PolicyMode;
  match: PolicyMatch;
  ask: PolicyAsk | null;
  /** Epoch ms; past it the rule no longer matches. */
  expiresAt: number | null;
}

/** A rule ready to decide: its spec, where it came from, its version and its compiled schema. */
export interface PolicyRule extends PolicyRuleSpec {
  source: PolicySource;
  version: string;
  createdBy: string | null;
  createdAt: number | null;
  compiled: CompiledSchema | null;
  /** Grants only (source "grant"): the grant this rule stands for. */
  grant?: Grant;
}

/** What the ask-time checks of a rule's routing need to know of the manifest. */
export interface PolicyContext {
  channels?: ReadonlySet<string>;
  escalationPolicies?: ReadonlySet<string>;
}

function unknownKey(raw: Record<string, unknown>, known: ReadonlySet<string>, field: string): void {
  for (const key of Object.keys(raw)) {
    if (!known.has(key)) {
      throw badInput(`unknown field (expected: ${listChoices(known)})`, `${field}.${clip(key, 64)}`);
    }
  }
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function oneOf<T extends string>(value: unknown, choices: readonly T[], field: string, fallback?: T): T {
  if (!present(value) && fallback !== undefined) return fallback;
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    throw badInput(`must be one of: ${choices.join(', ')}`, field);
  }
  return value as T;
}

function label(value: unknown, field: string): string | null {
  if (!present(value)) return null;
  if (typeof value !== 'string') throw badInput('must be a string', field);
  if (isBlank(value)) throw badInput('must not be blank', field);
  if (exceedsChars(value, LABEL_MAX_CHARS))
    throw badInput(`must be at most ${LABEL_MAX_CHARS} characters`, field);
  return value;
}

function checkId(value: unknown, field: string): string {
  if (
    typeof value !== 'string' ||
    value.length < 1 ||
    value.length > POLICY_ID_MAX_CHARS ||
    !POLICY_ID.test(value)
  ) {
    throw badInput(`id must be 1 to ${POLICY_ID_MAX_CHARS} characters of a-z 0-9 -`, field);
  }
  if (value.startsWith(GRANT_ID_PREFIX))
    throw badInput(`ids starting with ${GRANT_ID_PREFIX} are kept for grants`, field);
  return value;
}

function checkAction(value: unknown, field: string): string {
  if (
    typeof value !== 'string' ||
    value.length < 1 ||
    value.length > ACTION_NAME_MAX_CHARS ||
    !ACTION_PATTERN.test(value)
  ) {
    throw badInput(
      `action must be a name or a glob of 1 to ${ACTION_NAME_MAX_CHARS} characters of A-Z a-z 0-9 _ . : - *`,
      field,
    );
  }
  return value;
}

function checkAskers(value: unknown, field: string): string[] | null {
  if (!present(value)) return null;
  if (!Array.isArray(value)) throw badInput('askers must be a list of principal ids', field);
  if (value.length < 1 || value.length > POLICY_ASKERS_MAX) {
    throw badInput(`askers must have 1 to ${POLICY_ASKERS_MAX} entries`, field);
  }
  const seen = new Set<string>();
  value.forEach((v, i) => {
    const at = `${field}[${i}]`;
    const id = label(v, at);
    if (id === null) throw badInput('an asker must be a non-blank string', at);
    if (seen.has(id)) throw badInput('askers must not repeat', at);
    seen.add(id);
  });
  return [...seen];
}

function checkMatch(value: unknown, field: string): { match: PolicyMatch; compiled: CompiledSchema | null } {
  if (!isPlainObject(value)) throw badInput('match must be an object', field);
  unknownKey(value, MATCH_KEYS, field);
  const action = checkAction(own(value, 'action'), `${field}.action`);
  const askers = checkAskers(own(value, 'askers'), `${field}.askers`);
  const schemaGiven = own(value, 'arguments');
  if (!present(schemaGiven)) return { match: { action, askers, arguments: null }, compiled: null };
  // The same rules and limits as a question's schema (§5.1), compiled here once.
  const compiled = compileJsonSchema(schemaGiven, `${field}.arguments`);
  return {
    match: { action, askers, arguments: JSON.parse(compiled.serialized) as JsonObject },
    compiled,
  };
}

/** checkQuorum names `input.quorum`; a rule's quorum lives elsewhere. */
function ruleQuorum(value: unknown, field: string): QuorumSpec | null {
  try {
    return checkQuorum(value, 'APPROVAL', null, false);
  } catch (err) {
    if (isDomainError(err) && err.field?.startsWith('input.quorum')) {
      throw new DomainError(err.code, err.message, field + err.field.slice('input.quorum'.length));
    }
    throw err;
  }
}

function checkAsk(value: unknown, field: string, ctx: PolicyContext): PolicyAsk | null {
  if (!present(value)) return null;
  if (!isPlainObject(value)) throw badInput('ask must be an object', field);
  unknownKey(value, ASK_KEYS, field);
  const channel = label(own(value, 'channel'), `${field}.channel`);
  if (channel !== null && ctx.channels && !ctx.channels.has(channel)) {
    throw badInput(`unknown channel (configured: ${listChoices(ctx.channels)})`, `${field}.channel`);
  }
  const escalationPolicy = label(own(value, 'escalationPolicy'), `${field}.escalationPolicy`);
  if (escalationPolicy !== null && ctx.escalationPolicies && !ctx.escalationPolicies.has(escalationPolicy)) {
    throw badInput(
      `unknown escalation policy (defined: ${listChoices(ctx.escalationPolicies)})`,
      `${field}.escalationPolicy`,
    );
  }
  return {
    quorum: ruleQuorum(own(value, 'quorum'), `${field}.quorum`),
    audience: label(own(value, 'audience'), `${field}.audience`),
    channel,
    escalationPolicy,
    assurance:
      own(value, 'assurance') === undefined || own(value, 'assurance') === null
        ? null
        : oneOf(own(value, 'assurance'), POLICY_ASSURANCES, `${field}.assurance`),
    requireSeparateRequester: flag(
      own(value, 'requireSeparateRequester'),
      `${field}.requireSeparateRequester`,
    ),
  };
}

function flag(value: unknown, field: string): boolean {
  if (!present(value)) return false;
  if (typeof value !== 'boolean') throw badInput('must be true or false', field);
  return value;
}

function checkExpiry(value: unknown, field: string): number | null {
  if (!present(value)) return null;
  const ms =
    value instanceof Date
      ? value.getTime()
      : typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value)
        ? Date.parse(value)
        : Number.NaN;
  if (!Number.isFinite(ms)) throw badInput('expiresAt must be a date-time (RFC 3339)', field);
  return ms;
}

/**
 * Checks a rule as written and compiles its argument schema. Errors are BAD_USER_INPUT under
 * `field` (`input` for GraphQL, `policies[3]` for the manifest).
 */
export function parsePolicyRule(
  given: unknown,
  field: string,
  ctx: PolicyContext = {},
): { spec: PolicyRuleSpec; compiled: CompiledSchema | null } {
  if (!isPlainObject(given)) throw badInput('a policy rule must be an object', field);
  unknownKey(given, RULE_KEYS, field);
  const id = checkId(own(given, 'id'), `${field}.id`);
  const descriptionGiven = own(given, 'description');
  let description: string | null = null;
  if (present(descriptionGiven)) {
    if (typeof descriptionGiven !== 'string') throw badInput('must be a string', `${field}.description`);
    if (exceedsChars(descriptionGiven, POLICY_DESCRIPTION_MAX_CHARS)) {
      throw badInput(
        `description must be at most ${POLICY_DESCRIPTION_MAX_CHARS} characters`,
        `${field}.description`,
      );
    }
    description = descriptionGiven;
  }
  const effect = oneOf(own(given, 'effect'), POLICY_EFFECTS, `${field}.effect`);
  const mode = oneOf(own(given, 'mode'), POLICY_MODES, `${field}.mode`, 'ENFORCE');
  const { match, compiled } = checkMatch(own(given, 'match'), `${field}.match`);
  const ask = checkAsk(own(given, 'ask'), `${field}.ask`, ctx);
  if (ask !== null && effect !== 'ASK') throw badInput('ask is only for ASK rules', `${field}.ask`);
  const expiresAt = checkExpiry(own(given, 'expiresAt'), `${field}.expiresAt`);
  return { spec: { id, description, effect, mode, match, ask, expiresAt }, compiled };
}

/** The rule as plain JSON (dates as RFC 3339), in a fixed shape: what versions and the store hash. */
export function policyRuleJson(spec: PolicyRuleSpec): JsonObject {
  return {
    id: spec.id,
    description: spec.description,
    effect: spec.effect,
    mode: spec.mode,
    match: { action: spec.match.action, askers: spec.match.askers, arguments: spec.match.arguments },
    ask: spec.ask
      ? {
          quorum: spec.ask.quorum,
          audience: spec.ask.audience,
          channel: spec.ask.channel,
          escalationPolicy: spec.ask.escalationPolicy,
          // Only when set, so the versions of rules written before these fields stay the same.
          ...(spec.ask.assurance ? { assurance: spec.ask.assurance } : {}),
          ...(spec.ask.requireSeparateRequester ? { requireSeparateRequester: true } : {}),
        }
      : null,
    expiresAt: spec.expiresAt === null ? null : new Date(spec.expiresAt).toISOString(),
  };
}

/** A manifest rule, ready to decide: its version is the `sha256:` of its JCS, so an edit shows. */
export function manifestPolicyRule(given: unknown, field: string, ctx: PolicyContext = {}): PolicyRule {
  const { spec, compiled } = parsePolicyRule(given, field, ctx);
  return {
    ...spec,
    source: 'manifest',
    version: jcsDigest(policyRuleJson(spec)),
    createdBy: null,
    createdAt: null,
    compiled,
  };
}
