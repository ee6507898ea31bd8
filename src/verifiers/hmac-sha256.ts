// `hmac-sha256` (API.md §8): a header carries the HMAC-SHA256 of the raw body under the secret,
// as `sha256=<hex>` or bare `<hex>`, or with `encoding: "base64"` as (standard or URL-safe) base64.

import { badInput } from '../domain/errors.ts';
import { createBodyHmacVerifier } from './body-hmac.ts';
import {
  CONFIG_FIELD,
  checkSecretEnv,
  checkShape,
  decodeBase64Mac,
  decodeSha256Hex,
  optional,
} from './common.ts';
import type { Verifier } from './types.ts';

export const HMAC_DEFAULT_HEADER = 'X-Signature-256';
const HEADER_NAME_MAX = 128;
/** An HTTP field name: a token (RFC 9110 §5.1). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const ENCODINGS = ['hex', 'base64'] as const;
type Encoding = (typeof ENCODINGS)[number];

interface HmacConfig {
  secretEnv: string;
  header: string;
  encoding: Encoding;
}

function parseConfig(config: unknown): HmacConfig {
  const record = checkShape(config, ['secretEnv', 'header', 'encoding']);
  const secretEnv = checkSecretEnv(record);
  const header = optional(record, 'header', HMAC_DEFAULT_HEADER);
  if (typeof header !== 'string' || header.length > HEADER_NAME_MAX || !HEADER_NAME.test(header)) {
    throw badInput(
      `header must be a valid HTTP header name of at most ${HEADER_NAME_MAX} characters`,
      `${CONFIG_FIELD}.header`,
    );
  }
  const encoding = optional(record, 'encoding', 'hex');
  if (!ENCODINGS.includes(encoding as Encoding)) {
    throw badInput('encoding must be "hex" or "base64"', `${CONFIG_FIELD}.encoding`);
  }
  return { secretEnv, header, encoding: encoding as Encoding };
}

export const hmacSha256Verifier: Verifier = createBodyHmacVerifier({
  name: 'hmac-sha256',
  parseConfig,
  header: (config) => config.header,
  decode: (candidate, config) =>
    config.encoding === 'hex' ? decodeSha256Hex(candidate, true) : decodeBase64Mac(candidate),
});
