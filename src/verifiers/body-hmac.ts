// The verifiers whose header carries the HMAC-SHA256 of the raw body under one secret
// (`github`, `hmac-sha256`): they differ only in their config and in how a candidate decodes.
import { anyMatches, configForRun, hmacSha256, readSecret, signatureCandidates } from './common.ts';
import { VerificationFailed, type Verifier } from './types.ts';

export interface BodyHmacSpec<C extends { secretEnv: string }> {
  name: string;
  /** Checks a binding's config (BAD_USER_INPUT on a bad shape) and returns it typed. */
  parseConfig(config: unknown): C;
  /** The header holding the signature under this config. */
  header(config: C): string;
  /** A candidate's 32 MAC bytes, or null when it is not in this verifier's encoding. */
  decode(candidate: string, config: C): Buffer | null;
}

export function createBodyHmacVerifier<C extends { secretEnv: string }>(spec: BodyHmacSpec<C>): Verifier {
  return Object.freeze({
    name: spec.name,
    signsBody: true,
    checkConfig(config: Record<string, unknown>): void {
      spec.parseConfig(config);
    },
    verify(req, config, env): void {
      const parsed = configForRun(() => spec.parseConfig(config));
      const secret = readSecret(parsed.secretEnv, env);
      const candidates = signatureCandidates(req.headers, spec.header(parsed)).map((c) =>
        spec.decode(c, parsed),
      );
      const expected = hmacSha256(secret, req.rawBody);
      if (!anyMatches(expected, candidates)) throw new VerificationFailed('signature mismatch');
    },
  } satisfies Verifier);
}
