// The questions of a large feed event (a SNAPSHOT, up to a backlog batch) or of a backlog's
// one-question parts, executed once per question rather than once per event. A pending question
// changes only by the votes cast on it (its spec is written once; a claim takes it out of the
// backlog; one with an escalation ladder is never kept), so what the selection set makes of it
// is kept, by question id and everything else the result depends on, in a small LRU bounded in
// bytes; the next SNAPSHOT of the same questions (another subscriber, a reconnect) executes
// only the ones it has not seen. The event is split in two executions with the real executor,
// the event without its questions (the shell, executed once per kind of event) and the
// questions alone (a backlog's parts a few dozen at a time), and joined again into the same
// data and the same JSON bytes as one execution of the whole would give. Anything out of the
// ordinary (fragments or directives at the event's level, an error anywhere, a resolver that
// answers with a promise) takes the one plain execution instead.
import { execute } from '@graphql-tools/executor';
import type { QuestionRecord } from '../domain/question.ts';
import { mediaBytesOf } from '../domain/quotas.ts';
import type { FeedEvent } from '../engine/types.ts';
import { type ExecutionArgs, type ExecutionResult, Kind } from './graphql-js.ts';

/** Live events with fewer questions are executed whole (once for all their subscribers). */
export const MIN_SPLIT_QUESTIONS = 8;
/** JSON bytes (UTF-16 units) of all kept questions together. */
const CACHE_BUDGET = 8 * 1024 * 1024;
/** A question larger than this (media) is executed each time rather than kept. */
const MAX_ENTRY = 64 * 1024;

type DocumentNode = ExecutionArgs['document'];
type Definition = DocumentNode['definitions'][number];
type OperationNode = Extract<Definition, { kind: Kind.OPERATION_DEFINITION }>;
type SelectionSetNode = OperationNode['selectionSet'];
type FieldNode = Extract<SelectionSetNode['selections'][number], { kind: Kind.FIELD }>;

/** How a document's event splits: its root response key, its questions keys, the questions-only document. */
interface Plan {
  root: string;
  keys: string[];
  questionsOnly: DocumentNode;
}

interface Entry {
  /** By questions response key: what the selection made of this question, and its JSON. */
  data: Record<string, unknown>;
  json: Record<string, string>;
  size: number;
}

const plans = new WeakMap<DocumentNode, Map<string, Plan | null>>();
const cache = new Map<string, Entry>();
let cacheSize = 0;

const responseKey = (f: FieldNode): string => f.alias?.value ?? f.name.value;

function planOf(document: DocumentNode, operationName: string | null | undefined): Plan | null {
  let byName = plans.get(document);
  if (!byName) {
    byName = new Map();
    plans.set(document, byName);
  }
  const name = operationName ?? '';
  if (byName.has(name)) return byName.get(name) ?? null;
  const plan = makePlan(document, operationName);
  byName.set(name, plan);
  return plan;
}

function makePlan(document: DocumentNode, operationName: string | null | undefined): Plan | null {
  const ops = document.definitions.filter(
    (d): d is OperationNode =>
      d.kind === Kind.OPERATION_DEFINITION && (operationName == null || d.name?.value === operationName),
  );
  const op = ops.length === 1 ? ops[0]! : null;
  if (op?.operation !== 'subscription' || op.selectionSet.selections.length !== 1) return null;
  const root = op.selectionSet.selections[0]!;
  if (root.kind !== Kind.FIELD || root.directives?.length || !root.selectionSet) return null;
  const fields = root.selectionSet.selections;
  // Only plain fields at the event's level, so the response keys are known here.
  if (fields.some((f) => f.kind !== Kind.FIELD || f.directives?.length)) return null;
  const questions = (fields as FieldNode[]).filter((f) => f.name.value === 'questions');
  if (questions.length === 0) return null;
  const questionsRoot: FieldNode = { ...root, selectionSet: { ...root.selectionSet, selections: questions } };
  const questionsOp: OperationNode = {
    ...op,
    selectionSet: { ...op.selectionSet, selections: [questionsRoot] },
  };
  return {
    root: responseKey(root),
    keys: [...new Set(questions.map(responseKey))],
    questionsOnly: {
      ...document,
      definitions: document.definitions.map((d) => (d === op ? questionsOp : d)),
    },
  };
}

/**
 * A pending question without an escalation ladder never changes while pending; one with a
 * ladder does (its `escalations` record each fired step, API.md §18), so it is never kept.
 */
function cacheable(q: QuestionRecord): boolean {
  return q.status === 'PENDING' && !q.escalation?.length;
}

function remember(key: string, entry: Entry): void {
  if (entry.size > MAX_ENTRY) return;
  const old = cache.get(key);
  if (old) cacheSize -= old.size;
  cache.set(key, entry);
  cacheSize += entry.size;
  for (const [k, e] of cache) {
    if (cacheSize <= CACHE_BUDGET) break;
    cache.delete(k);
    cacheSize -= e.size;
  }
}

function recall(key: string): Entry | undefined {
  const e = cache.get(key);
  if (e) {
    // Most recently used last, so eviction takes the oldest first.
    cache.delete(key);
    cache.set(key, e);
  }
  return e;
}

/**
 * A pending question changes only by its votes (a quorum's UPDATED), and votes are only ever
 * added, so their count tells the versions of one question apart.
 */
function entryKey(resultKey: string, q: QuestionRecord): string {
  return `${resultKey}\n${q.id}\n${q.votes?.length ?? 0}`;
}

const isSync = (r: unknown): r is ExecutionResult =>
  typeof r === 'object' && r !== null && typeof (r as { then?: unknown }).then !== 'function';

/**
 * An event's result without its questions: the data around them, and its JSON cut where each
 * questions list goes (`gaps[i]`, an index into the plan's keys, goes between parts i and i+1).
 */
interface Shell {
  result: ExecutionResult;
  root: Record<string, unknown>;
  parts: string[];
  gaps: number[];
}

/** Cuts the shell's JSON at its markers, found before any question data is in it. */
function cutAtMarkers(json: string, count: number): { parts: string[]; gaps: number[] } | null {
  const at = Array.from({ length: count }, (_, n) => ({ n, i: json.indexOf(`"@questions:${n}"`) }));
  if (at.some((m) => m.i < 0)) return null;
  at.sort((a, b) => a.i - b.i);
  const parts: string[] = [];
  let from = 0;
  for (const m of at) {
    parts.push(json.slice(from, m.i));
    from = m.i + `"@questions:${m.n}"`.length;
  }
  parts.push(json.slice(from));
  return { parts, gaps: at.map((m) => m.n) };
}

/** Shells by document, then by result key, type and `more`: at most MAX_SHELLS per document. */
const shells = new WeakMap<DocumentNode, Map<string, Shell | null>>();
const MAX_SHELLS = 64;

/**
 * The event's result without its questions, executed once per kind of event: InboxEvent's
 * other fields (`type`, `more`) are all it depends on besides `resultKey`, so a backlog of
 * thousands of one-question parts executes its shell twice, not thousands of times. A field
 * added to InboxEvent must join this key.
 */
function shellOf(args: ExecutionArgs, plan: Plan, event: FeedEvent, resultKey: string): Shell | null {
  let byKey = shells.get(args.document);
  if (!byKey) {
    byKey = new Map();
    shells.set(args.document, byKey);
  }
  const key = `${resultKey}\n${event.type}\n${event.more}`;
  const known = byKey.get(key);
  if (known !== undefined) return known;
  let shell: Shell | null = null;
  const result = execute({ ...args, signal: undefined, rootValue: { ...event, questions: [] } });
  if (isSync(result) && !result.errors?.length && !result.extensions) {
    const root = (result.data as Record<string, unknown> | null | undefined)?.[plan.root];
    if (typeof root === 'object' && root !== null) {
      const marked: Record<string, unknown> = { ...root };
      for (const [n, k] of plan.keys.entries()) marked[k] = `@questions:${n}`;
      // The shell carries no question data, only the event's own fields and these markers.
      const data = { ...(result.data as Record<string, unknown>), [plan.root]: marked };
      const cut = cutAtMarkers(JSON.stringify({ ...result, data }), plan.keys.length);
      if (cut) shell = { result, root: root as Record<string, unknown>, ...cut };
    }
  }
  if (byKey.size >= MAX_SHELLS) byKey.clear();
  byKey.set(key, shell);
  return shell;
}

/**
 * A question whose result will likely be kept (under MAX_ENTRY): only those are executed ahead,
 * so a backlog of large media never has dozens of them executed at once for nothing.
 */
const small = (q: QuestionRecord): boolean => q.text.length + mediaBytesOf(q.media) < MAX_ENTRY / 2;

/** Questions beside an event's own executed with them at most (the look-ahead of a backlog). */
export const AHEAD_MAX = 63;

/**
 * The result of `event` for `args`, with its JSON, from the per-question cache under
 * `resultKey` (what else the result depends on); null when the event must be executed whole.
 * `ahead`: questions that the next events will carry (a backlog's following parts); when one
 * of this event's questions must be executed, up to AHEAD_MAX of them are executed in the same
 * run and kept, so a backlog of one-question events costs one execution per few dozen.
 */
export function executeByQuestion(
  args: ExecutionArgs,
  event: FeedEvent,
  resultKey: string,
  ahead: () => readonly QuestionRecord[] = () => [],
): { result: ExecutionResult; json: string } | null {
  const plan = planOf(args.document, args.operationName);
  if (!plan) return null;
  const shell = shellOf(args, plan, event, resultKey);
  if (!shell) return null;

  const entries: (Entry | undefined)[] = event.questions.map((q) =>
    cacheable(q) ? recall(entryKey(resultKey, q)) : undefined,
  );
  const missing: QuestionRecord[] = event.questions.filter((_q, i) => !entries[i]);
  if (missing.length > 0) {
    // Only beside questions that are kept themselves: one with a ladder may run asynchronously,
    // and then the whole run is dropped for the plain execution.
    const extra = missing.every(cacheable)
      ? ahead()
          .filter((q) => cacheable(q) && small(q) && !cache.has(entryKey(resultKey, q)))
          .slice(0, AHEAD_MAX)
      : [];
    const run = extra.length > 0 ? [...missing, ...extra] : missing;
    const rest = execute({
      ...args,
      signal: undefined,
      document: plan.questionsOnly,
      rootValue: { ...event, questions: run },
    });
    if (!isSync(rest) || rest.errors?.length || rest.extensions) return null;
    const restRoot = (rest.data as Record<string, Record<string, unknown[]>> | null | undefined)?.[plan.root];
    if (!restRoot) return null;
    const made: Entry[] = [];
    for (let m = 0; m < run.length; m++) {
      const data: Record<string, unknown> = {};
      const json: Record<string, string> = {};
      let size = 0;
      for (const k of plan.keys) {
        const item = restRoot[k]?.[m];
        if (typeof item !== 'object' || item === null) return null;
        data[k] = item;
        json[k] = JSON.stringify(item);
        size += json[k].length;
      }
      made.push({ data, json, size });
      const q = run[m]!;
      if (cacheable(q)) remember(entryKey(resultKey, q), made[m]!);
    }
    let m = 0;
    for (let i = 0; i < entries.length; i++) if (!entries[i]) entries[i] = made[m++];
  }

  // The shell again, each questions list in place, and its JSON with each list spliced in:
  // JSON.stringify of an array is its items' JSON joined by commas, so the bytes are the same.
  const root: Record<string, unknown> = { ...shell.root };
  for (const k of plan.keys) root[k] = entries.map((e) => e!.data[k]);
  const data = { ...(shell.result.data as Record<string, unknown>), [plan.root]: root };
  let json = shell.parts[0]!;
  for (let g = 0; g < shell.gaps.length; g++) {
    const k = plan.keys[shell.gaps[g]!]!;
    json += `[${entries.map((e) => e!.json[k]).join(',')}]${shell.parts[g + 1]}`;
  }
  return { result: { ...shell.result, data }, json };
}
