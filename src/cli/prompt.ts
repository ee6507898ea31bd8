// The interactive answer of `tai interactions answer <id>` without --answer: a prompt fitted to
// the question's format. CONFIRM is yes/no, SELECT a pick list, TEXT a line of text, FORM one
// field per schema property (a pick list for an enum, yes/no for a boolean, a number for
// integer/number, a line of text for a string, JSON for anything else). Each FORM field is
// checked against the schema as it is entered (minimum, pattern, format, …), so one bad value
// is asked for again instead of the server refusing the whole form at the end. The server
// still checks the answer, as always.
import type { Readable, Writable } from 'node:stream';
import { type Schema, type SchemaDraft, Validator } from '@cfworker/json-schema';
import type { Question } from '../client/index.ts';
import { presentationLines, presentOn } from '../domain/presentation.ts';

export interface Prompter {
  confirm(message: string): Promise<boolean>;
  select(message: string, choices: readonly string[]): Promise<string>;
  /** `validate` returns an error message, or null when the text is acceptable. */
  input(message: string, validate: (text: string) => string | null): Promise<string>;
}

export interface PromptStreams {
  input?: Readable;
  output?: Writable;
}

/**
 * Prompts with @inquirer/prompts. `streams` gives each prompt its streams (default: stdin, and
 * stderr so that stdout carries only the result); a fresh output per prompt, since a prompt
 * ends the output it was given unless it is stdout or stderr.
 */
export function inquirerPrompter(
  streams: () => PromptStreams = () => ({ input: process.stdin, output: process.stderr }),
): Prompter {
  // Loaded when a prompt is shown: most commands never prompt.
  const prompts = () => import('@inquirer/prompts');
  return {
    confirm: async (message) => (await prompts()).confirm({ message }, streams()),
    select: async (message, choices) =>
      (await prompts()).select({ message, choices: choices.map((c) => ({ value: c, name: c })) }, streams()),
    input: async (message, validate) =>
      (await prompts()).input({ message, validate: (text) => validate(text) ?? true }, streams()),
  };
}

type JsonSchemaNode = {
  type?: unknown;
  enum?: unknown;
  const?: unknown;
  title?: unknown;
  description?: unknown;
  properties?: Record<string, JsonSchemaNode>;
  required?: unknown;
};

function schemaType(node: JsonSchemaNode): string | null {
  if (typeof node.type === 'string') return node.type;
  if (Array.isArray(node.type)) return (node.type.find((t) => t !== 'null') as string | undefined) ?? null;
  return null;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** What the schema says about one field's value (null when it is fine), ignoring the other fields. */
type FieldCheck = (value: unknown) => string | null;

function draftOf(schema: JsonSchemaNode & { $schema?: unknown }): SchemaDraft {
  return typeof schema.$schema === 'string' && schema.$schema.includes('draft-07') ? '7' : '2020-12';
}

/** The first segment of a cfworker instance location (`#/a~1b/0` → `a/b`). */
function topProperty(location: string): string | null {
  const segment = location.replace(/^#\/?/, '').split('/')[0];
  if (segment === undefined || segment === '') return null;
  return decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * Checks fields one at a time against the whole schema (so $refs resolve): the form with only
 * that field, keeping the errors located in it. A schema the library cannot use checks nothing.
 */
function fieldChecker(schema: JsonSchemaNode): (name: string) => FieldCheck {
  let validator: Validator | null = null;
  try {
    validator = new Validator(schema as Schema, draftOf(schema), false);
  } catch {
    validator = null;
  }
  return (name) => (value) => {
    if (!validator) return null;
    const mine = validator
      .validate({ [name]: value })
      .errors.filter((e) => topProperty(e.instanceLocation) === name);
    const last = mine[mine.length - 1];
    return last ? `not accepted: ${last.error}` : null;
  };
}

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const SKIP = '(leave empty)';

/** Asks for one form field; undefined leaves it out. */
async function promptField(
  prompter: Prompter,
  name: string,
  node: JsonSchemaNode,
  required: boolean,
  check: FieldCheck,
): Promise<unknown> {
  if (node.const !== undefined) return node.const;
  const label = `${typeof node.title === 'string' ? node.title : name}${
    typeof node.description === 'string' ? ` (${node.description})` : ''
  }${required ? '' : ' [optional]'}`;
  const type = schemaType(node);
  if (Array.isArray(node.enum) && node.enum.length > 0) {
    const shown = node.enum.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
    const picked = await prompter.select(label, required ? shown : [...shown, SKIP]);
    if (picked === SKIP) return undefined;
    return node.enum[shown.indexOf(picked)];
  }
  if (type === 'boolean') return prompter.confirm(label);
  if (type === 'integer' || type === 'number') {
    const text = await prompter.input(label, (t) => {
      if (t.trim() === '') return required ? 'a number is required' : null;
      if (!NUMBER.test(t.trim())) return 'enter a number';
      if (type === 'integer' && !Number.isInteger(Number(t))) return 'enter a whole number';
      return check(Number(t.trim()));
    });
    return text.trim() === '' ? undefined : Number(text.trim());
  }
  if (type === 'string') {
    const text = await prompter.input(label, (t) => {
      if (t === '') return required ? 'this field is required' : null;
      return check(t);
    });
    return text === '' && !required ? undefined : text;
  }
  const text = await prompter.input(`${label} (JSON)`, (t) => {
    if (t.trim() === '') return required ? 'this field is required' : null;
    const parsed = parseJson(t);
    return parsed.ok ? check(parsed.value) : 'enter valid JSON';
  });
  if (text.trim() === '') return undefined;
  const parsed = parseJson(text);
  return parsed.ok ? parsed.value : undefined;
}

/** Asks the person for an answer to `q` (a TEXT, CONFIRM, SELECT or FORM question). */
export async function promptAnswer(
  q: Question,
  prompter: Prompter,
  note: (text: string) => void,
): Promise<unknown> {
  switch (q.format) {
    case 'CONFIRM':
      return prompter.confirm(q.text);
    case 'SELECT':
      return prompter.select(q.text, q.options ?? []);
    case 'TEXT':
      return prompter.input(q.text, (t) => (t.trim() === '' ? 'an answer is required' : null));
    case 'FORM': {
      const schema = (q.schema ?? {}) as JsonSchemaNode;
      const properties = schema.properties ?? {};
      note(`${q.text}\n`);
      if (Object.keys(properties).length === 0) {
        const text = await prompter.input('Answer (a JSON object)', (t) => {
          const parsed = parseJson(t);
          return parsed.ok &&
            typeof parsed.value === 'object' &&
            parsed.value !== null &&
            !Array.isArray(parsed.value)
            ? null
            : 'enter a JSON object';
        });
        return JSON.parse(text);
      }
      const required = new Set(Array.isArray(schema.required) ? schema.required : []);
      const answer: Record<string, unknown> = {};
      const checkerOf = fieldChecker(schema);
      for (const [name, node] of Object.entries(properties)) {
        const value = await promptField(prompter, name, node ?? {}, required.has(name), checkerOf(name));
        if (value !== undefined) answer[name] = value;
      }
      return answer;
    }
    case 'APPROVAL': {
      const action = q.action;
      note(`${q.text}\n`);
      // From the one presentation object the answer's presentedDigest digests (API.md §23).
      if (action) note(`${presentationLines(presentOn('cli', action, action.arguments)).join('\n')}\n`);
      const approve = await prompter.confirm('Approve?');
      const text = await prompter.input('Note [optional]', (t) =>
        t.length > 2000 ? 'at most 2000 characters' : null,
      );
      const answer: Record<string, unknown> = { decision: approve ? 'APPROVED' : 'REJECTED' };
      if (text.trim() !== '') answer.note = text;
      return answer;
    }
    case 'EXTERNAL':
      throw new Error("an EXTERNAL question is answered on its provider's page, not here");
    default:
      // A newer server's format: said plainly, not guessed at.
      q.format satisfies never;
      throw new Error(`a ${String(q.format)} question cannot be answered here`);
  }
}
