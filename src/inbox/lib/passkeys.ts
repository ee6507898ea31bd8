// Passkeys in the inbox (API.md §23): registering one, and approving a HIGH question with a fresh
// user-verifying assertion. The browser side of both ceremonies is @simplewebauthn/browser; the
// server checks them (never this page). The calls go to the REST passkey doors with the session
// cookie (a key holder cannot register or step up: a passkey proves a person).
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type { Transport } from './api.ts';

/** A refusal from a passkey door, with the server's reason when it gave one. */
export class PasskeyError extends Error {
  readonly reason: string | null;
  readonly code: string | null;
  constructor(message: string, code: string | null, reason: string | null) {
    super(message);
    this.code = code;
    this.reason = reason;
  }
}

async function post(api: Transport, path: string, body: unknown): Promise<unknown> {
  const res = await api.fetch(`${api.baseUrl}/api/interactions/webauthn/${path}`, {
    method: 'POST',
    headers: { ...api.authHeaders(), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const data = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    const message = typeof data.error === 'string' ? data.error : `the server refused (${res.status})`;
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    throw new PasskeyError(message, str(data.code), str(data.reason));
  }
  return data;
}

/** Whether this browser can make passkeys at all. */
export function passkeysSupported(): boolean {
  return typeof window !== 'undefined' && 'PublicKeyCredential' in window;
}

/** Registers a passkey for the signed-in person; resolves with its credential id. */
export async function registerPasskey(api: Transport): Promise<string> {
  const options = await post(api, 'register/options', {});
  // biome-ignore lint/suspicious/noExplicitAny: the server's options are the library's JSON shape.
  const response = await startRegistration({ optionsJSON: options as any });
  const done = (await post(api, 'register/verify', { response })) as { credentialId: string };
  return done.credentialId;
}

/** Approves `questionId` with `answer` behind a fresh passkey assertion; the server records it. */
export async function approveWithPasskey(api: Transport, questionId: string, answer: unknown): Promise<void> {
  const options = await post(api, 'approve/options', { questionId, answer });
  // biome-ignore lint/suspicious/noExplicitAny: the server's options are the library's JSON shape.
  const response = await startAuthentication({ optionsJSON: options as any });
  await post(api, 'approve', { questionId, answer, response });
}

/** Whether an answer to `q` needs the passkey step-up: approving a HIGH action. */
export function needsStepUp(q: { action?: { assurance?: string | null } | null }, answer: unknown): boolean {
  return (
    q.action?.assurance === 'HIGH' &&
    typeof answer === 'object' &&
    answer !== null &&
    (answer as { decision?: unknown }).decision === 'APPROVED'
  );
}
