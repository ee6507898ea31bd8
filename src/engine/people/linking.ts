// Linking a channel recipient to a person (API.md §22), so that their quiet hours hold that
// recipient's deliveries too. The person names a channel and a recipient (their Slack user id,
// their Telegram chat, their phone number); the server asks that recipient, on that channel, a
// CONFIRM question that carries `linkFor` (the person). The link is recorded by the one answer
// path (answers/record.ts) when that question is answered "yes" from its own channel: the answer
// proves the person reads there. Nothing is linked here; this only checks and asks.
import { canAnswer } from '../../domain/access.ts';
import { DomainError } from '../../domain/errors.ts';
import { exceedsChars, isBlank, LABEL_MAX_CHARS } from '../../domain/limits.ts';
import type { Principal } from '../../domain/principal.ts';
import type { QuestionRecord } from '../../domain/question.ts';
import { listChoices } from '../../domain/values.ts';
import type { Asking } from '../asking.ts';
import type { EngineContext } from '../context.ts';
import { type ChannelLink, type ChannelLinks, LINK_QUESTION_SECONDS, MAX_LINKS } from './channel-links.ts';
import type { NameOf } from './names.ts';

export interface ChannelLinking {
  /** Asks `recipient` on `channel` to confirm the link; the pending link question. */
  link(p: Principal, channel: unknown, recipient: unknown): Promise<QuestionRecord>;
  /** Ends the caller's link of `recipient`; false when they had none. */
  unlink(p: Principal, channel: unknown, recipient: unknown): Promise<boolean>;
  /** The caller's links, newest first. */
  list(p: Principal): Promise<ChannelLink[]>;
}

function forbidden(): DomainError {
  return new DomainError('FORBIDDEN', 'only people who answer questions link channels');
}

/** A bounded, non-blank string argument, or BAD_USER_INPUT at `field`. */
function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || isBlank(value))
    throw new DomainError('BAD_USER_INPUT', `${field} must not be blank`, field);
  if (exceedsChars(value, LABEL_MAX_CHARS)) {
    throw new DomainError('BAD_USER_INPUT', `${field} must be at most ${LABEL_MAX_CHARS} characters`, field);
  }
  return value;
}

/** What the recipient is asked: who asked, and what answering yes does. */
export function linkQuestionText(who: string, channel: string): string {
  return (
    `${who} asked to link this ${channel} recipient to their tai-interactions profile, so their quiet ` +
    'hours hold messages here. Answer yes only if that was you.'
  );
}

export function createChannelLinking(
  ctx: Pick<EngineContext, 'channels'>,
  links: ChannelLinks,
  ask: Asking['ask'],
  nameOf: NameOf,
): ChannelLinking {
  /**
   * The channels a link can be asked on: addressed ones (they take a recipient) with an inbound
   * door (the "yes" must come back from the channel). A webhook channel is neither.
   */
  function linkable(): string[] {
    return [...ctx.channels.names()]
      .filter((name) => {
        const instance = ctx.channels.instance?.(name);
        return Boolean(instance?.needsRecipient && instance.inbound);
      })
      .sort();
  }

  function checkedChannel(value: unknown): string {
    const channel = text(value, 'channel');
    const names = linkable();
    if (!names.includes(channel)) {
      const why = ctx.channels.names().has(channel)
        ? `channel ${channel} cannot be linked`
        : 'unknown channel';
      throw new DomainError('BAD_USER_INPUT', `${why} (allowed: ${listChoices(names)})`, 'channel');
    }
    return channel;
  }

  return {
    async link(p, channelArg, recipientArg) {
      if (!canAnswer(p)) throw forbidden();
      const channel = checkedChannel(channelArg);
      const recipient = text(recipientArg, 'recipient');
      const problem = ctx.channels.instance?.(channel)?.checkRecipient?.(recipient) ?? null;
      if (problem !== null) throw new DomainError('BAD_USER_INPUT', `recipient ${problem}`, 'recipient');
      // Counted now as well as at confirmation: asking a recipient that could never be linked is noise.
      const mine = await links.list(p.id);
      const already = mine.some((l) => l.channel === channel && l.recipient === recipient);
      if (!already && mine.length >= MAX_LINKS) {
        throw new DomainError('LIMIT_EXCEEDED', `at most ${MAX_LINKS} linked channel recipients per person`);
      }
      const who = (await nameOf(p.id)) ?? p.id;
      const asked = await ask(
        p,
        {
          text: linkQuestionText(who, channel),
          format: 'CONFIRM',
          channel,
          recipient,
          timeoutSeconds: LINK_QUESTION_SECONDS,
        },
        { holdSeconds: 0, linkFor: p.id },
      );
      return asked.question;
    },

    async unlink(p, channelArg, recipientArg) {
      if (!canAnswer(p)) throw forbidden();
      // Any channel name: a link outlives its channel's removal from the manifest, and ends here.
      return links.unlink(p.id, text(channelArg, 'channel'), text(recipientArg, 'recipient'));
    },

    async list(p) {
      if (!canAnswer(p)) throw forbidden();
      return links.list(p.id);
    },
  };
}
