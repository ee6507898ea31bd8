// The question an asker sends (API.md §5.1), checked before anything is stored.
// Fields are checked one by one in a fixed order and the first failure wins; every error is
// BAD_USER_INPUT with a `field` under `input.`.
import { type ZodType, z } from 'zod';
import { checkAction, checkQuorum } from './approval.ts';
import { assertCanonicalizable } from './digest.ts';
import { badInput, isDomainError } from './errors.ts';
import { type EscalationStep, ladderOf } from './escalation.ts';
import { compileJsonSchema, isJsonValue } from './json-schema.ts';
import {
  exceedsChars,
  isBlank,
  JSON_MAX_DEPTH,
  LABEL_MAX_CHARS,
  LINK_MAX_CHARS,
  METADATA_MAX_BYTES,
  OPTION_MAX_CHARS,
  OPTIONS_MAX,
  OPTIONS_MIN,
  TEXT_MAX_CHARS,
  TIMEOUT_MAX_SECONDS,
  TIMEOUT_MIN_SECONDS,
  utf8ByteLength,
  VERIFIER_CONFIG_MAX_BYTES,
} from './limits.ts';
import { checkWebUrl, validateMedia } from './media.ts';
import {
  type ActionSpec,
  ANSWER_FORMATS,
  type AnswerFormat,
  type JsonObject,
  type QuestionSpec,
  type QuorumSpec,
  type VerifierBinding,
} from './question.ts';
import { clip, isPlainObject, listChoices, own } from './values.ts';

export interface AskContext {
  verifiers: ReadonlySet<string>;
  channels: ReadonlySet<string>;
  /** Resume-webhook endpoints `notify` may name (absent: none). */
  webhooks?: ReadonlySet<string>;
  /** The ask uses a `prepareExternal` reservation: `link` is the final URL. */
  prepared: boolean;
  /** The manifest's `escalationPolicies` (absent: none). */
  policies?: ReadonlyMap<string, readonly EscalationStep[]>;
}

/**
 * The checked input: the question's own fields as the record keeps them (`link` still the
 * template, or when prepared the final URL, not yet resolved: see `resolveLink`), plus the
 * requested timeout.
 */
export type ValidatedAsk = Pick<
  QuestionSpec,
  | 'text'
  | 'format'
  | 'options'
  | 'schema'
  | 'link'
  | 'verifier'
  | 'channel'
  | 'recipient'
  | 'audience'
  | 'groupId'
  | 'media'
  | 'sensitive'
  | 'idempotencyKey'
> & {
  action: ActionSpec | null;
  quorum: QuorumSpec | null;
  timeoutSeconds: number | null;
  metadata: JsonObject | null;
  notify: string | null;
  /** The ladder (given, or the named policy's copy) and the field it came from; null: none. */
  escalation: { steps: EscalationStep[]; field: string } | null;
};

export const CALLBACK_PLACEHOLDER = '{callback_url}';
/** Stands in for the callback URL when a template is checked before the real one exists. */
const PLACEHOLDER_PROBE = 'https://callback.invalid/api/interactions/callback/probe';
const KEY_SHOWN_MAX = 64;
const MESSAGE_MAX = 200;

const FIELD_TYPES = {
  text: z.string(),
  format: z.enum(ANSWER_FORMATS).nullish(),
  options: z.array(z.string()).nullish(),
  schema: z.unknown(),
  link: z.string().nullish(),
  verifier: z.strictObject({ name: z.string(), config: z.unknown().optional() }).nullish(),
  channel: z.string().nullish(),
  recipient: z.string().nullish(),
  audience: z.string().nullish(),
  groupId: z.string().nullish(),
  media: z.unknown(),
  timeoutSeconds: z.number().int().nullish(),
  sensitive: z.boolean().nullish(),
  idempotencyKey: z.string().nullish(),
  metadata: z.unknown(),
  notify: z.string().nullish(),
  action: z.unknown(),
  quorum: z.unknown(),
  escalation: z.unknown(),
  escalationPolicy: z.unknown(),
} as const;

type FieldName = keyof typeof FIELD_TYPES;
const FIELD_NAMES: ReadonlySet<string> = new Set(Object.keys(FIELD_TYPES));

function pathOf(base: string, path: readonly PropertyKey[]): string {
  let out = base;
  for (const seg of path) {
    out += typeof seg === 'number' ? `[${seg}]` : `.${clip(String(seg), KEY_SHOWN_MAX)}`;
  }
  return out;
}

/** Type-checks one field with zod and maps the first issue to `input.<field>[…]`. */
function typed<K extends FieldName>(raw: Record<string, unknown>, key: K): z.output<(typeof FIELD_TYPES)[K]> {
  const schema: ZodType = FIELD_TYPES[key];
  const value = own(raw, key);
  const result = schema.safeParse(value);
  if (result.success) return result.data as z.output<(typeof FIELD_TYPES)[K]>;
  const issue = result.error.issues[0];
  const base = `input.${key}`;
  if (!issue) throw badInput(`${key} is invalid`, base);
  if (value === undefined) throw badInput(`${key} is required`, base);
  let field = pathOf(base, issue.path);
  if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined) {
    field = pathOf(field, [issue.keys[0]]);
    throw badInput('unknown field', field);
  }
  throw badInput(clip(`${key}: ${issue.message}`, MESSAGE_MAX), field);
}

function label(value: string | null | undefined, name: string): string | null {
  if (value === null || value === undefined) return null;
  const field = `input.${name}`;
  if (isBlank(value)) throw badInput(`${name} must not be blank`, field);
  if (exceedsChars(value, LABEL_MAX_CHARS)) {
    throw badInput(`${name} must be at most ${LABEL_MAX_CHARS} characters`, field);
  }
  return value;
}

function checkText(raw: Record<string, unknown>): string {
  const text = typed(raw, 'text');
  if (isBlank(text)) throw badInput('text must not be blank', 'input.text');
  // Receipts and the audit log carry its RFC 8785 digest (textDigest).
  assertCanonicalizable(text, 'input.text');
  if (exceedsChars(text, TEXT_MAX_CHARS)) {
    throw badInput(`text must be at most ${TEXT_MAX_CHARS} characters`, 'input.text');
  }
  return text;
}

function checkOptions(raw: Record<string, unknown>, format: AnswerFormat): string[] | null {
  const given = own(raw, 'options');
  if (given !== undefined && given !== null && format !== 'SELECT') {
    throw badInput('options are only for SELECT questions', 'input.options');
  }
  if (Array.isArray(given) && given.length > OPTIONS_MAX) {
    throw badInput(`options must have at most ${OPTIONS_MAX} entries`, 'input.options');
  }
  const options = typed(raw, 'options');
  if (format !== 'SELECT') return null;
  if (options === null || options === undefined) {
    throw badInput('options are required for SELECT questions', 'input.options');
  }
  if (options.length < OPTIONS_MIN) {
    throw badInput(`options must have at least ${OPTIONS_MIN} entry`, 'input.options');
  }
  const seen = new Set<string>();
  options.forEach((option, i) => {
    const field = `input.options[${i}]`;
    if (isBlank(option)) throw badInput('option must not be blank', field);
    if (exceedsChars(option, OPTION_MAX_CHARS)) {
      throw badInput(`option must be at most ${OPTION_MAX_CHARS} characters`, field);
    }
    if (seen.has(option)) throw badInput('options must not repeat', field);
    seen.add(option);
  });
  return [...options];
}

function declaresObjectType(schema: JsonObject): boolean {
  const type = schema.type;
  return type === 'object' || (Array.isArray(type) && type.length === 1 && type[0] === 'object');
}

function checkSchema(raw: Record<string, unknown>, format: AnswerFormat): JsonObject | null {
  const given = typed(raw, 'schema');
  const present = given !== undefined && given !== null;
  if (!present) {
    if (format === 'FORM') throw badInput('schema is required for FORM questions', 'input.schema');
    return null;
  }
  if (format !== 'FORM' && format !== 'EXTERNAL') {
    throw badInput('schema is only for FORM and EXTERNAL questions', 'input.schema');
  }
  const compiled = compileJsonSchema(given, 'input.schema');
  if (format === 'FORM' && !declaresObjectType(compiled.schema)) {
    throw badInput('a FORM schema must declare "type": "object" at its root', 'input.schema');
  }
  return JSON.parse(compiled.serialized) as JsonObject;
}

function checkLink(
  raw: Record<string, unknown>,
  format: AnswerFormat,
  hasChannel: boolean,
  prepared: boolean,
): string | null {
  const link = typed(raw, 'link');
  if (link === null || link === undefined) {
    if (format === 'EXTERNAL' && !hasChannel && !prepared) {
      throw badInput('link is required for EXTERNAL questions', 'input.link');
    }
    return null;
  }
  if (format !== 'EXTERNAL') throw badInput('link is only for EXTERNAL questions', 'input.link');
  if (exceedsChars(link, LINK_MAX_CHARS)) {
    throw badInput(`link must be at most ${LINK_MAX_CHARS} characters`, 'input.link');
  }
  if (!prepared && !link.includes(CALLBACK_PLACEHOLDER)) {
    throw badInput(`link must contain ${CALLBACK_PLACEHOLDER}`, 'input.link');
  }
  resolveLink(link, PLACEHOLDER_PROBE, prepared);
  return link;
}

function checkVerifier(
  raw: Record<string, unknown>,
  format: AnswerFormat,
  hasChannel: boolean,
  verifiers: ReadonlySet<string>,
): VerifierBinding | null {
  const verifier = typed(raw, 'verifier');
  if (verifier === null || verifier === undefined) return null;
  if (format !== 'EXTERNAL') throw badInput('verifier is only for EXTERNAL questions', 'input.verifier');
  if (!verifiers.has(verifier.name)) {
    throw badInput(`unknown verifier (allowed: ${listChoices(verifiers)})`, 'input.verifier.name');
  }
  if (hasChannel) throw badInput('verifier is not allowed with channel', 'input.verifier');
  const config = verifier.config;
  if (config === null || config === undefined) return { name: verifier.name, config: {} };
  const field = 'input.verifier.config';
  if (!isPlainObject(config) || !isJsonValue(config, JSON_MAX_DEPTH)) {
    throw badInput('verifier config must be a JSON object', field);
  }
  const serialized = JSON.stringify(config);
  if (utf8ByteLength(serialized) > VERIFIER_CONFIG_MAX_BYTES) {
    throw badInput(`verifier config must be at most ${VERIFIER_CONFIG_MAX_BYTES} bytes serialized`, field);
  }
  return { name: verifier.name, config: JSON.parse(serialized) as Record<string, unknown> };
}

function checkTimeout(raw: Record<string, unknown>): number | null {
  const timeout = typed(raw, 'timeoutSeconds');
  if (timeout === null || timeout === undefined) return null;
  if (timeout < TIMEOUT_MIN_SECONDS || timeout > TIMEOUT_MAX_SECONDS) {
    throw badInput(
      `timeoutSeconds must be ${TIMEOUT_MIN_SECONDS} to ${TIMEOUT_MAX_SECONDS}`,
      'input.timeoutSeconds',
    );
  }
  return timeout;
}

function checkMetadata(raw: Record<string, unknown>): JsonObject | null {
  const given = typed(raw, 'metadata');
  if (given === null || given === undefined) return null;
  const field = 'input.metadata';
  if (!isPlainObject(given)) throw badInput('metadata must be a JSON object', field);
  // Handed to webhooks as JSON that others parse: a number past a double or a lone surrogate
  // is named at its path rather than called "not an object".
  assertCanonicalizable(given, field, JSON_MAX_DEPTH);
  if (!isJsonValue(given, JSON_MAX_DEPTH)) throw badInput('metadata must be a JSON object', field);
  const serialized = JSON.stringify(given);
  // UTF-8 bytes are never fewer than UTF-16 units, so the first test is a cheap early out.
  if (serialized.length > METADATA_MAX_BYTES || utf8ByteLength(serialized) > METADATA_MAX_BYTES) {
    throw badInput(`metadata must be at most ${METADATA_MAX_BYTES} bytes as JSON (UTF-8)`, field);
  }
  return JSON.parse(serialized) as JsonObject;
}

function checkNotify(raw: Record<string, unknown>, webhooks: ReadonlySet<string> | undefined): string | null {
  const notify = typed(raw, 'notify');
  if (notify === null || notify === undefined) return null;
  if (!webhooks?.has(notify)) {
    const known = webhooks?.size ? `configured: ${listChoices(webhooks)}` : 'the manifest names none';
    throw badInput(`unknown webhook endpoint (${known})`, 'input.notify');
  }
  return notify;
}

function validate(raw: unknown, ctx: AskContext): ValidatedAsk {
  if (!isPlainObject(raw)) throw badInput('input must be an object', 'input');
  for (const key of Object.keys(raw)) {
    if (!FIELD_NAMES.has(key)) {
      const expected = listChoices(FIELD_NAMES, 'none', FIELD_NAMES.size);
      throw badInput(`unknown field (expected: ${expected})`, `input.${clip(key, KEY_SHOWN_MAX)}`);
    }
  }
  const channelGiven = own(raw, 'channel');
  const hasChannel = channelGiven !== undefined && channelGiven !== null;

  const text = checkText(raw);
  const format = typed(raw, 'format') ?? 'TEXT';
  const options = checkOptions(raw, format);
  const schema = checkSchema(raw, format);
  const action = checkAction(own(raw, 'action'), format);
  const link = checkLink(raw, format, hasChannel, ctx.prepared);
  const verifier = checkVerifier(raw, format, hasChannel, ctx.verifiers);
  const channel = typed(raw, 'channel') ?? null;
  if (channel !== null && !ctx.channels.has(channel)) {
    const known = ctx.channels.size ? `configured: ${listChoices(ctx.channels)}` : 'the manifest names none';
    throw badInput(`unknown channel (${known})`, 'input.channel');
  }
  const recipientGiven = typed(raw, 'recipient');
  if (recipientGiven !== null && recipientGiven !== undefined && channel === null) {
    throw badInput('recipient requires channel', 'input.recipient');
  }
  const recipient = label(recipientGiven, 'recipient');
  const timeoutSeconds = checkTimeout(raw);
  const audience = label(typed(raw, 'audience'), 'audience');
  const groupId = label(typed(raw, 'groupId'), 'groupId');
  const idempotencyKey = label(typed(raw, 'idempotencyKey'), 'idempotencyKey');
  const mediaGiven = own(raw, 'media');
  const media =
    mediaGiven === undefined || mediaGiven === null ? null : validateMedia(mediaGiven, 'input.media');
  const sensitive = typed(raw, 'sensitive') ?? false;
  const metadata = checkMetadata(raw);
  const notify = checkNotify(raw, ctx.webhooks);
  const escalation = ladderOf(own(raw, 'escalation'), own(raw, 'escalationPolicy'), {
    channels: ctx.channels,
    policies: ctx.policies ?? new Map(),
  });
  const quorum = checkQuorum(own(raw, 'quorum'), format, action, sensitive);

  return {
    action,
    quorum,
    text,
    format,
    options,
    schema,
    link,
    verifier,
    channel,
    recipient,
    audience,
    groupId,
    media,
    timeoutSeconds,
    sensitive,
    idempotencyKey,
    metadata,
    notify,
    escalation,
  };
}

/**
 * Validates an `askUser` input. Order: unknown keys, text, format, options, schema, action,
 * link, verifier, channel, recipient, timeoutSeconds, audience, groupId, idempotencyKey, media,
 * sensitive, metadata, notify, escalation/escalationPolicy, quorum. `null` means absent for
 * every optional field.
 */
export function validateAskInput(raw: unknown, ctx: AskContext): ValidatedAsk {
  try {
    return validate(raw, ctx);
  } catch (err) {
    throw isDomainError(err) ? err : badInput('invalid input', 'input');
  }
}

/**
 * The URL the person visits. Not prepared: every `{callback_url}` in the template is replaced
 * verbatim by `callbackUrl`. Prepared: the link is already final. Either way the result must be
 * an absolute http(s) URL on one line (field `input.link`).
 */
export function resolveLink(template: string, callbackUrl: string, prepared: boolean): string {
  const field = 'input.link';
  try {
    if (typeof template !== 'string') throw badInput('link must be a string', field);
    if (!prepared && !template.includes(CALLBACK_PLACEHOLDER)) {
      throw badInput(`link must contain ${CALLBACK_PLACEHOLDER}`, field);
    }
    const url = prepared ? template : template.split(CALLBACK_PLACEHOLDER).join(String(callbackUrl));
    checkWebUrl(url, ['http', 'https'], field);
    return url;
  } catch (err) {
    throw isDomainError(err) ? err : badInput('invalid link', field);
  }
}
