// What the SDK sends for a question and how it reads the result: the GraphQL input built from
// the caller's AskInput (only the API's fields; a zod schema converted to JSON Schema), and the
// answer of a resolved wait parsed by that schema, or the error for how the question closed.
import type { z } from 'zod';
import {
  AnswerUnavailableError,
  BadUserInputError,
  CancelledError,
  InvalidAnswerError,
  TimedOutError,
} from './errors.ts';
import type { ActionAssurance, AskUserInput, EscalationStepInput } from './generated/graphql.ts';
import type { AnswerSchema, AskInput, AskResult } from './types.ts';

export function isZodSchema(schema: unknown): schema is z.ZodType {
  return typeof schema === 'object' && schema !== null && '_zod' in schema && 'safeParse' in schema;
}

/** A zod schema as JSON Schema (zod is loaded only when a zod schema is given: it is the caller's). */
async function toJsonSchema(schema: AnswerSchema, field = 'input.schema'): Promise<Record<string, unknown>> {
  if (!isZodSchema(schema)) return { ...schema };
  try {
    const { z } = await import('zod');
    return z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  } catch (err) {
    throw new BadUserInputError(
      `the schema cannot be expressed as JSON Schema: ${err instanceof Error ? err.message : String(err)}`,
      { field, cause: err },
    );
  }
}

export interface PreparedAsk {
  wire: AskUserInput;
  /** The caller's zod schema, to parse the answer with. */
  parser: z.ZodType | null;
}

/** The GraphQL input for a question: only the API's fields, the schema as JSON Schema. */
export async function prepareAsk(input: AskInput): Promise<PreparedAsk> {
  const wire: AskUserInput = { text: input.text, format: input.format ?? 'TEXT' };
  if (input.media !== undefined) wire.media = input.media.map((m) => ({ ...m }));
  if (input.groupId !== undefined) wire.groupId = input.groupId;
  if (input.audience !== undefined) wire.audience = input.audience;
  if (input.channel !== undefined) wire.channel = input.channel;
  if (input.recipient !== undefined) wire.recipient = input.recipient;
  if (input.timeoutSeconds !== undefined) wire.timeoutSeconds = input.timeoutSeconds;
  if (input.sensitive !== undefined) wire.sensitive = input.sensitive;
  // As given: spreading would turn a JavaScript caller's array into an object the server accepts.
  if (input.metadata !== undefined) wire.metadata = input.metadata as AskUserInput['metadata'];
  if (input.notify !== undefined) wire.notify = input.notify;
  // Each step copied as given (a JavaScript caller's odd shape reaches the server, which names
  // the field at fault); a non-list is sent as it is, for the same reason.
  if (input.escalation !== undefined) {
    const steps: unknown = input.escalation;
    wire.escalation = Array.isArray(steps)
      ? steps.map((s: unknown) => (typeof s === 'object' && s !== null ? { ...s } : s) as EscalationStepInput)
      : (steps as EscalationStepInput[]);
  }
  if (input.escalationPolicy !== undefined) wire.escalationPolicy = input.escalationPolicy;
  let parser: z.ZodType | null = null;
  // Sent as given (or left out): the server says what is wrong with it (BAD_USER_INPUT at
  // input.options), rather than the SDK failing on a JavaScript caller's missing list.
  if (input.format === 'SELECT' && input.options !== undefined) {
    const options: unknown = input.options;
    wire.options = Array.isArray(options) ? [...options] : (options as string[]);
  }
  if (input.format === 'FORM' || input.format === 'EXTERNAL') {
    if (input.schema !== undefined) {
      wire.schema = await toJsonSchema(input.schema);
      if (isZodSchema(input.schema)) parser = input.schema;
    }
  }
  if (input.format === 'CONFIRM' && input.quorum !== undefined) wire.quorum = input.quorum;
  if (input.format === 'APPROVAL') {
    const a = input.action;
    wire.action = {
      name: a.name,
      arguments: a.arguments as Record<string, unknown>,
      ...(a.summary !== undefined ? { summary: a.summary } : {}),
      ...(a.editable !== undefined ? { editable: a.editable } : {}),
      ...(a.assurance !== undefined ? { assurance: a.assurance as ActionAssurance } : {}),
      ...(a.executors !== undefined ? { executors: a.executors } : {}),
      ...(a.validSeconds !== undefined ? { validSeconds: a.validSeconds } : {}),
      ...(input.argumentsSchema !== undefined
        ? { argumentsSchema: await toJsonSchema(input.argumentsSchema, 'input.action.argumentsSchema') }
        : {}),
    };
    if (input.quorum !== undefined) wire.quorum = input.quorum;
  }
  if (input.format === 'EXTERNAL') {
    if (input.link !== undefined) wire.link = input.link;
    if (input.verifier !== undefined) {
      wire.verifier = {
        name: input.verifier.name,
        ...(input.verifier.config ? { config: input.verifier.config } : {}),
      };
    }
  }
  return { wire, parser };
}

/** The answer of a resolved wait, or the error for how the question closed. */
export function outcome(result: AskResult, parser: z.ZodType | null): unknown {
  if (result.status === 'TIMED_OUT') throw new TimedOutError(result.question);
  if (result.status === 'CANCELLED') throw new CancelledError(result.question);
  if (result.answer === null && result.question.sensitive) throw new AnswerUnavailableError(result.question);
  if (!parser) return result.answer;
  const parsed = parser.safeParse(result.answer);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue ? ['answer', ...issue.path.map(String)].join('.') : 'answer';
  throw new InvalidAnswerError(
    result.question,
    result.answer,
    `the answer does not match the schema${issue ? `: ${issue.message}` : ''}`,
    { field },
  );
}
