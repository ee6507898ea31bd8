// The verifier registry: the names `askUser` may bind (API.md §5.1) and the verifier the callback
// door runs for each (§7 step 3).

import { githubVerifier } from './github.ts';
import { hmacSha256Verifier } from './hmac-sha256.ts';
import { stripeVerifier } from './stripe.ts';
import type { Verifier } from './types.ts';

export interface VerifierRegistry {
  get(name: string): Verifier | undefined;
  names(): ReadonlySet<string>;
}

/** A registry of `verifiers`; two with one name is a wiring mistake and throws. */
export function createVerifierRegistry(verifiers: Verifier[]): VerifierRegistry {
  const byName = new Map<string, Verifier>();
  for (const verifier of verifiers) {
    if (byName.has(verifier.name)) throw new Error(`duplicate verifier name: ${verifier.name}`);
    byName.set(verifier.name, verifier);
  }
  return {
    get: (name) => byName.get(name),
    // A fresh set each time: a caller cannot change what is registered.
    names: () => new Set(byName.keys()),
  };
}

/** The built-ins: `hmac-sha256`, `stripe` and `github` (API.md §8). */
export function builtinVerifiers(): Verifier[] {
  return [hmacSha256Verifier, stripeVerifier, githubVerifier];
}
