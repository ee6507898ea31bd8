// The manifest's `policies:` (API.md §20): each rule checked and its argument schema compiled at
// start, so a rule that does not compile stops the server with its id and key path.
import { isDomainError } from '../domain/errors.ts';
import { manifestPolicyRule, type PolicyRule } from '../domain/policy/rule.ts';
import { isPlainObject } from '../domain/values.ts';

/** What a manifest problem is made of; the caller turns it into its ManifestError. */
export interface PolicyProblem {
  keyPath: string;
  message: string;
}

function named(raw: unknown): string {
  const id = isPlainObject(raw) ? raw.id : undefined;
  return typeof id === 'string' && /^[a-z0-9-]{1,64}$/.test(id) ? `policy ${id}: ` : '';
}

/** The rules, or the first problem: a rule that does not check or compile, or a repeated id. */
export function manifestPolicies(
  raw: readonly unknown[],
  channels: ReadonlySet<string>,
  escalationPolicies: ReadonlySet<string>,
): PolicyRule[] | PolicyProblem {
  const rules: PolicyRule[] = [];
  const seen = new Set<string>();
  for (const [i, given] of raw.entries()) {
    const base = `policies[${i}]`;
    let rule: PolicyRule;
    try {
      rule = manifestPolicyRule(given, base, { channels, escalationPolicies });
    } catch (err) {
      if (!isDomainError(err)) throw err;
      return { keyPath: err.field ?? base, message: `${named(given)}${err.message}` };
    }
    if (seen.has(rule.id))
      return { keyPath: `${base}.id`, message: `policy ${rule.id}: the id is used twice` };
    seen.add(rule.id);
    rules.push(rule);
  }
  return rules;
}
