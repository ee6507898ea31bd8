// Callback tickets: 32 CSPRNG bytes in base64url (43 characters). Only the SHA-256 is
// stored; the plaintext exists once, in the callback URL handed to the asker.
import { createHash, hash, randomBytes } from 'node:crypto';

export interface Ticket {
  ticket: string;
  hash: string;
}

export function mintTicket(): Ticket {
  const ticket = randomBytes(32).toString('base64url');
  return { ticket, hash: hashTicket(ticket) };
}

export function hashTicket(ticket: string): string {
  // One-shot: every callback POST hashes its ticket, and a Hash object per call costs more.
  return hash('sha256', ticket, 'hex');
}

export function callbackUrlFor(publicBaseUrl: string, ticket: string): string {
  return `${publicBaseUrl}/api/interactions/callback/${ticket}`;
}

/**
 * The store key of a prepareExternal reservation, bound to the principal who prepared it: a
 * caller holding someone else's prepared id derives another key and finds nothing (NOT_FOUND).
 * Hashing the encoded pair keeps the key bounded and no two (owner, id) pairs collide.
 */
export function reservationKey(owner: string, preparedId: string): string {
  return createHash('sha256')
    .update(JSON.stringify([owner, preparedId]), 'utf8')
    .digest('hex');
}
