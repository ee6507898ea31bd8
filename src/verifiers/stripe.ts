// `stripe` (API.md §8): `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, the
// HMAC-SHA256 of `<t>.<raw body>` under the endpoint secret. `t` must lie within the tolerance of
// now (either side); any `v1` may match (secret rotation); other schemes (`v0=`…) are ignored.

import { badInput } from '../domain/errors.ts';
import {
  anyMatches,
  CONFIG_FIELD,
  checkSecretEnv,
  checkShape,
  configForRun,
  decodeHex,
  headerValues,
  hmacSha256,
  MAX_SIGNATURES,
  optional,
  readSecret,
} from './common.ts';
import { VerificationFailed, type Verifier, VerifierUnavailable, type VerifyRequest } from './types.ts';

export const STRIPE_SIGNATURE_HEADER = 'stripe-signature';
export const STRIPE_DEFAULT_TOLERANCE_SECONDS = 300;
export const STRIPE_MAX_TOLERANCE_SECONDS = 86_400;
const TIMESTAMP = /^[0-9]{1,12}$/;

interface StripeConfig {
  secretEnv: string;
  toleranceSeconds: number;
}

function parseConfig(config: unknown): StripeConfig {
  const record = checkShape(config, ['secretEnv', 'toleranceSeconds']);
  const secretEnv = checkSecretEnv(record);
  const tolerance = optional(record, 'toleranceSeconds', STRIPE_DEFAULT_TOLERANCE_SECONDS);
  if (
    typeof tolerance !== 'number' ||
    !Number.isInteger(tolerance) ||
    tolerance < 1 ||
    tolerance > STRIPE_MAX_TOLERANCE_SECONDS
  ) {
    throw badInput(
      `toleranceSeconds must be an integer from 1 to ${STRIPE_MAX_TOLERANCE_SECONDS}`,
      `${CONFIG_FIELD}.toleranceSeconds`,
    );
  }
  return { secretEnv, toleranceSeconds: tolerance };
}

interface ParsedSignature {
  /** The timestamp exactly as sent: it is what was signed. */
  t: string;
  v1: (Buffer | null)[];
}

/** One header value → its timestamp and v1 candidates, or the reason it cannot verify. */
function parseHeaderValue(value: string, budget: { left: number }): ParsedSignature | string {
  let t: string | undefined;
  const v1: (Buffer | null)[] = [];
  for (const item of value.split(',')) {
    const eq = item.indexOf('=');
    if (eq < 0) continue;
    const key = item.slice(0, eq).trim();
    const val = item.slice(eq + 1).trim();
    if (key === 't') {
      if (t !== undefined) return 'malformed signature header';
      t = val;
    } else if (key === 'v1') {
      if (budget.left === 0) throw new VerificationFailed('too many signatures');
      budget.left -= 1;
      v1.push(decodeHex(val));
    }
  }
  if (t === undefined) return 'signature header has no timestamp';
  if (!TIMESTAMP.test(t)) return 'malformed signature timestamp';
  if (v1.length === 0) return 'signature header has no v1 signature';
  return { t, v1 };
}

function verifyStripe(
  req: VerifyRequest,
  config: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): void {
  const { secretEnv, toleranceSeconds } = configForRun(() => parseConfig(config));
  const secret = readSecret(secretEnv, env);
  if (typeof req.now !== 'number' || !Number.isFinite(req.now)) {
    throw new VerifierUnavailable('clock unavailable');
  }
  const values = headerValues(req.headers, STRIPE_SIGNATURE_HEADER).filter((v) => v.trim() !== '');
  if (values.length === 0) throw new VerificationFailed('missing signature header');
  if (values.length > MAX_SIGNATURES) throw new VerificationFailed('too many signatures');
  const budget = { left: MAX_SIGNATURES };
  let failure = 'signature mismatch';
  for (const [i, value] of values.entries()) {
    const parsed = parseHeaderValue(value, budget);
    let reason: string;
    if (typeof parsed === 'string') {
      reason = parsed;
    } else if (!(Math.abs(req.now / 1000 - Number(parsed.t)) <= toleranceSeconds)) {
      reason = 'signature timestamp outside the tolerance';
    } else {
      const expected = hmacSha256(secret, Buffer.from(`${parsed.t}.`, 'utf8'), req.rawBody);
      if (anyMatches(expected, parsed.v1)) return;
      reason = 'signature mismatch';
    }
    if (i === 0) failure = reason;
  }
  throw new VerificationFailed(failure);
}

export const stripeVerifier: Verifier = Object.freeze({
  name: 'stripe',
  signsBody: true,
  checkConfig(config: Record<string, unknown>): void {
    parseConfig(config);
  },
  verify: verifyStripe,
} satisfies Verifier);
