// `answer_here` (API.md §13.1): the question is also put to the calling client's own user as a
// form-mode elicitation. What is elicitable and how (the form's schema, the answer it gives) is
// here, for both forms: the 2026-07-28 multi-round-trip form (an `input_required` result the
// client fulfils and retries with; the retry carries a `requestState` the server signed, with the
// SDK's HMAC codec, bound to the caller, used once) and the 2025 `elicitation/create` request
// on a session's stream (answer-here.ts, legacy-sessions.ts).
import {
  createRequestStateCodec,
  type ElicitRequestFormParams,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { APPROVAL_NOTE_MAX_CHARS } from '../domain/limits.ts';
import { presentationLines, presentOn } from '../domain/presentation.ts';
import { ANSWER_FORMATS, type AnswerFormat } from '../domain/question.ts';

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

/** Does a declared `elicitation` capability include form mode? */
export function declaresFormElicitation(elicitation: unknown): boolean {
  if (typeof elicitation !== 'object' || elicitation === null) return false;
  // An empty object is form mode (the 2025 default); otherwise form must be named.
  return Object.keys(elicitation).length === 0 || Object.hasOwn(elicitation, 'form');
}

/** Did this (2026-07-28) request's client declare form elicitation? */
export function clientElicitsForms(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const caps = envelope?.[CLIENT_CAPABILITIES] as { elicitation?: unknown } | undefined;
  return declaresFormElicitation(caps?.elicitation);
}

/** The ask_user arguments an elicitation is built from. */
export interface ElicitableAsk {
  text: string;
  format?: AnswerFormat | undefined;
  options?: string[] | undefined;
  schema?: Record<string, unknown> | undefined;
  sensitive?: boolean | undefined;
  media?: unknown[] | undefined;
  /** APPROVAL: the proposed action (snake_case, as ask_user takes it). */
  action?:
    | {
        name: string;
        summary?: string | undefined;
        arguments: Record<string, unknown>;
        editable?: boolean | undefined;
        assurance?: 'STANDARD' | 'HIGH' | undefined;
      }
    | undefined;
  quorum?: { voters?: string[] | undefined } | undefined;
}

/** The APPROVAL form's fields: a decision, and a note for the record (API.md §15). */
const DECISION_KEY = 'decision';
const NOTE_KEY = 'note';

/**
 * Which formats a form elicitation can carry; some only in part (FORM with a flat schema, APPROVAL
 * without edits: elicitationRefusal says why not). EXTERNAL is answered on its provider's page.
 */
const ELICITABLE: Record<AnswerFormat, boolean> = {
  TEXT: true,
  CONFIRM: true,
  SELECT: true,
  FORM: true,
  EXTERNAL: false,
  APPROVAL: true,
};
const ELICITABLE_FORMATS: readonly string[] = ANSWER_FORMATS.filter((f) => ELICITABLE[f]);

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

/**
 * Why this ask cannot be put to the client's user, or null when it can. `answerer` is who an
 * answer given there is by (`mcp:<principal id>`): a quorum that names its voters must name it.
 */
export function elicitationRefusal(ask: ElicitableAsk, answerer?: string): string | null {
  if (ask.sensitive)
    return 'a sensitive question is never put to the client (form elicitation must not ask for secrets)';
  if ((ask.media?.length ?? 0) > 0) return 'a question with media cannot be shown in an elicitation form';
  const format = ask.format ?? 'TEXT';
  if (format === 'FORM' && flatSchemaOf(ask.schema) === null) {
    return 'only a FORM whose schema is an object of string, number, integer and boolean properties can be elicited';
  }
  // Edits need a form built from any arguments schema; the inbox and the callback page have it.
  if (format === 'APPROVAL' && ask.action?.editable) {
    return 'an APPROVAL whose action is editable cannot be elicited (approve or edit it in the inbox or on its channel)';
  }
  // A HIGH approval needs the approver's passkey (API.md §23): only the inbox can ask for it.
  if (format === 'APPROVAL' && ask.action?.assurance === 'HIGH') {
    return 'a HIGH approval needs the approver’s passkey (STEP_UP_REQUIRED): approve it in the inbox';
  }
  if (!ELICITABLE_FORMATS.includes(format)) {
    return `a ${format} question cannot be elicited (${ELICITABLE_FORMATS.join(', ')} can: FORM with a flat schema, APPROVAL without edits)`;
  }
  const voters = ask.quorum?.voters;
  if (voters && answerer !== undefined && !voters.includes(answerer)) {
    return `${answerer} (who answers in this client) is not among quorum.voters`;
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
    case 'APPROVAL':
      return approvalParamsOf(ask);
    case 'TEXT':
      return { message: ask.text, requestedSchema: one({ type: 'string', title: 'Your answer' }) };
    case 'EXTERNAL':
      throw new Error('an EXTERNAL question is never elicited (elicitationRefusal refuses it)');
    default:
      // ask_user's schema admits only ANSWER_FORMATS: a format added there must be handled here.
      format satisfies never;
      throw new Error(`a ${String(format)} question is never elicited`);
  }
}

/** An APPROVAL without edits: Approve / Reject and a note, with the action shown in the message. */
function approvalParamsOf(ask: ElicitableAsk): { message: string; requestedSchema: RequestedSchema } {
  const action = ask.action;
  const lines = [ask.text];
  // From the one presentation object the answer's presentedDigest digests (API.md §23).
  if (action) lines.push('', ...presentationLines(presentOn('mcp', action, action.arguments)));
  const requestedSchema = {
    type: 'object',
    properties: {
      [DECISION_KEY]: {
        type: 'string',
        title: 'Decision',
        oneOf: [
          { const: 'APPROVED', title: 'Approve' },
          { const: 'REJECTED', title: 'Reject' },
        ],
      },
      [NOTE_KEY]: { type: 'string', title: 'Note (optional)', maxLength: APPROVAL_NOTE_MAX_CHARS },
    },
    required: [DECISION_KEY],
  } as RequestedSchema;
  return { message: lines.join('\n'), requestedSchema };
}

/** The answer an accepted elicitation gives for a question of `format` (the service checks it). */
export function answerOf(format: string, content: Record<string, unknown> | undefined): unknown {
  if (content === undefined) return undefined;
  if (format === 'FORM') return content;
  if (format === 'APPROVAL') {
    // An empty note field is no note; anything else goes to the service's checks as given.
    const note = content[NOTE_KEY];
    const given = note === undefined || note === '' ? {} : { note };
    return { decision: content[DECISION_KEY], ...given };
  }
  return content[ANSWER_KEY];
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
