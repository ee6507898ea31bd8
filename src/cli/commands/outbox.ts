// `tai outbox dead`: the follow-ups the server's outbox gave up (resume webhooks, channel
// message edits), newest first, for an admin to see which receivers fail and why. It shows
// ids, targets, attempts and the reason; never a secret or an answer (the server keeps none).
import { Command } from 'commander';
import type { CommandContext } from '../context.ts';
import { oneLine, shortTime, table } from '../format.ts';
import { parseWhole } from '../parse.ts';

export function outboxCommand(ctx: CommandContext): Command {
  const dead = new Command('dead')
    .description('list the follow-ups the outbox gave up (dead letters), newest first; needs an admin key')
    .option('--first <n>', 'how many, 1 to 1000', parseWhole(1, 1000), 50)
    .action(async (o: { first: number }, cmd: Command) => {
      const list = await ctx.clientOf(cmd).outboxDeadLetters(o.first);
      ctx.print(cmd, list, () => {
        if (list.items.length === 0) return 'No dead letters.\n';
        const rows = list.items.map((d) => [
          d.id,
          d.kind,
          d.target,
          String(d.attempts),
          shortTime(d.droppedAt),
          oneLine(d.lastError, 100),
        ]);
        const shown = `${list.items.length} of ${list.totalCount} dead letter${list.totalCount === 1 ? '' : 's'}.`;
        return `${table(['ID', 'KIND', 'TARGET', 'ATTEMPTS', 'DROPPED', 'LAST ERROR'], rows)}\n${shown}\n`;
      });
    });

  return new Command('outbox')
    .description('follow-ups of resolved questions (webhooks, channel edits)')
    .addCommand(dead);
}
