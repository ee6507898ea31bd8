// Deciding an APPROVAL question against the rule set (API.md §20): a pure function of the rules
// and the question. Rules are indexed by exact action name so that 1,000 exact rules cost a map
// lookup; only glob rules are tried one by one.
import { withPatternBudget } from '../linear-regexp.ts';
import type { JsonObject } from '../question.ts';
import { type CoveredQuestion, grantCovers } from './grant.ts';
import type { PolicyEffect, PolicyRule } from './rule.ts';

/** The question as rules see it; the routing fields decide only whether a grant covers it. */
export interface PolicyQuestion extends Omit<CoveredQuestion, 'action'> {
  askedBy: string;
  action: CoveredQuestion['action'] & { arguments: JsonObject };
}

export interface PolicyDecision {
  /** The one enforced rule that decides or adds scrutiny; null: ask as the agent wrote it. */
  recorded: PolicyRule | null;
  /** Every enforced ASK rule that matched (their highest quorum applies), most specific first. */
  asks: PolicyRule[];
  /** The SHADOW rules that matched: recorded on the question, deciding nothing. */
  shadow: PolicyRule[];
}

export interface PolicyIndex {
  readonly rules: readonly PolicyRule[];
  readonly exact: ReadonlyMap<string, readonly PolicyRule[]>;
  readonly globs: readonly PolicyRule[];
}

const RANK: Record<PolicyEffect, number> = { DENY: 0, ASK: 1, ALLOW: 2 };

function isGlob(action: string): boolean {
  return action.includes('*');
}

/** Builds the lookup once per rule-set change (never per ask). */
export function indexPolicies(rules: readonly PolicyRule[]): PolicyIndex {
  const exact = new Map<string, PolicyRule[]>();
  const globs: PolicyRule[] = [];
  for (const rule of rules) {
    if (isGlob(rule.match.action)) {
      globs.push(rule);
      continue;
    }
    const list = exact.get(rule.match.action);
    if (list) list.push(rule);
    else exact.set(rule.match.action, [rule]);
  }
  return { rules, exact, globs };
}

/**
 * `*` is any run of characters (dots included) and nothing else is special. The two-pointer
 * walk backtracks only to the last `*`, so it is O(name × pattern) at worst, never exponential.
 */
export function globMatches(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      resume = n;
    } else if (p < pattern.length && pattern[p] === name[n]) {
      p++;
      n++;
    } else if (star >= 0) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/**
 * Whether the arguments satisfy a rule's schema. A schema that cannot be evaluated (its pattern
 * budget ran out) counts as matching for DENY and ASK and as not matching for ALLOW: doubt adds
 * scrutiny and never removes it.
 */
function argumentsMatch(rule: PolicyRule, args: JsonObject): boolean {
  const compiled = rule.compiled;
  if (!compiled) return true;
  try {
    return withPatternBudget(() => compiled.validate(args) === true);
  } catch {
    return rule.effect !== 'ALLOW';
  }
}

function matches(rule: PolicyRule, q: PolicyQuestion, now: number): boolean {
  if (rule.expiresAt !== null && rule.expiresAt <= now) return false;
  if (rule.match.askers !== null && !rule.match.askers.includes(q.askedBy)) return false;
  if (rule.grant) return grantCovers(rule.grant, q);
  return argumentsMatch(rule, q.action.arguments);
}

/**
 * Effect first; then an operator's ALLOW before a person's grant (a grant's uses are spent
 * only where no rule allows it anyway); then the most specific action (exact, then longer
 * glob), then the lowest id.
 */
function compareRules(a: PolicyRule, b: PolicyRule): number {
  const byEffect = RANK[a.effect] - RANK[b.effect];
  if (byEffect !== 0) return byEffect;
  const byGrant = Number(a.grant !== undefined) - Number(b.grant !== undefined);
  if (byGrant !== 0) return byGrant;
  const aGlob = isGlob(a.match.action);
  const bGlob = isGlob(b.match.action);
  if (aGlob !== bGlob) return aGlob ? 1 : -1;
  if (aGlob && a.match.action.length !== b.match.action.length) {
    return b.match.action.length - a.match.action.length;
  }
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Which rules apply to an APPROVAL question, and which one is recorded. `skip`: rules to leave
 * out (grants whose use the store refused: exhausted, expired or revoked meanwhile).
 */
export function decide(
  index: PolicyIndex,
  q: PolicyQuestion,
  now: number,
  skip?: ReadonlySet<string>,
): PolicyDecision {
  const candidates: PolicyRule[] = [];
  for (const rule of index.exact.get(q.action.name) ?? []) candidates.push(rule);
  for (const rule of index.globs) if (globMatches(rule.match.action, q.action.name)) candidates.push(rule);
  const enforced: PolicyRule[] = [];
  const shadow: PolicyRule[] = [];
  for (const rule of candidates) {
    if (skip?.has(rule.id) || !matches(rule, q, now)) continue;
    (rule.mode === 'SHADOW' ? shadow : enforced).push(rule);
  }
  enforced.sort(compareRules);
  shadow.sort(compareRules);
  return {
    recorded: enforced[0] ?? null,
    asks: enforced.filter((r) => r.effect === 'ASK'),
    shadow,
  };
}
