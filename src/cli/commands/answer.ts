// `tai interactions answer <id>`: answers a TEXT, CONFIRM, SELECT or FORM question, from
// --answer or, in a terminal, from prompts fitted to the question.
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

const JSON_EXAMPLES = 'true, \'"production"\' or \'{"name":"Ada"}\'';

/**
 * The answer `--answer` gives for this question: a TEXT answer is the text as typed (a JSON
 * string literal such as '"hello"' is read as JSON, as before); every other format takes JSON.
 */
export function answerFromFlag(q: Pick<Question, 'format'>, value: string): unknown {
  let parsed: { value: unknown } | null = null;
  try {
    parsed = { value: JSON.parse(value) };
  } catch {
    parsed = null;
  }
  if (q.format === 'TEXT') return parsed && typeof parsed.value === 'string' ? parsed.value : value;
  if (parsed) return parsed.value;
  throw new BadUserInputError(`--answer must be JSON for a ${q.format} question, e.g. ${JSON_EXAMPLES}`);
}

export function answerCommand(ctx: CommandContext): Command {
  const { io } = ctx;
  return new Command('answer')
    .description('answer a TEXT, CONFIRM, SELECT or FORM question (prompts when --answer is not given)')
    .argument('<id>', 'the question id')
    .option('--answer <answer>', `a TEXT answer as it is (hello), any other as JSON: ${JSON_EXAMPLES}`)
    .action(async (id: string, o: { answer?: string }, cmd: Command) => {
      const client = ctx.clientOf(cmd);
      if (o.answer === undefined && !io.interactive) {
        throw new BadUserInputError('--answer is required when stdin is not a terminal');
      }
      // With --answer the question is read only for its format: the server judges the answer.
      const answer =
        o.answer === undefined
          ? await promptAnswer(await answerable(client, id), io.prompter, io.err)
          : answerFromFlag(await requireQuestion(client, id), o.answer);
      const done = await client.answer(id, answer);
      ctx.print(cmd, done, () => `Answered ${done.id}: ${answerText(done.answer ?? answer)}\n`);
    });
}
