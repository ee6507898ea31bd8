// `tai interactions cancel <id>`: its asker gets CANCELLED.
import { Command } from 'commander';
import type { CommandContext } from '../context.ts';

export function cancelCommand(ctx: CommandContext): Command {
  return new Command('cancel')
    .description('cancel a pending question (its asker gets CANCELLED)')
    .argument('<id>', 'the question id')
    .option('--reason <text>', 'why, shown with the question')
    .action(async (id: string, o: { reason?: string }, cmd: Command) => {
      const q = await ctx.clientOf(cmd).cancel(id, o.reason);
      ctx.print(cmd, q, () => `Cancelled ${q.id}${q.cancelReason ? `: ${q.cancelReason}` : ''}\n`);
    });
}
