// `tai interactions list`: one page of questions (or every page with --all), newest first.
import { Command, Option } from 'commander';
import type { QuestionStatus } from '../../client/index.ts';
import type { CommandContext } from '../context.ts';
import { questionsTable } from '../format.ts';
import { parseStatuses, parseWhole } from '../parse.ts';

interface ListOptions {
  status: QuestionStatus[] | null;
  group?: string;
  audience?: string;
  channel?: string;
  first: number;
  after?: string;
  all?: boolean;
}

export function listCommand(ctx: CommandContext): Command {
  return new Command('list')
    .description('list questions, newest first (pending ones unless --status says otherwise)')
    .addOption(
      new Option('--status <statuses>', 'comma-separated statuses, or "all"')
        .argParser(parseStatuses)
        .default(['PENDING'], 'PENDING'),
    )
    .option('--group <groupId>', 'only this group')
    .option('--audience <id>', 'only questions addressed to this principal')
    .option('--channel <name>', 'only questions delivered through this channel')
    .option('--first <n>', 'page size, 1 to 200', parseWhole(1, 200), 50)
    .option('--after <cursor>', 'continue after this cursor (from the previous page)')
    .option('--all', 'fetch every page')
    .action(async (o: ListOptions, cmd: Command) => {
      const client = ctx.clientOf(cmd);
      const filter = {
        ...(o.status ? { status: o.status } : {}),
        ...(o.group ? { groupId: o.group } : {}),
        ...(o.audience ? { audience: o.audience } : {}),
        ...(o.channel ? { channel: o.channel } : {}),
      };
      const page = await client.questionsPage({ filter, first: o.first, after: o.after });
      const questions = [...page.questions];
      let { pageInfo } = page;
      if (o.all) {
        while (pageInfo.hasNextPage && pageInfo.endCursor) {
          const next = await client.questionsPage({ filter, first: 200, after: pageInfo.endCursor });
          questions.push(...next.questions);
          pageInfo = next.pageInfo;
        }
      }
      const which = o.status ? o.status.map((s) => s.toLowerCase().replace('_', ' ')).join(' or ') : '';
      ctx.print(cmd, { totalCount: page.totalCount, pageInfo, questions }, () => {
        if (questions.length === 0) return `No ${which ? `${which} ` : ''}questions.\n`;
        const more = pageInfo.hasNextPage ? ` Next page: --after ${pageInfo.endCursor}` : '';
        return `${questionsTable(questions)}\n${questions.length} of ${page.totalCount} ${which ? `${which} ` : ''}question${page.totalCount === 1 ? '' : 's'}.${more}\n`;
      });
    });
}
