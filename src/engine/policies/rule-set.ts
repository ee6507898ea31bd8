// The rules this instance decides with (API.md §20): the manifest's, fixed at start, and the
// store's, replaced whenever a change is seen. The index is rebuilt on change, never per ask.
import { indexPolicies, type PolicyIndex } from '../../domain/policy/decide.ts';
import type { PolicyRule } from '../../domain/policy/rule.ts';

export interface RuleSet {
  /** The current index (manifest rules first, then store rules). */
  index(): PolicyIndex;
  /** Every rule, for the `policies` query. */
  rules(): readonly PolicyRule[];
  /** Replaces the store's rules (after a put, a delete, or a change seen from another instance). */
  setStoreRules(rules: readonly PolicyRule[]): void;
}

export function createRuleSet(manifest: readonly PolicyRule[] = []): RuleSet {
  let current = indexPolicies([...manifest]);
  return {
    index: () => current,
    rules: () => current.rules,
    setStoreRules(rules) {
      current = indexPolicies([...manifest, ...rules]);
    },
  };
}
