// A coding agent's permission prompt as an APPROVAL question (API.md §21). Claude Code's and
// Codex's `PermissionRequest` hook events (and Claude Code's --permission-prompt-tool call) are
// read here, checked, and turned into the AskUserInput the one ask path takes, so policies,
// quorum, channels, escalation, receipts and the audit log apply unchanged.
import { canonicalJson, jcsDigest } from '../digest.ts';
import { badInput } from '../errors.ts';
import {
  ACTION_ARGUMENTS_MAX_BYTES,
  ACTION_NAME_MAX_CHARS,
  TEXT_MAX_CHARS,
  TIMEOUT_MAX_SECONDS,
  TIMEOUT_MIN_SECONDS,
  utf8ByteLength,
} from '../limits.ts';
import type { JsonObject } from '../question.ts';
import { clip, isPlainObject, listChoices, own } from '../values.ts';
import { diffExcerpt, toolSummary } from './tool-summary.ts';

/** The clients whose prompts come here; each names its actions `<client>.<tool_name>`. */
export const HOOK_CLIENTS = ['claude-code', 'codex'] as const;
export type HookClient = (typeof HOOK_CLIENTS)[number];

/** What people see as the asking client. */
const CLIENT_NAMES: Readonly<Record<HookClient, string>> = { 'claude-code': 'Claude Code', codex: 'Codex' };

/** The hook door's body cap (API.md §21). */
export const HOOK_MAX_BODY_BYTES = 1024 * 1024;
export const HOOK_WAIT_DEFAULT_SECONDS = 55;
export const HOOK_WAIT_MAX_SECONDS = 600;
/** The longest session id, tool name and cwd read from an event (longer ones are refused or cut). */
const ID_MAX_CHARS = 256;
const CWD_MAX_CHARS = 512;

/** One permission prompt, as every door reads it. */
export interface PermissionPrompt {
  client: HookClient;
  /** The agent's session (Claude Code's and Codex's `session_id`); null for a prompt-tool call. */
  sessionId: string | null;
  toolName: string;
  toolInput: JsonObject;
  cwd: string | null;
  /** Claude Code's `tool_use_id` (the prompt tool's retry key), when given. */
  toolUseId: string | null;
  /** Which door asked: a hook event, or the --permission-prompt-tool (kept in the metadata). */
  via: 'hook' | 'permission_prompt';
}

export function isHookClient(name: string): name is HookClient {
  return (HOOK_CLIENTS as readonly string[]).includes(name);
}

function requiredString(body: Record<string, unknown>, key: string): string {
  const v = own(body, key);
  if (typeof v !== 'string' || v.trim() === '')
    throw badInput(`${key} is required (a non-empty string)`, key);
  if (v.length > ID_MAX_CHARS) throw badInput(`${key} must be at most ${ID_MAX_CHARS} characters`, key);
  return v;
}

function optionalString(body: Record<string, unknown>, key: string, max: number): string | null {
  const v = own(body, key);
  return typeof v === 'string' && v !== '' ? clip(v, max) : null;
}

/**
 * A hook event body (parsed JSON) as a prompt: a `PermissionRequest` event with `session_id`,
 * `tool_name` and an object `tool_input`; any other field the client sends is ignored.
 */
export function permissionRequestOf(body: unknown, client: HookClient): PermissionPrompt {
  if (!isPlainObject(body)) throw badInput('the body must be the hook event as a JSON object');
  const event = own(body, 'hook_event_name');
  if (event !== 'PermissionRequest') {
    throw badInput(
      'hook_event_name must be "PermissionRequest" (this door answers permission prompts)',
      'hook_event_name',
    );
  }
  const sessionId = requiredString(body, 'session_id');
  const toolName = requiredString(body, 'tool_name');
  const toolInput = own(body, 'tool_input');
  if (!isPlainObject(toolInput)) throw badInput('tool_input is required (a JSON object)', 'tool_input');
  return {
    client,
    sessionId,
    toolName,
    toolInput,
    cwd: optionalString(body, 'cwd', CWD_MAX_CHARS),
    toolUseId: optionalString(body, 'tool_use_id', ID_MAX_CHARS),
    via: 'hook',
  };
}

/** Whether the tool input is too large to ask about (the action's 64 KiB arguments cap). */
export function inputTooLarge(p: PermissionPrompt): boolean {
  return utf8ByteLength(canonicalJson(p.toolInput)) > ACTION_ARGUMENTS_MAX_BYTES;
}

/** `<client>.<tool_name>`, with characters an action name cannot hold written `_`. */
export function actionNameOf(client: HookClient, toolName: string): string {
  const tool = toolName.replace(/[^A-Za-z0-9_.:-]/g, '_');
  return `${client}.${tool}`.slice(0, ACTION_NAME_MAX_CHARS);
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

/**
 * The schema an approver's edit is checked against: the proposal's own fields with their JSON
 * types, all required, nothing else. The client checks the edited input against the tool's own
 * schema again before it runs.
 */
export function argumentsSchemaOf(input: JsonObject): JsonObject {
  // fromEntries defines own properties, so a field named `__proto__` stays a field.
  const properties = Object.fromEntries(Object.entries(input).map(([k, v]) => [k, { type: jsonType(v) }]));
  return { type: 'object', properties, required: Object.keys(input), additionalProperties: false };
}

/** Where the question is asked, from the door's query string (validated like AskUserInput). */
export interface HookRouting {
  channel?: string;
  recipient?: string;
  audience?: string;
  escalationPolicy?: string;
  timeoutSeconds?: number;
}

function textOf(p: PermissionPrompt, summary: string): string {
  const where = p.cwd ? ` in ${p.cwd}` : '';
  // The agent's own reason (Bash's and Codex's `description`), when it gave one.
  const reason = own(p.toolInput, 'description');
  const why = typeof reason === 'string' && reason.trim() !== '' ? `\nWhy: ${clip(reason, 500)}` : '';
  const head = `${CLIENT_NAMES[p.client]} asks to use ${p.toolName}${where}:\n${summary}${why}`;
  const diff = diffExcerpt(p.toolName, p.toolInput);
  return clip(diff === null ? head : `${head}\n\n${diff}`, TEXT_MAX_CHARS - 1);
}

/**
 * The retry key: the same session, tool and input (or, for the prompt tool, the same
 * tool_use_id) name the same question while it is pending (the ask joins only a PENDING one).
 */
export function retryKeyOf(p: PermissionPrompt): string | null {
  if (p.sessionId !== null) {
    const digest = jcsDigest({ session: p.sessionId, tool: p.toolName, input: p.toolInput });
    return `${p.client}:${digest.slice('sha256:'.length)}`;
  }
  return p.toolUseId === null ? null : `${p.client}:tool-use:${jcsDigest(p.toolUseId).slice(7)}`;
}

/** The AskUserInput of a prompt: an APPROVAL of `<client>.<tool_name>` with the tool's input. */
export function approvalInputOf(p: PermissionPrompt, routing: HookRouting): Record<string, unknown> {
  const summary = toolSummary(p.toolName, p.toolInput);
  // Codex refuses updatedInput: its approvers may approve or reject, never edit.
  const editable = p.client === 'claude-code';
  const key = retryKeyOf(p);
  const metadata: JsonObject = { hook: p.client, via: p.via, tool: clip(p.toolName, ID_MAX_CHARS) };
  if (p.sessionId !== null) metadata.sessionId = p.sessionId;
  if (p.toolUseId !== null) metadata.toolUseId = p.toolUseId;
  if (p.cwd !== null) metadata.cwd = p.cwd;
  return {
    text: textOf(p, summary),
    format: 'APPROVAL',
    action: {
      name: actionNameOf(p.client, p.toolName),
      summary,
      arguments: p.toolInput,
      ...(editable ? { editable: true, argumentsSchema: argumentsSchemaOf(p.toolInput) } : {}),
    },
    metadata,
    ...(key === null ? {} : { idempotencyKey: key }),
    ...routing,
  };
}

const QUERY_KEYS = [
  'wait',
  'channel',
  'recipient',
  'audience',
  'escalationPolicy',
  'timeoutSeconds',
] as const;

function wholeNumber(raw: string, field: string, min: number, max: number): number {
  const n = /^\d{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw badInput(`${field} must be a whole number from ${min} to ${max}`, field);
  }
  return n;
}

/** The door's query string: `wait` (0–600, default 55) and where the question is asked. */
export function hookQueryOf(query: unknown): { wait: number; routing: HookRouting } {
  // Fastify's parsed query is an object of its own class (fast-querystring): not a plain object.
  const q: Record<string, unknown> = typeof query === 'object' && query !== null ? { ...query } : {};
  for (const key of Object.keys(q)) {
    if (!(QUERY_KEYS as readonly string[]).includes(key)) {
      throw badInput(
        `unknown query parameter ${JSON.stringify(clip(key, 40))} (expected one of ${listChoices(QUERY_KEYS)})`,
        key,
      );
    }
  }
  const one = (key: string): string | undefined => {
    const v = own(q, key);
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw badInput(`${key} must be given once`, key);
    return v;
  };
  const waitRaw = one('wait');
  const wait =
    waitRaw === undefined
      ? HOOK_WAIT_DEFAULT_SECONDS
      : wholeNumber(waitRaw, 'wait', 0, HOOK_WAIT_MAX_SECONDS);
  const routing: HookRouting = {};
  for (const key of ['channel', 'recipient', 'audience', 'escalationPolicy'] as const) {
    const v = one(key);
    if (v !== undefined) routing[key] = v;
  }
  const timeout = one('timeoutSeconds');
  // The same range as AskUserInput.timeoutSeconds.
  if (timeout !== undefined)
    routing.timeoutSeconds = wholeNumber(timeout, 'timeoutSeconds', TIMEOUT_MIN_SECONDS, TIMEOUT_MAX_SECONDS);
  return { wait, routing };
}
