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
import { parseJsonArg } from '../parse.ts';
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

export function answerCommand(ctx: CommandContext): Command {
  const { io } = ctx;
  return new Command('answer')
    .description('answer a TEXT, CONFIRM, SELECT or FORM question (prompts when --answer is not given)')
    .argument('<id>', 'the question id')
    .option(
      '--answer <json>',
      'the answer as JSON: \'"text"\', true, \'"production"\', \'{"name":"Ada"}\'',
      parseJsonArg('--answer'),
    )
    .action(async (id: string, o: { answer?: unknown }, cmd: Command) => {
      const client = ctx.clientOf(cmd);
      let answer = o.answer;
      if (answer === undefined) {
        if (!io.interactive) throw new BadUserInputError('--answer is required when stdin is not a terminal');
        answer = await promptAnswer(await answerable(client, id), io.prompter, io.err);
      }
      const q = await client.answer(id, answer);
      ctx.print(cmd, q, () => `Answered ${q.id}: ${answerText(q.answer ?? answer)}\n`);
    });
}
