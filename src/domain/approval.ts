// APPROVAL questions and quorums (API.md §15): the proposed action and its digest, the quorum
// that decides, the answer {decision, arguments?, note?}, and what a resolved question decided.
// Errors are BAD_USER_INPUT at `input.action…`, `input.quorum…` or `answer…`.
import { assertCanonicalizable, jcsDigest } from './digest.ts';
import { badInput } from './errors.ts';
import { GROUP_PREFIX, ONCALL_PREFIX } from './groups.ts';
import { compileJsonSchema, isJsonValue, jsonDepth, validateAgainst } from './json-schema.ts';
import {
  ACTION_ARGUMENTS_MAX_BYTES,
  ACTION_EXECUTORS_MAX,
  ACTION_NAME_MAX_CHARS,
  ACTION_SUMMARY_MAX_CHARS,
  ACTION_VALID_SECONDS_MAX,
  ACTION_VALID_SECONDS_MIN,
  APPROVAL_NOTE_MAX_CHARS,
  exceedsChars,
  isBlank,
  JSON_MAX_DEPTH,
  LABEL_MAX_CHARS,
  QUORUM_MAX,
  QUORUM_MIN,
  QUORUM_VOTERS_MAX,
  utf8ByteLength,
} from './limits.ts';
import {
  ACTION_ASSURANCES,
  type ActionSpec,
  type AnswerFormat,
  DECISIONS,
  type Decision,
  type JsonObject,
  type QuestionRecord,
  type QuorumSpec,
} from './question.ts';
import { clip, isPlainObject, listChoices, own } from './values.ts';

const ACTION_NAME = /^[A-Za-z0-9_.:-]+$/;
const ACTION_KEYS = new Set([
  'name',
  'summary',
  'arguments',
  'argumentsSchema',
  'editable',
  'executors',
  'validSeconds',
  'requestedBy',
  'assurance',
]);
const QUORUM_KEYS = new Set(['approvals', 'rejections', 'voters']);
const ANSWER_KEYS = new Set(['decision', 'arguments', 'note']);

/** `sha256:` of the JCS canonical JSON of {name, arguments}: what receipts and tools compare. */
export function actionDigest(name: string, args: JsonObject): string {
  return jcsDigest({ name, arguments: args });
}

function unknownKey(raw: Record<string, unknown>, known: ReadonlySet<string>, field: string): void {
  for (const key of Object.keys(raw)) {
    if (!known.has(key)) {
      throw badInput(`unknown field (expected: ${listChoices(known)})`, `${field}.${clip(key, 64)}`);
    }
  }
}

/** A JSON object of at most 64 KiB as UTF-8 JSON, returned as a plain copy. */
function argumentsObject(value: unknown, field: string): JsonObject {
  if (!isPlainObject(value)) throw badInput('arguments must be a JSON object', field);
  // Digested (actionDigest) as RFC 8785 JSON: what it refuses is refused here, at its path.
  assertCanonicalizable(value, field, JSON_MAX_DEPTH);
  if (jsonDepth(value, JSON_MAX_DEPTH) > JSON_MAX_DEPTH) {
    throw badInput(`arguments must be nested at most ${JSON_MAX_DEPTH} levels`, field);
  }
  if (!isJsonValue(value, JSON_MAX_DEPTH)) throw badInput('arguments must be a JSON object', field);
  const serialized = JSON.stringify(value);
  // UTF-8 bytes are never fewer than UTF-16 units, so the first test is a cheap early out.
  if (
    serialized.length > ACTION_ARGUMENTS_MAX_BYTES ||
    utf8ByteLength(serialized) > ACTION_ARGUMENTS_MAX_BYTES
  ) {
    throw badInput(`arguments must be at most ${ACTION_ARGUMENTS_MAX_BYTES} bytes as JSON (UTF-8)`, field);
  }
  return JSON.parse(serialized) as JsonObject;
}

/** `input.action`: required for APPROVAL, refused for every other format. */
export function checkAction(given: unknown, format: AnswerFormat): ActionSpec | null {
  const field = 'input.action';
  const present = given !== undefined && given !== null;
  if (!present) {
    if (format === 'APPROVAL') throw badInput('action is required for APPROVAL questions', field);
    return null;
  }
  if (format !== 'APPROVAL') throw badInput('action is only for APPROVAL questions', field);
  if (!isPlainObject(given)) throw badInput('action must be an object', field);
  unknownKey(given, ACTION_KEYS, field);

  const name = own(given, 'name');
  if (typeof name !== 'string') throw badInput('action name is required (a string)', `${field}.name`);
  if (name.length < 1 || name.length > ACTION_NAME_MAX_CHARS || !ACTION_NAME.test(name)) {
    throw badInput(
      `action name must be 1 to ${ACTION_NAME_MAX_CHARS} characters of A-Z a-z 0-9 _ . : -`,
      `${field}.name`,
    );
  }

  const summaryGiven = own(given, 'summary');
  let summary: string | null = null;
  if (summaryGiven !== undefined && summaryGiven !== null) {
    if (typeof summaryGiven !== 'string') throw badInput('summary must be a string', `${field}.summary`);
    if (isBlank(summaryGiven)) throw badInput('summary must not be blank', `${field}.summary`);
    if (exceedsChars(summaryGiven, ACTION_SUMMARY_MAX_CHARS)) {
      throw badInput(`summary must be at most ${ACTION_SUMMARY_MAX_CHARS} characters`, `${field}.summary`);
    }
    summary = summaryGiven;
  }

  const argsGiven = own(given, 'arguments');
  if (argsGiven === undefined || argsGiven === null) {
    throw badInput('action arguments are required (a JSON object)', `${field}.arguments`);
  }
  const args = argumentsObject(argsGiven, `${field}.arguments`);

  const editableGiven = own(given, 'editable');
  if (editableGiven !== undefined && editableGiven !== null && typeof editableGiven !== 'boolean') {
    throw badInput('editable must be true or false', `${field}.editable`);
  }
  const editable = editableGiven === true;

  const schemaGiven = own(given, 'argumentsSchema');
  let argumentsSchema: JsonObject | null = null;
  if (schemaGiven !== undefined && schemaGiven !== null) {
    const compiled = compileJsonSchema(schemaGiven, `${field}.argumentsSchema`);
    argumentsSchema = JSON.parse(compiled.serialized) as JsonObject;
    validateAgainst(compiled, args, `${field}.arguments`);
  } else if (editable) {
    throw badInput('an editable action needs argumentsSchema', `${field}.argumentsSchema`);
  }

  const spec: ActionSpec = {
    name,
    summary,
    arguments: args,
    argumentsSchema,
    editable,
    digest: actionDigest(name, args),
  };
  const executors = checkExecutors(own(given, 'executors'), `${field}.executors`);
  if (executors) spec.executors = executors;
  const validSeconds = checkValidSeconds(own(given, 'validSeconds'), `${field}.validSeconds`);
  if (validSeconds !== null) spec.validSeconds = validSeconds;
  const requestedBy = checkRequestedBy(own(given, 'requestedBy'), `${field}.requestedBy`);
  if (requestedBy !== null) spec.requestedBy = requestedBy;
  const assurance = own(given, 'assurance');
  if (assurance !== undefined && assurance !== null) {
    if (assurance !== 'STANDARD' && assurance !== 'HIGH') {
      throw badInput(`assurance must be one of: ${ACTION_ASSURANCES.join(', ')}`, `${field}.assurance`);
    }
    // STANDARD is the default: only HIGH is kept, so older records and new ones read alike.
    if (assurance === 'HIGH') spec.assurance = 'HIGH';
  }
  return spec;
}

/** `action.requestedBy` (§22): the one person the agent acts for, an identity; null when absent. */
function checkRequestedBy(given: unknown, field: string): string | null {
  if (given === undefined || given === null) return null;
  if (typeof given !== 'string' || isBlank(given))
    throw badInput('requestedBy must be a non-blank identity', field);
  if (exceedsChars(given, LABEL_MAX_CHARS)) {
    throw badInput(`requestedBy must be at most ${LABEL_MAX_CHARS} characters`, field);
  }
  if (given.startsWith(GROUP_PREFIX) || given.startsWith(ONCALL_PREFIX)) {
    throw badInput('requestedBy must name one person, not a group or a rotation', field);
  }
  return given;
}

/** `action.executors` (§23): at most ACTION_EXECUTORS_MAX distinct principal ids; null when absent. */
function checkExecutors(given: unknown, field: string): string[] | null {
  if (given === undefined || given === null) return null;
  if (!Array.isArray(given)) throw badInput('executors must be a list of principal ids', field);
  if (given.length > ACTION_EXECUTORS_MAX) {
    throw badInput(`executors must have at most ${ACTION_EXECUTORS_MAX} entries`, field);
  }
  const seen = new Set<string>();
  given.forEach((v, i) => {
    const at = `${field}[${i}]`;
    if (typeof v !== 'string' || isBlank(v)) throw badInput('an executor must be a non-blank string', at);
    if (exceedsChars(v, LABEL_MAX_CHARS))
      throw badInput(`an executor must be at most ${LABEL_MAX_CHARS} characters`, at);
    if (seen.has(v)) throw badInput('executors must not repeat', at);
    seen.add(v);
  });
  return seen.size > 0 ? [...seen] : null;
}

/** `action.validSeconds` (§23): an integer from 1 to 2,592,000 (30 days); null when absent. */
function checkValidSeconds(given: unknown, field: string): number | null {
  if (given === undefined || given === null) return null;
  if (
    typeof given !== 'number' ||
    !Number.isInteger(given) ||
    given < ACTION_VALID_SECONDS_MIN ||
    given > ACTION_VALID_SECONDS_MAX
  ) {
    throw badInput(
      `validSeconds must be an integer from ${ACTION_VALID_SECONDS_MIN} to ${ACTION_VALID_SECONDS_MAX}`,
      field,
    );
  }
  return given;
}

function quorumCount(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < QUORUM_MIN || value > QUORUM_MAX) {
    throw badInput(`must be an integer from ${QUORUM_MIN} to ${QUORUM_MAX}`, field);
  }
  return value;
}

/**
 * `input.quorum`: APPROVAL and CONFIRM only; not with an editable action that needs more than
 * one approval (people would approve different arguments), nor on a sensitive question (the
 * votes would tell its answer).
 */
export function checkQuorum(
  given: unknown,
  format: AnswerFormat,
  action: ActionSpec | null,
  sensitive: boolean,
): QuorumSpec | null {
  const field = 'input.quorum';
  if (given === undefined || given === null) return null;
  if (format !== 'APPROVAL' && format !== 'CONFIRM') {
    throw badInput('quorum is only for APPROVAL and CONFIRM questions', field);
  }
  if (!isPlainObject(given)) throw badInput('quorum must be an object', field);
  unknownKey(given, QUORUM_KEYS, field);
  const approvals = quorumCount(own(given, 'approvals'), `${field}.approvals`);
  const rejectionsGiven = own(given, 'rejections');
  const rejections =
    rejectionsGiven === undefined || rejectionsGiven === null
      ? 1
      : quorumCount(rejectionsGiven, `${field}.rejections`);
  const votersGiven = own(given, 'voters');
  let voters: string[] | null = null;
  if (votersGiven !== undefined && votersGiven !== null) {
    if (!Array.isArray(votersGiven)) throw badInput('voters must be a list of strings', `${field}.voters`);
    if (votersGiven.length < 1 || votersGiven.length > QUORUM_VOTERS_MAX) {
      throw badInput(`voters must have 1 to ${QUORUM_VOTERS_MAX} entries`, `${field}.voters`);
    }
    const seen = new Set<string>();
    votersGiven.forEach((v, i) => {
      const at = `${field}.voters[${i}]`;
      if (typeof v !== 'string' || isBlank(v)) throw badInput('a voter must be a non-blank string', at);
      if (exceedsChars(v, LABEL_MAX_CHARS))
        throw badInput(`a voter must be at most ${LABEL_MAX_CHARS} characters`, at);
      if (seen.has(v)) throw badInput('voters must not repeat', at);
      seen.add(v);
    });
    voters = [...seen];
    // A `group:<id>` entry stands for its members (API.md §22): the engine counts them where the
    // group is configured (engine/answers/addressees.ts); here only plain identities are counted.
    if (voters.length < approvals && !voters.some((v) => v.startsWith(GROUP_PREFIX))) {
      throw badInput('voters must name at least as many identities as approvals needed', `${field}.voters`);
    }
  }
  if (action?.editable && approvals > 1) {
    throw badInput(
      'an editable action cannot need more than one approval (people would approve different things)',
      `${field}.approvals`,
    );
  }
  if (sensitive)
    throw badInput('quorum is not allowed on sensitive questions (votes would tell the answer)', field);
  return { approvals, rejections, voters };
}

/** A checked APPROVAL answer, as stored: arguments present exactly when APPROVED. */
export interface ApprovalAnswer {
  decision: Decision;
  arguments?: JsonObject;
  note?: string;
}

/**
 * Checks an APPROVAL answer against its action and returns what is stored: the approved
 * arguments (the proposal unless an editable action was edited) ride every approval.
 */
export function checkApprovalAnswer(action: ActionSpec | null | undefined, answer: unknown): ApprovalAnswer {
  const field = 'answer';
  if (!action) throw badInput('the question has no action', field);
  if (!isPlainObject(answer)) {
    throw badInput(
      'answer must be a JSON object {"decision": "APPROVED" | "REJECTED", "arguments"?, "note"?}',
      field,
    );
  }
  unknownKey(answer, ANSWER_KEYS, field);
  const decision = own(answer, 'decision');
  if (typeof decision !== 'string' || !(DECISIONS as readonly string[]).includes(decision)) {
    throw badInput(`decision must be one of: ${listChoices(DECISIONS)}`, `${field}.decision`);
  }
  const out: ApprovalAnswer = { decision: decision as Decision };
  const argsGiven = own(answer, 'arguments');
  if (argsGiven !== undefined && argsGiven !== null) {
    if (decision !== 'APPROVED')
      throw badInput('arguments may be given only with APPROVED', `${field}.arguments`);
    if (!action.editable) throw badInput('this action is not editable', `${field}.arguments`);
    const args = argumentsObject(argsGiven, `${field}.arguments`);
    if (action.argumentsSchema) {
      validateAgainst(
        compileJsonSchema(action.argumentsSchema, 'action.argumentsSchema'),
        args,
        `${field}.arguments`,
      );
    }
    out.arguments = args;
  } else if (decision === 'APPROVED') {
    out.arguments = action.arguments;
  }
  const note = own(answer, 'note');
  if (note !== undefined && note !== null) {
    if (typeof note !== 'string') throw badInput('note must be a string', `${field}.note`);
    if (exceedsChars(note, APPROVAL_NOTE_MAX_CHARS)) {
      throw badInput(`note must be at most ${APPROVAL_NOTE_MAX_CHARS} characters`, `${field}.note`);
    }
    if (!isBlank(note)) out.note = note;
  }
  return out;
}

/** The decision an answer carries: APPROVAL's `decision`, CONFIRM's true/false; null otherwise. */
export function decisionOfAnswer(format: AnswerFormat, answer: unknown): Decision | null {
  if (format === 'CONFIRM' && typeof answer === 'boolean') return answer ? 'APPROVED' : 'REJECTED';
  if (format === 'APPROVAL' && isPlainObject(answer)) {
    const d = answer.decision;
    if (d === 'APPROVED' || d === 'REJECTED') return d;
  }
  return null;
}

/** What an answered APPROVAL or CONFIRM question decided; null otherwise (a timeout decides nothing). */
export function decisionOf(q: Pick<QuestionRecord, 'status' | 'format' | 'answer'>): Decision | null {
  if (q.status !== 'ANSWERED') return null;
  return decisionOfAnswer(q.format, q.answer);
}

/** The arguments an answered APPROVAL question approved; null when it was not approved. */
export function approvedArgumentsOf(
  q: Pick<QuestionRecord, 'status' | 'format' | 'answer' | 'action'>,
): JsonObject | null {
  if (decisionOf(q) !== 'APPROVED' || !q.action) return null;
  const args = isPlainObject(q.answer) ? q.answer.arguments : undefined;
  return isPlainObject(args) ? args : q.action.arguments;
}

/** Whether the approved arguments differ from the proposal; null unless an APPROVAL was decided. */
export function editedOf(q: Pick<QuestionRecord, 'status' | 'format' | 'answer' | 'action'>): boolean | null {
  const decision = decisionOf(q);
  if (q.format !== 'APPROVAL' || decision === null || !q.action) return null;
  if (decision === 'REJECTED') return false;
  const approved = approvedArgumentsOf(q);
  return approved !== null && actionDigest(q.action.name, approved) !== q.action.digest;
}
