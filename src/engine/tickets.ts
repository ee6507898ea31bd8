// Callback tickets: 32 CSPRNG bytes in base64url (43 characters). Only the SHA-256 is
// stored; the plaintext exists once, in the callback URL handed to the asker.
import { createHash, randomBytes } from 'node:crypto';

export interface Ticket {
  ticket: string;
  hash: string;
}

export function mintTicket(): Ticket {
  const ticket = randomBytes(32).toString('base64url');
  return { ticket, hash: hashTicket(ticket) };
}

export function hashTicket(ticket: string): string {
  return createHash('sha256').update(ticket, 'utf8').digest('hex');
}

export function callbackUrlFor(publicBaseUrl: string, ticket: string): string {
  return `${publicBaseUrl}/api/interactions/callback/${ticket}`;
}
