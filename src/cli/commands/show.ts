// `tai interactions show <id>`: every field of one question.
import { Command } from 'commander';
import { requireQuestion } from '../../client/index.ts';
import type { CommandContext } from '../context.ts';
import { questionDetail } from '../format.ts';

export function showCommand(ctx: CommandContext): Command {
  return new Command('show')
    .description('show one question')
    .argument('<id>', 'the question id')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const q = await requireQuestion(ctx.clientOf(cmd), id);
      ctx.print(cmd, q, () => questionDetail(q));
    });
}
