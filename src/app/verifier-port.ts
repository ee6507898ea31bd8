// Composition: the verifier registry as the engine's VerifierPort. Secrets are looked up by
// the variable name the binding's config gives, among the variables the operator declared for
// verifiers (INTERACTIONS_VERIFIER_SECRETS), read at start.
import { badInput } from '../domain/errors.ts';
import type { VerifierPort } from '../engine/ports.ts';
import type { VerifierRegistry } from '../verifiers/registry.ts';
import { VerificationFailed } from '../verifiers/types.ts';
import type { Config } from './config.ts';

export function verifierPort(
  registry: VerifierRegistry,
  secrets: Pick<Config, 'verifierSecretNames' | 'secret'>,
): VerifierPort {
  const declared = new Set(secrets.verifierSecretNames);
  return {
    names: () => registry.names(),
    checkConfig(name, config) {
      registry.get(name)?.checkConfig(config);
      // Any other name would let an asker probe the server's environment (set or not, and its
      // value by signing guesses), so it is refused before anything is stored.
      const variable = config.secretEnv;
      if (typeof variable === 'string' && !declared.has(variable)) {
        throw badInput(
          'secretEnv must name a variable the operator declared in INTERACTIONS_VERIFIER_SECRETS',
          'input.verifier.config.secretEnv',
        );
      }
    },
    signsBody: (name) => registry.get(name)?.signsBody ?? true,
    verify(name, config, req) {
      const v = registry.get(name);
      if (!v) return 'unavailable';
      // The verifier sees only the one variable its binding names.
      const variable = config.secretEnv;
      const env = typeof variable === 'string' ? { [variable]: secrets.secret(variable) } : {};
      try {
        v.verify(req, config, env);
        return 'ok';
      } catch (err) {
        // Anything but a failed signature means it could not run: fail closed.
        return err instanceof VerificationFailed ? 'failed' : 'unavailable';
      }
    },
  };
}
