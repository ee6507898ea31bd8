// `github` (API.md §8): `X-Hub-Signature-256: sha256=<64 hex>`, the HMAC-SHA256 of the raw body
// under the webhook secret. The prefix is required (a `sha1=` signature is refused).

import {
  anyMatches,
  checkSecretEnv,
  checkShape,
  configForRun,
  decodeSha256Hex,
  hmacSha256,
  readSecret,
  signatureCandidates,
} from './common.ts';
import { VerificationFailed, type Verifier } from './types.ts';

export const GITHUB_SIGNATURE_HEADER = 'x-hub-signature-256';

function parseConfig(config: unknown): { secretEnv: string } {
  return { secretEnv: checkSecretEnv(checkShape(config, ['secretEnv'])) };
}

export const githubVerifier: Verifier = Object.freeze({
  name: 'github',
  signsBody: true,
  checkConfig(config: Record<string, unknown>): void {
    parseConfig(config);
  },
  verify(req, config, env): void {
    const { secretEnv } = configForRun(() => parseConfig(config));
    const secret = readSecret(secretEnv, env);
    const candidates = signatureCandidates(req.headers, GITHUB_SIGNATURE_HEADER).map((c) =>
      decodeSha256Hex(c, false),
    );
    const expected = hmacSha256(secret, req.rawBody);
    if (!anyMatches(expected, candidates)) throw new VerificationFailed('signature mismatch');
  },
} satisfies Verifier);
