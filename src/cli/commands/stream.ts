// `tai interactions stream`: the live feed, one line per question, until Ctrl-C.
import { Command } from 'commander';
import type { CommandContext } from '../context.ts';
import { eventLines } from '../format.ts';

export function streamCommand(ctx: CommandContext): Command {
  return new Command('stream')
    .description('follow the live feed of pending questions until interrupted (Ctrl-C)')
    .action(async (_o: unknown, cmd: Command) => {
      const { io } = ctx;
      const asJson = ctx.asJson(cmd);
      // One note per outage on stderr (stdout stays the feed); the SNAPSHOT after it resyncs.
      let down = false;
      const feed = ctx.clientOf(cmd).subscribeInbox({
        onReconnect: () => {
          if (!down) io.err('(the feed dropped; reconnecting, a fresh SNAPSHOT follows)\n');
          down = true;
        },
      });
      const stopListening = io.onInterrupt(() => feed.close());
      // After an event with `more`, the next one is the backlog's next question, not a change.
      let backlog = false;
      try {
        for await (const ev of feed) {
          down = false;
          io.out(asJson ? `${JSON.stringify(ev)}\n` : eventLines(ev, new Date(), backlog));
          backlog = ev.more;
        }
      } finally {
        stopListening();
        feed.close();
      }
    });
}
