// `tai channels list`: the configured channels, their plugin and whether each is ready.
// `tai channels test <name>`: a real test message — a CONFIRM question asked through the channel
// and cancelled as soon as it is recorded, so the person sees it arrive and then turn into
// "Cancelled: test message" (the whole path: delivery, receipt, the edit after resolution).
// `tai channels setup <name>`: the provider's one-time set-up (Telegram's setWebhook, a Twilio
// number's webhook), run beside the server with its settings.
import { Command } from 'commander';
import type { ChannelDetail } from '../../client/types.ts';
import type { CommandContext } from '../context.ts';

export const TEST_CANCEL_REASON = 'test message';

function line(c: ChannelDetail, width: number): string {
  const state = c.ready ? 'ready' : `not ready: ${c.missing.join(', ')} missing`;
  const to = c.defaultRecipient ? `  default recipient ${c.defaultRecipient}` : '';
  return `${c.name.padEnd(width)}  ${(c.plugin ?? '-').padEnd(10)}  ${state}${to}\n`;
}

export function channelsCommand(ctx: CommandContext): Command {
  const list = new Command('list')
    .description('the channels the server can deliver questions through, and whether each is ready')
    .action(async (_o: unknown, cmd: Command) => {
      const channels = await ctx.clientOf(cmd).channelDetails();
      const width = Math.max(4, ...channels.map((c) => c.name.length));
      ctx.print(cmd, channels, () =>
        channels.length === 0
          ? 'No channels are registered.\n'
          : channels.map((c) => line(c, width)).join(''),
      );
    });

  const test = new Command('test')
    .description('send a test message through a channel (a question that is cancelled at once)')
    .argument('<name>', 'the channel name')
    .option('--recipient <recipient>', "who receives it (default: the channel's defaultRecipient)")
    .action(async (name: string, o: { recipient?: string }, cmd: Command) => {
      const client = ctx.clientOf(cmd);
      let id: string | null = null;
      let cancelling: Promise<unknown> = Promise.resolve();
      const outcome = await client
        .askUser(
          {
            text: `Test message from tai-interactions: channel ${name} reaches you. No answer is needed.`,
            format: 'CONFIRM',
            channel: name,
            ...(o.recipient ? { recipient: o.recipient } : {}),
            timeoutSeconds: 300,
          },
          {
            // Delivered and recorded: cancel it, which ends the wait with CANCELLED.
            onAsked: (q) => {
              id = q.id;
              cancelling = client.cancel(q.id, TEST_CANCEL_REASON).catch(() => undefined);
            },
          },
        )
        .catch((err: unknown) => err);
      await cancelling;
      // Not asked at all: delivery failed or the input was refused; the error says why.
      if (id === null) throw outcome;
      const sent = { channel: name, questionId: id, recipient: o.recipient ?? null };
      ctx.print(cmd, sent, () => `Sent a test message through ${name} (question ${id}, now cancelled).\n`);
    });

  const setup = new Command('setup')
    .description(
      "register the channel's inbound door with its provider (e.g. Telegram's webhook); run where the server runs, with its settings and manifest",
    )
    .argument('<name>', 'the channel name in the manifest')
    .action(async (name: string, _o: unknown, cmd: Command) => {
      if (!ctx.io.setupChannel) throw new Error('channel set-up is not available here');
      const line = await ctx.io.setupChannel(name);
      ctx.print(cmd, { channel: name, result: line }, () => `${line}\n`);
    });

  return new Command('channels')
    .description('delivery channels')
    .addCommand(list)
    .addCommand(test)
    .addCommand(setup);
}
