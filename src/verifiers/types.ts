// The webhook-verifier contract (API.md §7 step 3, §8). A verifier checks a callback's raw
// body and headers before anything else runs, and fails closed.

export interface VerifyRequest {
  /** The body bytes exactly as received. */
  rawBody: Buffer;
  /** Header names lower-cased, as Node gives them. */
  headers: Record<string, string | string[] | undefined>;
  /** Epoch milliseconds. */
  now: number;
}

export interface Verifier {
  name: string;
  /**
   * Validate the binding's config at ask time (BAD_USER_INPUT with field `input.verifier.config…`
   * on a bad shape). Pure: must not read secrets.
   */
  checkConfig(config: Record<string, unknown>): void;
  /** Whether this verifier signs the body (an empty body is then refused before verification: API.md §7 step 3). */
  signsBody: boolean;
  /**
   * Throws VerificationFailed on a bad/missing signature; throws VerifierUnavailable when it cannot
   * run (e.g. its secret env var is unset).
   */
  verify(
    req: VerifyRequest,
    config: Record<string, unknown>,
    env: Readonly<Record<string, string | undefined>>,
  ): void;
}

/** A bad or missing signature: 401 at the callback door. Its message never holds a secret, a signature or body bytes. */
export class VerificationFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VerificationFailed';
  }
}

/** The verifier cannot run (its secret is unset, its stored config is unusable): 500 at the door, failing closed. */
export class VerifierUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VerifierUnavailable';
  }
}
