// The rules this instance decides with (API.md §20): the manifest's, fixed at start, the
// store's and the grants people gave, replaced whenever a change is seen. The index is rebuilt
// on change, never per ask.
import { indexPolicies, type PolicyIndex } from '../../domain/policy/decide.ts';
import type { PolicyRule } from '../../domain/policy/rule.ts';

export interface RuleSet {
  /** The current index (manifest rules first, then store rules, then grants). */
  index(): PolicyIndex;
  /** Every rule, for the `policies` query (grants included, `source: "grant"`). */
  rules(): readonly PolicyRule[];
  /** Replaces the store's rules (after a put, a delete, or a change seen from another instance). */
  setStoreRules(rules: readonly PolicyRule[]): void;
  /** Replaces the grants (after a give, a revoke, or a change seen from another instance). */
  setGrants(rules: readonly PolicyRule[]): void;
}

export function createRuleSet(manifest: readonly PolicyRule[] = []): RuleSet {
  let store: readonly PolicyRule[] = [];
  let grants: readonly PolicyRule[] = [];
  let current = indexPolicies([...manifest]);
  const rebuild = () => {
    current = indexPolicies([...manifest, ...store, ...grants]);
  };
  return {
    index: () => current,
    rules: () => current.rules,
    setStoreRules(rules) {
      store = rules;
      rebuild();
    },
    setGrants(rules) {
      grants = rules;
      rebuild();
    },
  };
}
