// API keys → principals (API.md §2). Keys are compared by their SHA-256: a plaintext key is
// hashed while the configuration is parsed and never kept. No message here ever echoes a key.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { RESERVED_IDENTITY_PREFIXES, reservedPrefixOf } from '../domain/groups.ts';
import type { Principal, Role } from '../domain/principal.ts';
import { ROLES } from '../domain/principal.ts';

/** One configured principal, as kept after parsing: only the SHA-256 of its key (lowercase hex). */
export interface PrincipalConfig {
  readonly id: string;
  readonly keySha256: string;
  readonly roles: readonly Role[];
  readonly restricted: boolean;
  /** Its own cap on pending questions, over INTERACTIONS_MAX_PENDING_PER_PRINCIPAL. */
  readonly maxPending?: number;
}

export interface Keyring {
  /** The principal whose key this is, or null for an unknown (or empty) key. */
  authenticate(key: string): Principal | null;
}

export const PRINCIPAL_ID_MAX_CHARS = 256;
export const KEY_MIN_CHARS = 16;

/**
 * Ids that name built-in identities (`anonymous` for callers without a key, `callback` as the
 * answerer on the public callback door); a configured key may not pose as them.
 */
export const RESERVED_PRINCIPAL_IDS: readonly string[] = Object.freeze(['anonymous', 'callback']);

// A key travels in an HTTP header, so it is printable ASCII without spaces; anything else could
// never match what a client sends.
const KEY_CHARS = /^[\x21-\x7e]+$/;
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

const principalInput = z
  .strictObject(
    {
      id: z
        .string({ error: 'must be a string' })
        .refine((s) => s.trim() !== '', { error: 'must not be blank' })
        .refine((s) => [...s].length <= PRINCIPAL_ID_MAX_CHARS, {
          error: `must be at most ${PRINCIPAL_ID_MAX_CHARS} characters`,
        })
        .refine((s) => !RESERVED_PRINCIPAL_IDS.includes(s), { error: 'is reserved for a built-in identity' })
        // Identities the server mints (API.md §2, §22): a key may not pass for a rule, a group, a
        // rotation, a signed-in person, an MCP client's user, a callback holder or the open server.
        .refine((s) => reservedPrefixOf(s) === null, {
          error: `must not be or begin with a reserved identity prefix (${RESERVED_IDENTITY_PREFIXES.join(', ')})`,
        }),
      key: z
        .string({ error: 'must be a string' })
        .min(KEY_MIN_CHARS, { error: `must be at least ${KEY_MIN_CHARS} characters` })
        .regex(KEY_CHARS, { error: 'must be printable ASCII without spaces' })
        .optional(),
      keySha256: z
        .string({ error: 'must be a string' })
        .regex(SHA256_HEX, { error: 'must be 64 hexadecimal characters' })
        .optional(),
      roles: z
        .array(z.enum(ROLES, { error: `must be one of ${ROLES.join(', ')}` }), { error: 'must be an array' })
        .min(1, { error: 'must name at least one role' }),
      restricted: z.boolean({ error: 'must be true or false' }).default(false),
      maxPending: z
        .number({ error: 'must be a whole number of at least 1' })
        .int({ error: 'must be a whole number of at least 1' })
        .min(1, { error: 'must be a whole number of at least 1' })
        .max(Number.MAX_SAFE_INTEGER, { error: 'must be a whole number of at least 1' })
        .optional(),
    },
    // Unknown fields are refused: a misspelt `keysha256` or `restricetd` must not pass silently,
    // and the refusal names the fields there are.
    {
      error: (iss): string =>
        iss.code === 'unrecognized_keys'
          ? `unknown field (expected: ${Object.keys(principalInput.shape).join(', ')})`
          : 'must be an object',
    },
  )
  .superRefine((p, ctx) => {
    if ((p.key === undefined) === (p.keySha256 === undefined)) {
      ctx.addIssue({
        code: 'custom',
        message: 'exactly one of key and keySha256 is required',
        path: ['key'],
      });
    }
  });

const principalsInput = z.array(principalInput, { error: 'must be a JSON array of principals' });

function issuePath(path: readonly PropertyKey[], issue: z.core.$ZodIssue): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : `.${String(seg)}`;
  // For unknown fields, name them (their names are config, not secrets).
  if (issue.code === 'unrecognized_keys') out += `.${issue.keys.join(',')}`;
  return out.startsWith('.') ? out.slice(1) : out;
}

export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/**
 * Validates the principals configuration (the parsed JSON of `INTERACTIONS_API_KEYS`) and
 * returns frozen principals that keep only `keySha256`. Throws an Error whose message names the
 * offending index and field (e.g. `[2].roles[0]: must be one of agent, operator, auditor, admin`), never
 * a key.
 */
export function parsePrincipals(json: unknown): PrincipalConfig[] {
  const parsed = principalsInput.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue === undefined) throw new Error('invalid principals');
    const where = issuePath(issue.path, issue);
    throw new Error(where === '' ? issue.message : `${where}: ${issue.message}`);
  }
  const byId = new Map<string, number>();
  const byHash = new Map<string, number>();
  const out: PrincipalConfig[] = [];
  parsed.data.forEach((p, i) => {
    const firstId = byId.get(p.id);
    if (firstId !== undefined) throw new Error(`[${i}].id: duplicate of the id at [${firstId}]`);
    byId.set(p.id, i);
    const keySha256 = p.key !== undefined ? sha256Hex(p.key) : (p.keySha256 ?? '').toLowerCase();
    const firstKey = byHash.get(keySha256);
    if (firstKey !== undefined) {
      const field = p.key !== undefined ? 'key' : 'keySha256';
      throw new Error(`[${i}].${field}: the same key as the principal at [${firstKey}]`);
    }
    byHash.set(keySha256, i);
    out.push(
      Object.freeze({
        id: p.id,
        keySha256,
        roles: Object.freeze([...new Set(p.roles)]),
        restricted: p.restricted,
        ...(p.maxPending !== undefined ? { maxPending: p.maxPending } : {}),
      }),
    );
  });
  return out;
}

/** Looks keys up by their SHA-256; the plaintext of a presented key is hashed and dropped. */
export function createKeyring(principals: readonly PrincipalConfig[]): Keyring {
  const byHash = new Map<string, { digest: Buffer; principal: Principal }>();
  for (const p of principals) {
    const hex = p.keySha256.toLowerCase();
    if (!SHA256_HEX.test(hex)) throw new Error(`principal ${JSON.stringify(p.id)}: invalid keySha256`);
    if (byHash.has(hex)) throw new Error(`principal ${JSON.stringify(p.id)}: duplicate key`);
    const principal: Principal = Object.freeze({
      id: p.id,
      roles: Object.freeze([...p.roles]),
      restricted: p.restricted,
      ...(p.maxPending !== undefined ? { maxPending: p.maxPending } : {}),
    });
    byHash.set(hex, { digest: Buffer.from(hex, 'hex'), principal });
  }
  return {
    authenticate(key: string): Principal | null {
      if (typeof key !== 'string' || key === '') return null;
      // One-shot: on Node 20 every createHash() also reads process options (a profile of the
      // bench showed it as a visible share of each request), hash() does not.
      const digest = hash('sha256', key, 'buffer');
      const entry = byHash.get(digest.toString('hex'));
      // The map lookup finds the candidate; the constant-time comparison confirms it.
      if (entry === undefined || !timingSafeEqual(entry.digest, digest)) return null;
      return entry.principal;
    },
  };
}

/** A one-off admin key for a server started with access control on and no keys configured. */
export function mintAdminKey(): { key: string; principal: PrincipalConfig } {
  const key = randomBytes(32).toString('base64url');
  const principal: PrincipalConfig = Object.freeze({
    id: 'admin',
    keySha256: sha256Hex(key),
    roles: Object.freeze(['admin'] as Role[]),
    restricted: false,
  });
  return { key, principal };
}
