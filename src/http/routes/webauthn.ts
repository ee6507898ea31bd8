// The passkey doors (API.md §23), for the inbox: registering a passkey (a person signed in
// through the session cookie, less than 5 minutes ago) and approving a HIGH question with a
// fresh user-verifying assertion. Thin: parse, call one engine method, answer.
//   POST /api/interactions/webauthn/register/options            → creation options
//   POST /api/interactions/webauthn/register/verify  {response} → {credentialId}
//   GET  /api/interactions/webauthn/credentials                 → {credentialIds}
//   POST /api/interactions/webauthn/approve/options {questionId, answer}           → request options
//   POST /api/interactions/webauthn/approve         {questionId, answer, response} → {data: question}
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { cookieValue, SESSION_COOKIE } from '../../auth/session-cookie.ts';
import { DomainError } from '../../domain/errors.ts';
import { parseJsonText } from '../../domain/json-text.ts';
import { questionView } from '../../domain/question-view.ts';
import { isPlainObject } from '../../domain/values.ts';
import type { Interactions } from '../../engine/types.ts';
import { useTextBodies } from '../json-body.ts';

export interface WebAuthnRouteOptions {
  engine: Interactions;
}

function bodyOf(req: FastifyRequest): Record<string, unknown> {
  const value = typeof req.body === 'string' ? parseJsonText(req.body) : (req.body ?? {});
  if (!isPlainObject(value)) throw new DomainError('BAD_USER_INPUT', 'the body must be a JSON object');
  return value;
}

function field(body: Record<string, unknown>, name: string): unknown {
  if (!Object.hasOwn(body, name)) throw new DomainError('BAD_USER_INPUT', `the body has no "${name}"`, name);
  return body[name];
}

function questionIdOf(body: Record<string, unknown>): string {
  const id = field(body, 'questionId');
  if (typeof id !== 'string')
    throw new DomainError('BAD_USER_INPUT', 'questionId must be a string', 'questionId');
  return id;
}

/** The caller's session id, when the session cookie (not a key) is what let it in. */
function sessionOf(req: FastifyRequest): string | null {
  const keyed = req.headers.authorization !== undefined || req.headers['x-api-key'] !== undefined;
  return keyed ? null : cookieValue(req.headers, SESSION_COOKIE);
}

export async function webauthnRoutes(app: FastifyInstance, o: WebAuthnRouteOptions): Promise<void> {
  // A WebAuthn response is a few KiB (an attestation with certificates stays well under 64).
  useTextBodies(app, 64 * 1024);
  const door = { config: { door: 'answer' as const } };
  const base = '/api/interactions/webauthn';
  app.post(`${base}/register/options`, door, async (req, reply) =>
    reply
      .header('cache-control', 'no-store')
      .send(await o.engine.passkeyRegistrationOptions(req.principal, sessionOf(req))),
  );
  app.post(`${base}/register/verify`, door, async (req, reply) => {
    const response = field(bodyOf(req), 'response');
    const credentialId = await o.engine.registerPasskey(req.principal, sessionOf(req), response);
    return reply.status(201).send({ credentialId });
  });
  app.get(`${base}/credentials`, door, async (req, reply) =>
    reply
      .header('cache-control', 'no-store')
      .send({ credentialIds: await o.engine.passkeyIds(req.principal) }),
  );
  app.post(`${base}/approve/options`, door, async (req, reply) => {
    const body = bodyOf(req);
    const options = await o.engine.stepUpOptions(req.principal, questionIdOf(body), field(body, 'answer'));
    return reply.header('cache-control', 'no-store').send(options);
  });
  app.post(`${base}/approve`, door, async (req, reply) => {
    const body = bodyOf(req);
    const q = await o.engine.answerWithPasskey(
      req.principal,
      questionIdOf(body),
      field(body, 'answer'),
      field(body, 'response'),
    );
    return reply.send({ data: questionView(q, await o.engine.escalations(q)) });
  });
}
