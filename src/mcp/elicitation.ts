// `answer_here` (API.md §13.1): the question is also put to the calling client's own user as a
// form-mode elicitation, in the 2026-07-28 multi-round-trip form (an `input_required` result the
// client fulfils and retries with). The retry carries a `requestState` the server signed (the
// SDK's HMAC codec, bound to the caller) naming the question, and each state is used once.
import {
  createRequestStateCodec,
  type ElicitRequestFormParams,
  type ServerContext,
} from '@modelcontextprotocol/server';

type RequestedSchema = ElicitRequestFormParams['requestedSchema'];

/** The key of our one input request (and of its response on the retry). */
export const ANSWER_KEY = 'answer';
/** How long a person may take to fill the form in the client before its state expires. */
export const STATE_TTL_SECONDS = 3_600;

/** What the signed requestState carries: the question, and a nonce that makes it single-use. */
export interface ElicitState {
  q: string;
  n: string;
}

const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** Did this (2026-07-28) request's client declare form elicitation? */
export function clientElicitsForms(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const caps = envelope?.[CLIENT_CAPABILITIES] as { elicitation?: Record<string, unknown> } | undefined;
  const elicitation = caps?.elicitation;
  if (typeof elicitation !== 'object' || elicitation === null) return false;
  // An empty object is form mode (the 2025 default); otherwise form must be named.
  return Object.keys(elicitation).length === 0 || Object.hasOwn(elicitation, 'form');
}

/** The ask_user arguments an elicitation is built from. */
export interface ElicitableAsk {
  text: string;
  format?: string | undefined;
  options?: string[] | undefined;
  schema?: Record<string, unknown> | undefined;
  sensitive?: boolean | undefined;
  media?: unknown[] | undefined;
}

const PRIMITIVE_TYPES = new Set(['string', 'number', 'integer', 'boolean']);

/** A FORM schema a form elicitation can show: an object of primitive properties only. */
function flatSchemaOf(schema: Record<string, unknown> | undefined): Record<string, unknown> | null {
  if (schema?.type !== 'object') return null;
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return null;
  for (const value of Object.values(properties)) {
    const p = value as Record<string, unknown> | null;
    if (typeof p !== 'object' || p === null || !PRIMITIVE_TYPES.has(String(p.type))) return null;
  }
  const required = Array.isArray(schema.required) ? schema.required : undefined;
  return { type: 'object', properties, ...(required ? { required } : {}) };
}

/** Why this ask cannot be put to the client's user, or null when it can. */
export function elicitationRefusal(ask: ElicitableAsk): string | null {
  if (ask.sensitive)
    return 'a sensitive question is never put to the client (form elicitation must not ask for secrets)';
  if ((ask.media?.length ?? 0) > 0) return 'a question with media cannot be shown in an elicitation form';
  const format = ask.format ?? 'TEXT';
  if (format === 'FORM' && flatSchemaOf(ask.schema) === null) {
    return 'only a FORM whose schema is an object of string, number, integer and boolean properties can be elicited';
  }
  if (!['TEXT', 'CONFIRM', 'SELECT', 'FORM'].includes(format)) {
    return `a ${format} question cannot be elicited (TEXT, CONFIRM, SELECT and flat FORM can)`;
  }
  return null;
}

/** The form-mode elicitation parameters for an ask that `elicitationRefusal` accepted. */
export function elicitParamsOf(ask: ElicitableAsk): { message: string; requestedSchema: RequestedSchema } {
  const format = ask.format ?? 'TEXT';
  const one = (property: object): RequestedSchema =>
    ({ type: 'object', properties: { [ANSWER_KEY]: property }, required: [ANSWER_KEY] }) as RequestedSchema;
  switch (format) {
    case 'CONFIRM':
      return { message: ask.text, requestedSchema: one({ type: 'boolean', title: 'Yes' }) };
    case 'SELECT':
      return {
        message: ask.text,
        requestedSchema: one({ type: 'string', title: 'Your choice', enum: ask.options ?? [] }),
      };
    case 'FORM':
      return {
        message: ask.text,
        requestedSchema: flatSchemaOf(ask.schema) as RequestedSchema,
      };
    default:
      return { message: ask.text, requestedSchema: one({ type: 'string', title: 'Your answer' }) };
  }
}

/** The answer an accepted elicitation gives for a question of `format` (the service checks it). */
export function answerOf(format: string, content: Record<string, unknown> | undefined): unknown {
  if (content === undefined) return undefined;
  return format === 'FORM' ? content : content[ANSWER_KEY];
}

/** An elicitation's response on the retry, as the client sent it (untrusted). */
export function elicitResponseOf(
  ctx: ServerContext,
):
  | { action: 'accept'; content: Record<string, unknown> | undefined }
  | { action: 'decline' | 'cancel' }
  | null {
  const r = ctx.mcpReq.inputResponses?.[ANSWER_KEY] as { action?: unknown; content?: unknown } | undefined;
  if (typeof r !== 'object' || r === null) return null;
  if (r.action === 'accept') {
    const content =
      typeof r.content === 'object' && r.content !== null && !Array.isArray(r.content)
        ? (r.content as Record<string, unknown>)
        : undefined;
    return { action: 'accept', content };
  }
  return r.action === 'decline' || r.action === 'cancel' ? { action: r.action } : null;
}

/**
 * The requestState codec of one caller: HMAC-SHA256 with the configured key, bound to the caller
 * and to ask_user, expiring after STATE_TTL_SECONDS. `useOnce` refuses a state seen before, so a
 * replay is refused like a forgery (the SDK answers both with the same -32602 error).
 */
export function createElicitStateCodec(
  key: string,
  caller: string,
  useOnce: ((key: string, ttlMs: number) => Promise<boolean>) | undefined,
) {
  const codec = createRequestStateCodec<ElicitState>({
    key,
    ttlSeconds: STATE_TTL_SECONDS,
    bind: (ctx) => `${ctx.mcpReq.method}\0${caller}`,
  });
  return {
    mint: (state: ElicitState, ctx: ServerContext) => codec.mint(state, ctx),
    async verify(state: string, ctx: ServerContext): Promise<ElicitState> {
      const decoded = await codec.verify(state, ctx);
      if (typeof decoded?.q !== 'string' || typeof decoded.n !== 'string') throw new Error('malformed');
      if (!useOnce || !(await useOnce(`${decoded.q}:${decoded.n}`, STATE_TTL_SECONDS * 1000))) {
        throw new Error('replayed');
      }
      return decoded;
    },
  };
}
