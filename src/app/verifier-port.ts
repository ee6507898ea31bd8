// Composition: the verifier registry as the engine's VerifierPort. Secrets are looked up by
// the variable name the binding's config gives, in the environment read at start.
import type { VerifierPort } from '../engine/ports.ts';
import type { VerifierRegistry } from '../verifiers/registry.ts';
import { VerificationFailed } from '../verifiers/types.ts';

export function verifierPort(
  registry: VerifierRegistry,
  secret: (name: string) => string | undefined,
): VerifierPort {
  return {
    names: () => registry.names(),
    checkConfig(name, config) {
      registry.get(name)?.checkConfig(config);
    },
    signsBody: (name) => registry.get(name)?.signsBody ?? true,
    verify(name, config, req) {
      const v = registry.get(name);
      if (!v) return 'unavailable';
      // The verifier sees only the one variable its binding names.
      const variable = config.secretEnv;
      const env = typeof variable === 'string' ? { [variable]: secret(variable) } : {};
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
