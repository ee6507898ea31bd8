// `github` (API.md §8): `X-Hub-Signature-256: sha256=<64 hex>`, the HMAC-SHA256 of the raw body
// under the webhook secret. The prefix is required (a `sha1=` signature is refused).

import { createBodyHmacVerifier } from './body-hmac.ts';
import { checkSecretEnv, checkShape, decodeSha256Hex } from './common.ts';
import type { Verifier } from './types.ts';

export const GITHUB_SIGNATURE_HEADER = 'x-hub-signature-256';

export const githubVerifier: Verifier = createBodyHmacVerifier({
  name: 'github',
  parseConfig: (config) => ({ secretEnv: checkSecretEnv(checkShape(config, ['secretEnv'])) }),
  header: () => GITHUB_SIGNATURE_HEADER,
  decode: (candidate) => decodeSha256Hex(candidate, false),
});
