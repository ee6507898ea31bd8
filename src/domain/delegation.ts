// Delegation and out-of-office (API.md §22): a person hands the questions addressed to them to
// another identity until a time. Pure rules: what a delegation may be, checked before anything
// is stored. No chains: a delegate's own delegation is never followed (engine/people/delegation.ts
// reads one step only), so these rules need not look at the delegate's delegation at all.
import { badInput } from './errors.ts';

/** The longest a delegation may last, counted from when it is set. */
export const DELEGATION_MAX_MS = 90 * 24 * 3600 * 1000;
export const DELEGATION_MAX_DAYS = 90;
/** An identity as the server writes them (a key id, `oidc:<sub>`): bounded like a question id. */
export const IDENTITY_MAX_CHARS = 128;
export const DELEGATION_REASON_MAX_CHARS = 200;
/**
 * Identity prefixes that name no person (API.md §2): a question cannot be handed to a group, a
 * rotation, a rule, a client or the public door. `oidc:` is a person and is allowed.
 */
export const NOT_A_PERSON = ['policy', 'group', 'oncall', 'mcp', 'callback', 'anonymous'] as const;

export interface Delegation {
  /** The person who is away. */
  from: string;
  /** Who receives their questions meanwhile. */
  to: string;
  /** Epoch ms: the delegation ends at this instant. */
  until: number;
  reason: string | null;
  /** When it was set (epoch ms). */
  setAt: number;
}

const codePoints = (s: string): number => [...s].length;

/** Checks a delegation request from `from` at `now`; throws BAD_USER_INPUT naming the field. */
export function checkDelegation(
  from: string,
  input: { to: unknown; until: unknown; reason?: unknown },
  now: number,
): Delegation {
  const { to, until } = input;
  if (typeof to !== 'string' || to.trim() === '')
    throw badInput('to: name the identity to delegate to', 'to');
  if (codePoints(to) > IDENTITY_MAX_CHARS) {
    throw badInput(`to: at most ${IDENTITY_MAX_CHARS} characters`, 'to');
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\s\u0000-\u001f\u007f]/u.test(to))
    throw badInput('to: an identity has no spaces or control characters', 'to');
  if (to === from) throw badInput('to: a delegation to yourself is refused', 'to');
  const prefix = NOT_A_PERSON.find((p) => to === p || to.startsWith(`${p}:`));
  if (prefix) {
    throw badInput(
      `to: "${prefix}" identities are not people; delegate to a key id or an oidc: identity`,
      'to',
    );
  }
  if (typeof until !== 'number' || !Number.isFinite(until))
    throw badInput('until: expected a date-time', 'until');
  if (until <= now) throw badInput('until: must be in the future', 'until');
  if (until > now + DELEGATION_MAX_MS) {
    throw badInput(`until: at most ${DELEGATION_MAX_DAYS} days from now`, 'until');
  }
  let reason: string | null = null;
  if (input.reason !== undefined && input.reason !== null) {
    if (typeof input.reason !== 'string') throw badInput('reason: expected a string', 'reason');
    if (codePoints(input.reason) > DELEGATION_REASON_MAX_CHARS) {
      throw badInput(`reason: at most ${DELEGATION_REASON_MAX_CHARS} characters`, 'reason');
    }
    reason = input.reason.trim() === '' ? null : input.reason;
  }
  return { from, to, until, reason, setAt: now };
}

/** The stored form, read back: null when it is not a delegation (or not one any more). */
export function parseDelegation(text: string | null | undefined, now: number): Delegation | null {
  if (!text) return null;
  try {
    const d = JSON.parse(text) as Delegation;
    if (typeof d.from !== 'string' || typeof d.to !== 'string' || typeof d.until !== 'number') return null;
    return d.until > now
      ? { from: d.from, to: d.to, until: d.until, reason: d.reason ?? null, setAt: d.setAt }
      : null;
  } catch {
    return null;
  }
}
