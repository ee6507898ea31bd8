// `tai approvals consume <id>` and `tai approvals report <id> --outcome …` (API.md §23): a
// script that runs an approved action uses the approval once and records what happened.
import { Command, InvalidArgumentError } from 'commander';
import type { CommandContext } from '../context.ts';

function outcomeOf(value: string): 'SUCCEEDED' | 'FAILED' {
  const v = value.toUpperCase();
  if (v !== 'SUCCEEDED' && v !== 'FAILED') throw new InvalidArgumentError('expected SUCCEEDED or FAILED');
  return v;
}

function detailOf(value: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(value) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // Said below, in the same words as a non-object.
  }
  throw new InvalidArgumentError('expected a JSON object');
}

export function approvalsCommand(ctx: CommandContext): Command {
  const consume = new Command('consume')
    .description('use an approved question once (the asker or an executor); fails if already used')
    .argument('<id>', 'the question id')
    .option('--receipt <jws>', 'the decision receipt (default: read from the question)')
    .option('--action-digest <digest>', 'refuse unless this is the approved action digest')
    .action(async (id: string, o: { receipt?: string; actionDigest?: string }, cmd: Command) => {
      const client = ctx.clientOf(cmd);
      const receipt = o.receipt ?? (await client.receipt(id)) ?? '';
      const q = await client.consumeApproval(id, receipt, o.actionDigest);
      ctx.print(cmd, q, () => `Consumed ${q.id}: run it now, then report the outcome\n`);
    });
  const report = new Command('report')
    .description('record, once, what a consumed approval did')
    .argument('<id>', 'the question id')
    .requiredOption('--outcome <outcome>', 'SUCCEEDED or FAILED', outcomeOf)
    .option('--result-digest <digest>', '"sha256:" + 64 hex digits of the result')
    .option('--detail <json>', 'small facts about the run, a JSON object (at most 8 KiB)', detailOf)
    .action(
      async (
        id: string,
        o: { outcome: 'SUCCEEDED' | 'FAILED'; resultDigest?: string; detail?: Record<string, unknown> },
        cmd: Command,
      ) => {
        const q = await ctx.clientOf(cmd).reportExecution(id, o.outcome, {
          ...(o.resultDigest ? { resultDigest: o.resultDigest } : {}),
          ...(o.detail ? { detail: o.detail } : {}),
        });
        ctx.print(cmd, q, () => `Reported ${q.id}: ${o.outcome}\n`);
      },
    );
  return new Command('approvals')
    .description('use approvals: consume once, report the outcome')
    .addCommand(consume)
    .addCommand(report);
}
