// Tool arguments are checked here, not by the SDK: the SDK refuses arguments that fail a tool's
// input schema with its own text ("Input validation error: Invalid arguments for tool …"),
// while API.md §13 says an error's text starts with the API code. So the schema the SDK sees
// never fails: arguments it would refuse reach the tool as a refusal, which the tool answers
// `BAD_USER_INPUT: <argument>: <what is wrong>`. The tools' schemas are strict: an unknown
// argument (a model's `wait_second`) is refused by name instead of silently getting a default.
import type { z } from 'zod';
import { convertedOnce } from './schema-json.ts';
import type { askUserInput } from './schemas.ts';

const REFUSED = Symbol('refused arguments');

/** Arguments the schema refused, as the tool receives them: the text to answer with. */
interface Refused {
  readonly [REFUSED]: string;
}

interface Issue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined;
  readonly code?: string;
  readonly keys?: readonly string[];
}

/** `media[0].url`; the arguments as a whole are `arguments`. */
function pathOf(issue: Issue): string {
  let out = '';
  for (const part of issue.path ?? []) {
    const key = typeof part === 'object' ? part.key : part;
    out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  }
  return out || 'arguments';
}

function describeIssue(issue: Issue, topLevel: readonly string[]): string {
  if (issue.code === 'unrecognized_keys' && issue.keys) {
    const names = issue.keys.map((k) => `"${k}"`).join(', ');
    const plural = issue.keys.length > 1 ? 's' : '';
    if ((issue.path ?? []).length === 0) {
      return `unknown argument${plural} ${names} (the arguments are: ${topLevel.join(', ')})`;
    }
    return `${pathOf(issue)}: unknown field${plural} ${names}`;
  }
  return `${pathOf(issue)}: ${issue.message}`;
}

/** One line naming every refused argument, unknown ones first (a misspelling explains the rest). */
function describeIssues(issues: readonly Issue[], topLevel: readonly string[]): string {
  const unknownFirst = [...issues].sort(
    (a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'),
  );
  return unknownFirst.map((i) => describeIssue(i, topLevel)).join('; ');
}

/**
 * The schema as the SDK sees it: listed unchanged (its JSON Schema is the strict object's,
 * converted once: schema-json.ts), but its validation never fails; refused arguments become a
 * `Refused` value.
 */
export function checkedArguments<S extends z.ZodObject>(schema: S): S {
  const std = schema['~standard'];
  const topLevel = Object.keys(schema.shape);
  const validate = async (value: unknown) => {
    const result = await std.validate(value);
    if (!result.issues) return result;
    const refused: Refused = { [REFUSED]: describeIssues(result.issues as readonly Issue[], topLevel) };
    return { value: refused };
  };
  return { '~standard': { ...std, validate, jsonSchema: convertedOnce(std.jsonSchema) } } as unknown as S;
}

/** Why the arguments were refused, or null when they passed the schema. */
export function refusalOf(args: unknown): string | null {
  if (typeof args === 'object' && args !== null && REFUSED in args) return (args as Refused)[REFUSED];
  return null;
}

export type AskArgs = z.infer<typeof askUserInput>;

/** snake_case tool arguments to the camelCase AskUserInput; undefined fields are left out. */
export function askInputOf(args: AskArgs): Record<string, unknown> {
  const input: Record<string, unknown> = {
    text: args.text,
    format: args.format,
    options: args.options,
    schema: args.schema,
    link: args.link,
    verifier: args.verifier,
    channel: args.channel,
    recipient: args.recipient,
    audience: args.audience,
    groupId: args.group_id,
    media: args.media,
    timeoutSeconds: args.timeout_seconds,
    sensitive: args.sensitive,
    idempotencyKey: args.idempotency_key,
    metadata: args.metadata,
    notify: args.notify,
    action: args.action && {
      name: args.action.name,
      summary: args.action.summary,
      arguments: args.action.arguments,
      argumentsSchema: args.action.arguments_schema,
      editable: args.action.editable,
      assurance: args.action.assurance,
      // The rest of AskUserInput's ActionInput (API.md §13: its fields, snake_case), so an agent
      // on MCP can name the person it acts for (§22) and the approval's executors (§23).
      requestedBy: args.action.requested_by,
      executors: args.action.executors,
      validSeconds: args.action.valid_seconds,
    },
    quorum: args.quorum,
    escalation: args.escalation?.map((s) => ({
      afterSeconds: s.after_seconds,
      action: s.action,
      ...(s.channel === undefined ? {} : { channel: s.channel }),
      ...(s.recipient === undefined ? {} : { recipient: s.recipient }),
    })),
    escalationPolicy: args.escalation_policy,
  };
  for (const k of Object.keys(input)) if (input[k] === undefined) delete input[k];
  return input;
}
