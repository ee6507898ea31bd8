// API.md §22 from a terminal: `tai delegate` (out of office: set, show, end), `tai quiet`
// (quiet hours and digest), `tai link` (channel recipients linked to you: list, ask, end), and
// `tai interactions claim|unclaim <id>`.
import { Command, InvalidArgumentError, Option } from 'commander';
import type { CommandContext } from '../context.ts';

/** "2026-01-31T18:00:00Z", or a number of days ("7d") from now. */
function parseUntil(value: string): string {
  const days = /^(\d{1,3})d$/.exec(value);
  if (days) return new Date(Date.now() + Number(days[1]) * 24 * 3600_000).toISOString();
  if (Number.isNaN(Date.parse(value))) {
    throw new InvalidArgumentError(
      'expected an RFC 3339 date-time (2026-01-31T18:00:00Z) or a number of days (7d)',
    );
  }
  return value;
}

export function delegateCommand(ctx: CommandContext): Command {
  return new Command('delegate')
    .description('hand your questions to someone while you are away (at most 90 days), or show or end it')
    .option('--to <identity>', 'who receives your questions meanwhile')
    .option('--until <time>', 'when it ends: an RFC 3339 date-time, or days from now (7d)', parseUntil)
    .option('--reason <text>', 'why, shown to the delegate')
    .option('--end', 'end your delegation now')
    .action(async (o: { to?: string; until?: string; reason?: string; end?: boolean }, cmd: Command) => {
      const client = ctx.clientOf(cmd);
      if (o.end) {
        const ended = await client.endDelegation();
        ctx.print(cmd, { ended }, () => (ended ? 'Delegation ended.\n' : 'No delegation was in force.\n'));
        return;
      }
      if (o.to || o.until) {
        // Thrown from an action, commander's InvalidArgumentError is not printed: cmd.error says it.
        if (!o.to || !o.until) cmd.error('error: --to and --until go together', { exitCode: 2 });
        const d = await client.setDelegation(o.to, o.until, o.reason);
        ctx.print(cmd, d, () => `Your questions go to ${d.to} until ${d.until}.\n`);
        return;
      }
      const s = await client.peopleSettings();
      ctx.print(cmd, s, () => {
        const mine = s.delegation
          ? `Your questions go to ${s.delegation.to} until ${s.delegation.until}.\n`
          : 'No delegation.\n';
        const theirs = s.actingFor.length > 0 ? `You act for: ${s.actingFor.join(', ')}.\n` : '';
        return mine + theirs;
      });
    });
}

export function quietCommand(ctx: CommandContext): Command {
  return new Command('quiet')
    .description('quiet hours and digests: notifications held meanwhile, then sent as one digest')
    .option('--from <HH:MM>', 'quiet hours start')
    .option('--to <HH:MM>', 'quiet hours end')
    .option(
      '--time-zone <iana>',
      'the time zone of --from and --to',
      Intl.DateTimeFormat().resolvedOptions().timeZone,
    )
    .addOption(new Option('--digest <kind>', 'batch held notifications').choices(['NONE', 'HOURLY', 'DAILY']))
    .option('--off', 'no quiet hours')
    .action(
      async (
        o: {
          from?: string;
          to?: string;
          timeZone: string;
          digest?: 'NONE' | 'HOURLY' | 'DAILY';
          off?: boolean;
        },
        cmd: Command,
      ) => {
        const client = ctx.clientOf(cmd);
        const quietHours =
          o.off || !o.from || !o.to ? null : { from: o.from, to: o.to, timeZone: o.timeZone };
        const prefs = await client.setNotificationPrefs({ quietHours, digest: o.digest ?? 'NONE' });
        ctx.print(cmd, prefs, () =>
          prefs.quietHours
            ? `Quiet ${prefs.quietHours.from}–${prefs.quietHours.to} (${prefs.quietHours.timeZone}), digest ${prefs.digest}.\n`
            : `No quiet hours, digest ${prefs.digest}.\n`,
        );
      },
    );
}

export function linkCommand(ctx: CommandContext): Command {
  return new Command('link')
    .description(
      'link a channel recipient (your Slack user id, Telegram chat, phone number) to you, so your quiet hours hold it; with no argument, list your links',
    )
    .argument('[channel]', 'the channel, as the manifest names it')
    .argument('[recipient]', 'your id on that channel')
    .option('--remove', 'end the link instead')
    .action(
      async (
        channel: string | undefined,
        recipient: string | undefined,
        o: { remove?: boolean },
        cmd: Command,
      ) => {
        const client = ctx.clientOf(cmd);
        if (channel === undefined) {
          if (o.remove) cmd.error('error: --remove needs the channel and the recipient', { exitCode: 2 });
          const links = await client.channelLinks();
          ctx.print(cmd, links, () =>
            links.length === 0
              ? 'No linked channels.\n'
              : links
                  .map(
                    (l) => `${l.channel}  ${l.recipient}  confirmed by ${l.confirmedBy} at ${l.linkedAt}\n`,
                  )
                  .join(''),
          );
          return;
        }
        if (recipient === undefined)
          cmd.error('error: give the recipient after the channel', { exitCode: 2 });
        if (o.remove) {
          const ended = await client.unlinkChannel(channel, recipient);
          ctx.print(cmd, { ended }, () => (ended ? 'Unlinked.\n' : 'You had no such link.\n'));
          return;
        }
        // The link is made by the recipient's "yes" on that channel, not by this command.
        const q = await client.linkChannel(channel, recipient);
        ctx.print(
          cmd,
          q,
          () =>
            `Asked ${recipient} on ${channel} to confirm (question ${q.id}). Answer yes there before ${q.timeoutAt}; \`tai link\` then lists it.\n`,
        );
      },
    );
}

export function claimCommand(ctx: CommandContext): Command {
  return new Command('claim')
    .description(
      'mark a pending question as being looked at by you (shown to everyone; lapses after 15 minutes)',
    )
    .argument('<id>', 'the question id')
    .option('--release', 'end the claim instead')
    .action(async (id: string, o: { release?: boolean }, cmd: Command) => {
      const client = ctx.clientOf(cmd);
      const q = o.release ? await client.unclaimQuestion(id) : await client.claimQuestion(id);
      ctx.print(cmd, q, () =>
        o.release
          ? `Released ${q.id}\n`
          : `Claimed ${q.id} (by ${(q as { claimedBy?: string | null }).claimedBy})\n`,
      );
    });
}
