// Passkeys for step-up (API.md §23): a signed-in person registers a passkey or security key in
// the inbox, and a HIGH approval later needs a user-verifying assertion by one of them. Both
// ceremonies are checked by @simplewebauthn/server (never by hand); this module keeps what they
// need between the two calls of each ceremony and the credentials themselves, in the store's
// people table, so every instance sees the same passkeys and a challenge is used once anywhere.
import { createHash, randomBytes } from 'node:crypto';
import {
  generateRegistrationOptions,
  type VerifyRegistrationResponseOpts,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { DomainError } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';
import type { AuditLog } from '../../store/audit.ts';
import type { PeopleStore } from '../../store/people.ts';

/** A registration must follow a sign-in this recent (API.md §23). */
export const FRESH_SIGN_IN_MS = 5 * 60 * 1000;
/** A ceremony's challenge lives this long (and an assertion is fresh this long). */
export const CHALLENGE_MS = 5 * 60 * 1000;
/** Passkeys one person may hold. */
export const PASSKEYS_MAX = 10;
/** Credentials are kept this long after they were registered. */
const PASSKEY_KEEP_MS = 400 * 24 * 3600 * 1000;

export type RegistrationResponse = VerifyRegistrationResponseOpts['response'];

/** One registered credential, as the assertion check needs it. */
export interface StoredPasskey {
  id: string;
  publicKey: Uint8Array;
  counter: number;
  transports?: string[];
}

/** Where the relying party lives: the public base URL's origin and host (API.md §23). */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

export function relyingPartyOf(publicBaseUrl: string | null): RelyingParty | null {
  if (!publicBaseUrl) return null;
  const u = new URL(publicBaseUrl);
  return { id: u.hostname, origin: u.origin, name: 'tai-interactions' };
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const ownerOf = (principalId: string): string => `passkeys:${sha256(principalId)}`;

export interface Passkeys {
  rp: RelyingParty | null;
  /** Options for navigator.credentials.create(); needs a sign-in under 5 minutes old. */
  registrationOptions(p: Principal & { name?: string }, signedInAt: number | null): Promise<unknown>;
  /** Checks and keeps a new credential; writes PASSKEY_REGISTERED. Returns its id. */
  register(p: Principal, signedInAt: number | null, response: unknown): Promise<string>;
  /** The person's credentials (empty when none). */
  list(principalId: string): Promise<StoredPasskey[]>;
  /** Saves a credential's new signature counter after an assertion. */
  touch(principalId: string, key: StoredPasskey, counter: number): Promise<void>;
}

export function notConfigured(): DomainError {
  return new DomainError(
    'NOT_CONFIGURED',
    'passkeys need INTERACTIONS_PUBLIC_BASE_URL (their relying party)',
  );
}

function decode(id: string, text: string): StoredPasskey | null {
  try {
    const v = JSON.parse(text) as { publicKey: string; counter: number; transports?: string[] };
    return {
      id,
      publicKey: new Uint8Array(Buffer.from(v.publicKey, 'base64url')),
      counter: Number(v.counter) || 0,
      ...(Array.isArray(v.transports) ? { transports: v.transports } : {}),
    };
  } catch {
    return null;
  }
}

function encode(k: StoredPasskey): string {
  return JSON.stringify({
    publicKey: Buffer.from(k.publicKey).toString('base64url'),
    counter: k.counter,
    ...(k.transports ? { transports: k.transports } : {}),
  });
}

export function createPasskeys(
  store: PeopleStore,
  audit: AuditLog,
  publicBaseUrl: string | null,
  clock: () => number,
): Passkeys {
  const rp = relyingPartyOf(publicBaseUrl);
  const regKey = (principalId: string): string => `passkey-reg:${sha256(principalId)}`;

  function freshSignIn(signedInAt: number | null): void {
    // A stolen session cookie alone must not add a passkey: the person signed in just now.
    if (signedInAt === null || clock() - signedInAt >= FRESH_SIGN_IN_MS) {
      throw new DomainError(
        'FORBIDDEN',
        'registering a passkey needs a sign-in less than 5 minutes old: sign out and in again',
        undefined,
        { reason: 'FRESH_SIGN_IN_REQUIRED' },
      );
    }
  }

  async function list(principalId: string): Promise<StoredPasskey[]> {
    const all = await store.mapAll(ownerOf(principalId), clock());
    return Object.entries(all)
      .map(([id, text]) => decode(id, text))
      .filter((k): k is StoredPasskey => k !== null);
  }

  return {
    rp,
    list,
    async registrationOptions(p, signedInAt) {
      if (!rp) throw notConfigured();
      freshSignIn(signedInAt);
      const existing = await list(p.id);
      const options = await generateRegistrationOptions({
        rpName: rp.name,
        rpID: rp.id,
        userName: p.id,
        userDisplayName: p.name ?? p.id,
        // The user handle is opaque: a digest of the principal id, never the id itself.
        userID: new Uint8Array(createHash('sha256').update(p.id).digest()),
        challenge: new Uint8Array(randomBytes(32)),
        attestationType: 'none',
        excludeCredentials: existing.map((k) => ({ id: k.id })),
        authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
      });
      await store.put(regKey(p.id), options.challenge, clock() + CHALLENGE_MS);
      return options;
    },
    async register(p, signedInAt, response) {
      if (!rp) throw notConfigured();
      freshSignIn(signedInAt);
      const challenge = await store.take(regKey(p.id), clock());
      if (challenge === null) {
        throw new DomainError('BAD_USER_INPUT', 'no registration in progress (or it expired): start again');
      }
      let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
      try {
        verified = await verifyRegistrationResponse({
          response: response as RegistrationResponse,
          expectedChallenge: challenge,
          expectedOrigin: rp.origin,
          expectedRPID: rp.id,
          requireUserVerification: true,
        });
      } catch {
        throw new DomainError('BAD_USER_INPUT', 'the passkey registration did not verify', 'response');
      }
      const info = verified.registrationInfo;
      if (!verified.verified || !info) {
        throw new DomainError('BAD_USER_INPUT', 'the passkey registration did not verify', 'response');
      }
      const key: StoredPasskey = {
        id: info.credential.id,
        publicKey: info.credential.publicKey,
        counter: info.credential.counter,
        ...(info.credential.transports ? { transports: [...info.credential.transports] } : {}),
      };
      const now = clock();
      // Audited first: a credential is never usable without its entry.
      await audit.append({
        type: 'PASSKEY_REGISTERED',
        questionId: null,
        actor: p.id,
        via: 'api',
        detail: { credentialId: key.id },
        at: now,
      });
      const set = await store.mapSet(ownerOf(p.id), key.id, encode(key), PASSKEYS_MAX, now + PASSKEY_KEEP_MS);
      if (set === 'full') {
        throw new DomainError('LIMIT_EXCEEDED', `at most ${PASSKEYS_MAX} passkeys per person`);
      }
      return key.id;
    },
    async touch(principalId, key, counter) {
      if (counter <= key.counter) return;
      await store.mapSet(
        ownerOf(principalId),
        key.id,
        encode({ ...key, counter }),
        PASSKEYS_MAX,
        clock() + PASSKEY_KEEP_MS,
      );
    },
  };
}
