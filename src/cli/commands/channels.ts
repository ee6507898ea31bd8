// `tai channels list`: the channels the server can deliver through.
import { Command } from 'commander';
import type { CommandContext } from '../context.ts';

export function channelsCommand(ctx: CommandContext): Command {
  const list = new Command('list')
    .description('names of the channels the server can deliver questions through')
    .action(async (_o: unknown, cmd: Command) => {
      const names = await ctx.clientOf(cmd).channels();
      ctx.print(cmd, names, () =>
        names.length === 0 ? 'No channels are registered.\n' : `${names.join('\n')}\n`,
      );
    });
  return new Command('channels').description('delivery channels').addCommand(list);
}
