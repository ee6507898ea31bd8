// `tai interactions answer <id>`: answers a TEXT, CONFIRM, SELECT, FORM or APPROVAL question,
// from --answer (or --approve/--reject for APPROVAL and CONFIRM) or, in a terminal, from prompts
// fitted to the question.
import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import {
  AlreadyAnsweredError,
  BadUserInputError,
  type InteractionsClient,
  type Question,
  QuestionClosedError,
  requireQuestion,
  WrongDoorError,
} from '../../client/index.ts';
import { clip } from '../../domain/values.ts';
import { yesOrNo } from '../../domain/yes-no.ts';
import type { CommandContext } from '../context.ts';
import { answerText } from '../format.ts';
import { promptAnswer } from '../prompt.ts';

/** The question, if it can take an answer here; otherwise the error the server would give. */
async function answerable(client: InteractionsClient, id: string): Promise<Question> {
  const q = await requireQuestion(client, id);
  if (q.status === 'ANSWERED') throw new AlreadyAnsweredError('the question was already answered');
  if (q.status !== 'PENDING')
    throw new QuestionClosedError(`the question is ${q.status.toLowerCase().replace('_', ' ')}`);
  if (q.format === 'EXTERNAL') {
    throw new WrongDoorError('an EXTERNAL question is answered through its callback URL, not here');
  }
  return q;
}

const JSON_EXAMPLES = '\'{"name":"Ada"}\'';
/** An error lists at most this many options, each cut to this many characters. */
const OPTIONS_SHOWN = 10;
const OPTION_SHOWN_CHARS = 40;

function parsedJson(value: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(value) };
  } catch {
    return null;
  }
}

/** A CONFIRM answer from the words a person types (yes/no, y/n, true/false, ok…: src/domain/yes-no.ts). */
function confirmFromFlag(value: string): boolean {
  const yes = yesOrNo(value);
  if (yes !== undefined) return yes;
  throw new BadUserInputError('--answer for a CONFIRM question must be yes or no (also y, n, true, false)');
}

/**
 * A SELECT answer: an option's text (exactly, or ignoring case and surrounding spaces when that
 * names one option), its number in the list (from 1), or the option as a JSON string. An option
 * whose text is a number wins over the number.
 */
function selectFromFlag(options: readonly string[], value: string): string {
  if (options.includes(value)) return value;
  const wanted = value.trim().toLowerCase();
  const alike = options.filter((o) => o.trim().toLowerCase() === wanted);
  if (alike.length === 1 && alike[0] !== undefined) return alike[0];
  const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : 0;
  const numbered = n >= 1 ? options[n - 1] : undefined;
  if (numbered !== undefined) return numbered;
  const json = parsedJson(value);
  if (json && typeof json.value === 'string' && options.includes(json.value)) return json.value;
  const listed = options.slice(0, OPTIONS_SHOWN).map((o, i) => `${i + 1}. ${clip(o, OPTION_SHOWN_CHARS)}`);
  const more = options.length - listed.length;
  const shown = more > 0 ? [...listed, `… (${more} more)`] : listed;
  throw new BadUserInputError(
    `--answer for this SELECT question must be one of its options, by text or number: ${shown.join(', ')}`,
  );
}

/**
 * The answer `--answer` gives for this question, in the words a person types: a TEXT answer is
 * the text as typed (a JSON string literal such as '"hello"' is read as JSON, as before); CONFIRM
 * takes yes/no (or JSON true/false); SELECT an option's text or number (or a JSON string);
 * FORM takes JSON.
 */
export function answerFromFlag(q: Pick<Question, 'format' | 'options'>, value: string): unknown {
  const parsed = parsedJson(value);
  switch (q.format) {
    case 'TEXT':
      return parsed && typeof parsed.value === 'string' ? parsed.value : value;
    case 'CONFIRM':
      return confirmFromFlag(value);
    case 'SELECT':
      return selectFromFlag(q.options ?? [], value);
    case 'FORM':
    case 'EXTERNAL':
    case 'APPROVAL':
      if (parsed) return parsed.value;
      throw new BadUserInputError(`--answer must be JSON for a ${q.format} question, e.g. ${JSON_EXAMPLES}`);
    default:
      // A newer server's format: hand JSON (or the text) to the server, which judges it.
      q.format satisfies never;
      return parsed ? parsed.value : value;
  }
}

interface DecisionFlags {
  approve?: boolean;
  reject?: boolean;
  note?: string;
  arguments?: string;
  grant?: string;
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
const SCOPES: Record<string, string> = { 'same-arguments': 'SAME_ARGUMENTS', 'same-action': 'SAME_ACTION' };

/**
 * `--grant 1h[:same-arguments|:same-action]` (API.md §20): approve, and allow the same for that
 * long (s, m, h or d; SAME_ARGUMENTS unless said). The server checks the bounds.
 */
export function grantFromFlag(spec: string): { scope: string; seconds: number } {
  const m = /^(\d{1,7})([smhd]?)(?::([a-z-]+))?$/.exec(spec.trim());
  const scope = m?.[3] === undefined ? 'SAME_ARGUMENTS' : SCOPES[m[3]];
  if (!m || scope === undefined) {
    throw new BadUserInputError(
      `--grant must be a duration and an optional scope, e.g. 1h, 30m, 7d:same-action (scopes: ${Object.keys(SCOPES).join(', ')})`,
    );
  }
  return { scope, seconds: Number(m[1]) * UNIT_SECONDS[m[2] || 's']! };
}

async function argumentsFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new BadUserInputError(
      `cannot read --arguments ${path} (${(err as { code?: string }).code ?? 'unreadable'})`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BadUserInputError(`--arguments ${path} is not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BadUserInputError(`--arguments ${path} must hold a JSON object`);
  }
  return value as Record<string, unknown>;
}

/**
 * The answer --approve / --reject give: for APPROVAL {decision, arguments?, note?}; for CONFIRM
 * true or false (a CONFIRM answer has no note or arguments). The server checks the rest.
 */
export async function answerFromDecision(q: Pick<Question, 'format'>, o: DecisionFlags): Promise<unknown> {
  if (o.approve && o.reject) throw new BadUserInputError('give --approve or --reject, not both');
  const approved = o.approve === true;
  if (q.format === 'CONFIRM') {
    if (o.grant !== undefined) throw new BadUserInputError('--grant is for APPROVAL questions');
    if (o.note !== undefined || o.arguments !== undefined) {
      throw new BadUserInputError('--note and --arguments are for APPROVAL questions');
    }
    return approved;
  }
  if (q.format !== 'APPROVAL') {
    throw new BadUserInputError(
      `--approve and --reject are for APPROVAL and CONFIRM questions, not ${q.format}`,
    );
  }
  if (o.arguments !== undefined && !approved) throw new BadUserInputError('--arguments goes with --approve');
  if (o.grant !== undefined && !approved) throw new BadUserInputError('--grant goes with --approve');
  const answer: Record<string, unknown> = { decision: approved ? 'APPROVED' : 'REJECTED' };
  if (o.arguments !== undefined) answer.arguments = await argumentsFile(o.arguments);
  if (o.note !== undefined) answer.note = o.note;
  if (o.grant !== undefined) answer.grant = grantFromFlag(o.grant);
  return answer;
}

export function answerCommand(ctx: CommandContext): Command {
  const { io } = ctx;
  return new Command('answer')
    .description(
      'answer a TEXT, CONFIRM, SELECT, FORM or APPROVAL question (prompts when no answer is given)',
    )
    .argument('<id>', 'the question id')
    .option(
      '--answer <answer>',
      `TEXT as it is (hello), CONFIRM yes or no, SELECT an option's text or number (production, 2), FORM as JSON: ${JSON_EXAMPLES}`,
    )
    .option('--approve', 'APPROVAL or CONFIRM: approve (with a quorum: vote to approve)')
    .option('--reject', 'APPROVAL or CONFIRM: reject (with a quorum: vote to reject)')
    .option('--note <note>', 'APPROVAL: a note with the decision (at most 2000 characters)')
    .option('--arguments <file.json>', 'APPROVAL, editable actions: approve these arguments instead')
    .option(
      '--grant <duration[:scope]>',
      'APPROVAL, with --approve: also allow the same for a while, e.g. 1h (same arguments) or 1d:same-action',
    )
    .action(async (id: string, o: { answer?: string } & DecisionFlags, cmd: Command) => {
      const client = ctx.clientOf(cmd);
      const decided = o.approve === true || o.reject === true;
      if (decided && o.answer !== undefined) {
        throw new BadUserInputError('give --answer or --approve/--reject, not both');
      }
      if (!decided && o.grant !== undefined) throw new BadUserInputError('--grant goes with --approve');
      if (!decided && (o.note !== undefined || o.arguments !== undefined)) {
        throw new BadUserInputError('--note and --arguments go with --approve or --reject');
      }
      if (!decided && o.answer === undefined && !io.interactive) {
        throw new BadUserInputError('--answer is required when stdin is not a terminal');
      }
      // With a flag the question is read only for its format: the server judges the answer.
      const answer = decided
        ? await answerFromDecision(await requireQuestion(client, id), o)
        : o.answer === undefined
          ? await promptAnswer(await answerable(client, id), io.prompter, io.err)
          : answerFromFlag(await requireQuestion(client, id), o.answer);
      const done = await client.answer(id, answer);
      // A vote on a quorum question leaves it pending until enough people agree.
      const line =
        done.status === 'PENDING'
          ? `Voted on ${done.id}: ${done.votes.length} vote(s) so far, still pending\n`
          : `Answered ${done.id}: ${answerText(done.answer ?? answer)}\n`;
      ctx.print(cmd, done, () => line);
    });
}
