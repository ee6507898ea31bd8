// Suggestions (API.md §20, "earned autonomy"): from the decided APPROVAL questions, propose an
// ALLOW rule for every (asker, action, arguments' shape) that people approved at least N times,
// never edited, never rejected, by at least two people — with the evidence and an argument
// schema inferred from the values seen (strings as an enum, numbers up to the largest approved,
// never a bare `type: string`). Pure: the engine hands in the questions and the time.
import { decisionOf, editedOf } from '../approval.ts';
import { canonicalJson, jcsDigest } from '../digest.ts';
import type { JsonObject, QuestionRecord } from '../question.ts';

/** Distinct values an inferred `enum` may list; a group with more is not suggested. */
export const SUGGESTION_ENUM_MAX = 50;

export interface PolicySuggestion {
  /** Stable for the same group and window: what adoptPolicySuggestion takes. */
  key: string;
  asker: string;
  action: string;
  decisions: number;
  firstAt: number;
  lastAt: number;
  reviewers: string[];
  /** The JSON Schema inferred from the arguments approved. */
  arguments: JsonObject;
  /** The rule adopting it would create (in SHADOW). */
  rule: {
    id: string;
    description: string;
    effect: 'ALLOW';
    mode: 'SHADOW';
    match: { action: string; askers: string[]; arguments: JsonObject };
  };
}

export interface SuggestionWindow {
  minDecisions: number;
  days: number;
}

interface Group {
  asker: string;
  action: string;
  shape: string;
  count: number;
  firstAt: number;
  lastAt: number;
  reviewers: Set<string>;
  args: JsonObject[];
  spoiled: boolean;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** The arguments' shape: their keys and JSON types, in key order. */
function shapeOf(args: JsonObject): string {
  return canonicalJson(
    Object.keys(args)
      .sort()
      .map((k) => [k, jsonType(args[k])]),
  );
}

/** The people whose approval decided it: the approving voters, or the one who answered. */
function reviewersOf(q: QuestionRecord): string[] {
  const votes = q.votes ?? [];
  if (votes.length > 0) return votes.filter((v) => v.decision === 'APPROVED').map((v) => v.by);
  return q.answeredBy ? [q.answeredBy] : [];
}

/** Questions no rule may be suggested from: decided by a rule, sensitive, step-up, on someone's behalf. */
function outOfScope(q: QuestionRecord): boolean {
  const action = q.action as
    | (QuestionRecord['action'] & { assurance?: unknown; requestedBy?: unknown })
    | null;
  return (
    q.format !== 'APPROVAL' ||
    !action ||
    q.sensitive ||
    (q.answeredBy?.startsWith('policy:') ?? false) ||
    action.assurance === 'HIGH' ||
    (action.requestedBy !== undefined && action.requestedBy !== null)
  );
}

/** A schema every value seen satisfies, or null when none can be said safely. */
function schemaOfValues(values: unknown[]): JsonObject | null {
  const type = jsonType(values[0]);
  if (type === 'number') {
    const max = (values as number[]).reduce((m, v) => Math.max(m, v), Number.NEGATIVE_INFINITY);
    return { type: 'number', maximum: max };
  }
  const distinct = new Map<string, unknown>();
  for (const v of values) distinct.set(canonicalJson(v), v);
  if (distinct.size > SUGGESTION_ENUM_MAX) return null;
  const seen = [...distinct.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, v]) => v);
  if (type === 'string' || type === 'boolean') return { type, enum: seen };
  return { enum: seen };
}

function inferSchema(args: JsonObject[]): JsonObject | null {
  const keys = Object.keys(args[0] ?? {}).sort();
  const properties: JsonObject = {};
  for (const k of keys) {
    const s = schemaOfValues(args.map((a) => a[k]));
    if (s === null) return null;
    properties[k] = s;
  }
  return { type: 'object', properties, required: keys, additionalProperties: false };
}

/** A rule id from the action: a-z 0-9 -, at most 64 characters, unique by the group's digest. */
function ruleIdOf(action: string, digest: string): string {
  const base = action
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `suggested-${base}-${digest.slice(7, 15)}`.replace(/--+/g, '-');
}

/** The key of a group in a window: what adopting it needs to find it again. */
export function suggestionKey(w: SuggestionWindow, asker: string, action: string, shape: string): string {
  const digest = jcsDigest({ asker, action, shape });
  return `s1.${w.days}.${w.minDecisions}.${digest.slice(7, 39)}`;
}

/** Reads the window back from a key; null when it is not one. */
export function windowOfKey(key: string): SuggestionWindow | null {
  const m = /^s1\.(\d{1,4})\.(\d{1,6})\.[0-9a-f]{32}$/.exec(key);
  return m ? { days: Number(m[1]), minDecisions: Number(m[2]) } : null;
}

/** Adds one decided question to the groups (in place); questions out of scope are ignored. */
function addQuestion(groups: Map<string, Group>, q: QuestionRecord): void {
  if (q.status !== 'ANSWERED' || outOfScope(q)) return;
  const decision = decisionOf(q);
  if (decision === null) return;
  const action = q.action!;
  const shape = shapeOf(action.arguments);
  const id = canonicalJson([q.askedBy, action.name, shape]);
  let g = groups.get(id);
  const at = q.answeredAt ?? q.closedAt ?? q.createdAt;
  if (!g) {
    g = {
      asker: q.askedBy,
      action: action.name,
      shape,
      count: 0,
      firstAt: at,
      lastAt: at,
      reviewers: new Set(),
      args: [],
      spoiled: false,
    };
    groups.set(id, g);
  }
  g.count++;
  g.firstAt = Math.min(g.firstAt, at);
  g.lastAt = Math.max(g.lastAt, at);
  // One rejection or one edit in the group, and people did not simply agree: no suggestion.
  if (decision !== 'APPROVED' || editedOf(q) === true) g.spoiled = true;
  for (const r of reviewersOf(q)) g.reviewers.add(r);
  g.args.push(action.arguments);
}

/** The suggestions the decided questions support, most decisions first. */
export function suggestPolicies(
  questions: Iterable<QuestionRecord>,
  w: SuggestionWindow,
): PolicySuggestion[] {
  const groups = new Map<string, Group>();
  for (const q of questions) addQuestion(groups, q);
  const out: PolicySuggestion[] = [];
  for (const g of groups.values()) {
    if (g.spoiled || g.count < w.minDecisions || g.reviewers.size < 2) continue;
    const schema = inferSchema(g.args);
    if (schema === null) continue;
    const key = suggestionKey(w, g.asker, g.action, g.shape);
    const reviewers = [...g.reviewers].sort();
    out.push({
      key,
      asker: g.asker,
      action: g.action,
      decisions: g.count,
      firstAt: g.firstAt,
      lastAt: g.lastAt,
      reviewers,
      arguments: schema,
      rule: {
        id: ruleIdOf(g.action, jcsDigest(key)),
        description:
          `Suggested from ${g.count} approvals of ${g.action} by ${g.asker}, none edited, by ${reviewers.length} people`.slice(
            0,
            500,
          ),
        effect: 'ALLOW',
        mode: 'SHADOW',
        match: { action: g.action, askers: [g.asker], arguments: schema },
      },
    });
  }
  return out.sort((a, b) => b.decisions - a.decisions || (a.key < b.key ? -1 : 1));
}
