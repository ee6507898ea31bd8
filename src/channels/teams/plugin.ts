// The `teams` channel (API.md §9.1) on the Bot Framework, over plain REST and jose (DECISIONS:
// no botbuilder): Adaptive Cards sent as proactive messages through the connector (cards.ts,
// connector.ts), activities at the channel's inbound door authenticated by the Bot Framework JWT
// (auth.ts, inbound.ts), the conversation captured from the install event, and the card replaced
// after any resolution.
import { z } from 'zod';
import { cleanName } from '../../domain/display-name.ts';
import { answerLine, inboxOutcome } from '../answer-line.ts';
import { endpointUrl, envName } from '../config-schema.ts';
import type {
  ChannelContext,
  ChannelPlugin,
  ChannelQuestion,
  ChannelResponse,
  ClaimOutcome,
  DeliveryRecord,
  InboundEvent,
  InboundRequest,
} from '../types.ts';
import { BOT_FRAMEWORK_OPENID, createIncomingAuth, createOutgoingAuth, defaultTokenUrl } from './auth.ts';
import { cut, questionCard, resolvedCard } from './cards.ts';
import { cardActivity, createConnector, textActivity } from './connector.ts';
import { type Activity, interpret, parseActivity, tenantOf } from './inbound.ts';

/** Where proactive messages go for a conversation not seen since start (Teams' global connector). */
export const TEAMS_DEFAULT_SERVICE_URL = 'https://smba.trafficmanager.net/teams/';
/** A Teams conversation id: `19:…@thread.tacv2`, `a:…`, `29:…`. */
const RECIPIENT = /^[A-Za-z0-9]{1,4}:[^\s/?#\\]{1,400}$/;
/**
 * The inbound door's cap. A card submit carries every input's value: a flat FORM of many long
 * text fields (4,000 characters each) goes well past the callback cap.
 */
export const TEAMS_INBOUND_MAX_BYTES = 256 * 1024;
/**
 * The Bot Framework channel of Teams. The same bot may be reachable through others (Web Chat,
 * Direct Line), whose activities the same token check lets in: only Teams' answer Teams' cards.
 */
export const TEAMS_CHANNEL_ID = 'msteams';
/** Conversations and names remembered from activities, the oldest forgotten first. */
const REMEMBER_MAX = 10_000;

const config = z.strictObject({
  appIdEnv: envName,
  appPasswordEnv: envName,
  tenantId: z
    .string()
    .regex(/^[0-9a-fA-F-]{36}$/, { message: 'must be a tenant id (a GUID)' })
    .optional(),
  defaultRecipient: z.string().regex(RECIPIENT, { message: 'must be a Teams conversation id' }).optional(),
  openIdMetadataUrl: endpointUrl.optional(),
  tokenUrl: endpointUrl.optional(),
  serviceUrl: endpointUrl.optional(),
});
type TeamsConfig = z.output<typeof config>;

const OK: ChannelResponse = { status: 200 };

function remember(map: Map<string, string>, key: string, value: string): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > REMEMBER_MAX) map.delete(map.keys().next().value!);
}

const sameUrl = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/** The line that replaces the card's actions once the question is closed (plain text: a TextRun). */
export function resolvedLine(
  q: ChannelQuestion,
  channelName: string,
  names?: ReadonlyMap<string, string>,
): string {
  if (q.status === 'TIMED_OUT') return 'Timed out';
  if (q.status === 'CANCELLED')
    return q.cancelReason ? `Cancelled: ${cut(q.cancelReason, 500)}` : 'Cancelled';
  if (q.sensitive) return 'Answered';
  const by = q.answeredBy ?? '';
  const prefix = `${channelName}:`;
  if (by.startsWith(prefix)) {
    const userId = by.slice(prefix.length);
    return `Answered by ${names?.get(userId) ?? userId}: ${answerLine(q)}`;
  }
  if (by === 'callback') return `Answered on the answer page: ${answerLine(q)}`;
  return `Answered in the inbox by ${by || 'someone'}${inboxOutcome(q)}`;
}

/** The text of a reminder (plain text: Teams shows it as typed). */
export function reminderLine(q: ChannelQuestion): string {
  return `Reminder: still waiting for an answer to "${cut(q.text, 1000)}"`;
}

function threadReply(outcome: ClaimOutcome): string | null {
  switch (outcome.kind) {
    case 'recorded':
      // A quorum's vote that did not decide: the card stays, so the voter is told it counted.
      return outcome.question.status === 'PENDING' ? 'Your vote was recorded.' : null;
    case 'duplicate':
      return null;
    case 'invalid':
      return `That answer was not accepted: ${outcome.message}`;
    case 'closed':
      if (outcome.question.status === 'TIMED_OUT') return 'This question timed out.';
      if (outcome.question.status === 'CANCELLED') return 'This question was cancelled.';
      return 'This question was already answered.';
    default:
      return 'This question is no longer available.';
  }
}

function createTeamsChannel(cfg: TeamsConfig, ctx: ChannelContext) {
  const checkToken = createIncomingAuth(ctx, cfg.openIdMetadataUrl ?? BOT_FRAMEWORK_OPENID);
  const accessToken = createOutgoingAuth(ctx, {
    appIdEnv: cfg.appIdEnv,
    appPasswordEnv: cfg.appPasswordEnv,
    tokenUrl: cfg.tokenUrl ?? defaultTokenUrl(cfg.tenantId),
  });
  const connector = createConnector(ctx, accessToken);
  /** Conversation id → its service URL, captured from installs and every verified activity. */
  const conversations = new Map<string, string>();
  /** Provider user id → display name, for the line that says who answered. */
  const names = new Map<string, string>();
  const serviceUrlOf = (conversation: string) =>
    conversations.get(conversation) ?? cfg.serviceUrl ?? TEAMS_DEFAULT_SERVICE_URL;

  /** Tells the conversation something; best effort, logged when it fails. */
  async function say(a: Activity, text: string): Promise<void> {
    try {
      await connector.send(
        a.serviceUrl,
        a.conversation.id,
        textActivity(text, a.id ? { replyToId: a.id } : {}),
      );
    } catch (err) {
      ctx.logger.warn(
        { channel: ctx.name, err: err instanceof Error ? err.message : 'unknown' },
        'teams reply failed',
      );
    }
  }

  return {
    ...(cfg.defaultRecipient ? { defaultRecipient: cfg.defaultRecipient } : {}),
    needsRecipient: true,
    inboundMaxBytes: TEAMS_INBOUND_MAX_BYTES,
    checkRecipient(recipient: string): string | null {
      return RECIPIENT.test(recipient) ? null : 'must be a Teams conversation id (19:…, a:…)';
    },

    async deliver(question: ChannelQuestion, callbackUrl: string): Promise<DeliveryRecord> {
      const recipient = question.recipient ?? cfg.defaultRecipient;
      if (!recipient) throw new Error('no recipient and no defaultRecipient');
      const serviceUrl = serviceUrlOf(recipient);
      const activity = await connector.send(
        serviceUrl,
        recipient,
        cardActivity(questionCard(question, callbackUrl)),
      );
      // `channelId` and `conversation` are where a submit must come from to answer (origin below).
      return { recipient, conversation: recipient, activity, serviceUrl, channelId: TEAMS_CHANNEL_ID };
    },

    async inbound(req: InboundRequest): Promise<InboundEvent> {
      const appId = ctx.secret(cfg.appIdEnv);
      if (!appId) return { kind: 'reject', status: 500, reason: `${cfg.appIdEnv} is not set` };
      let parsed: Activity | null | undefined;
      // Parsed only once the token's signature has been verified.
      const activity = () => {
        if (parsed === undefined) parsed = parseActivity(req.rawBody);
        return parsed;
      };
      const check = await checkToken(req.headers.authorization, appId, () => activity()?.channelId ?? null);
      if (!check.ok) return { kind: 'reject', status: check.status, reason: `teams ${check.reason}` };
      const a = activity();
      if (a === null) return { kind: 'reject', status: 400, reason: 'not a Bot Framework activity' };
      // The token names the connector that sent it: an activity claiming another is refused.
      if (check.serviceUrl === null || !sameUrl(check.serviceUrl, a.serviceUrl)) {
        return { kind: 'reject', status: 401, reason: 'teams token is for another service URL' };
      }
      if (cfg.tenantId !== undefined && tenantOf(a)?.toLowerCase() !== cfg.tenantId.toLowerCase()) {
        return { kind: 'reject', status: 403, reason: 'teams activity from another tenant' };
      }
      // Another Bot Framework channel's conversation is no place to send Teams messages to.
      const fromTeams = a.channelId === TEAMS_CHANNEL_ID;
      if (fromTeams) remember(conversations, a.conversation.id, a.serviceUrl);
      const event = interpret(a);
      if (event === null)
        return { kind: 'reject', status: 400, reason: 'not a card submit this channel sent' };
      if (event.kind === 'ignore') return { kind: 'ignore', response: OK };
      if (event.kind === 'install' && !fromTeams) return { kind: 'ignore', response: OK };
      if (event.kind === 'install') {
        ctx.logger.info(
          { channel: ctx.name, conversation: a.conversation.id },
          'teams conversation captured',
        );
        // The operator needs this id as a recipient; the answer to Teams need not wait for it.
        void say(a, `tai-interactions can ask questions here. This conversation's id: ${a.conversation.id}`);
        return { kind: 'ignore', response: OK };
      }
      // Cleaned where it enters (API.md §19): the card's "Answered by" line shows it.
      const name = fromTeams ? cleanName(event.name) : '';
      if (name !== '') remember(names, event.by, name);
      return {
        kind: 'answer',
        question: { id: event.questionId },
        by: event.by,
        answer: event.answer,
        // A card's submit answers only from the conversation the card went to, through Teams: its
        // value copied into another conversation, or sent over Web Chat, is refused by the engine.
        origin: { channelId: a.channelId, conversation: a.conversation.id },
        respond: async (outcome) => {
          // A decisive answer replaces the card (onResolved); a vote or a refusal is said in the
          // thread (in Teams only: another channel's conversation is told nothing).
          const text = threadReply(outcome);
          if (text !== null && fromTeams) await say(a, text);
          return OK;
        },
        dedupe: { id: `activity:${a.id}`, repeat: OK },
      };
    },

    // An escalation REMIND (API.md §18): a plain-text reply to the question's card, in its
    // thread in a channel; the card above keeps its inputs, and the reply is never a card that
    // would stay live after the card is replaced.
    async remind(question: ChannelQuestion, delivery: DeliveryRecord): Promise<void> {
      const { conversation, activity, serviceUrl } = delivery;
      if (
        typeof conversation !== 'string' ||
        typeof activity !== 'string' ||
        typeof serviceUrl !== 'string'
      ) {
        throw new Error('the delivery record names no teams message');
      }
      await connector.reply(serviceUrl, conversation, activity, textActivity(reminderLine(question)));
    },

    async onResolved(question: ChannelQuestion, delivery: DeliveryRecord | null): Promise<void> {
      const { conversation, activity, serviceUrl } = delivery ?? {};
      if (typeof conversation !== 'string' || typeof activity !== 'string' || typeof serviceUrl !== 'string')
        return;
      const line = resolvedLine(question, ctx.name, names);
      await connector.update(serviceUrl, conversation, activity, cardActivity(resolvedCard(question, line)));
    },

    /** The values the Teams app manifest and the Azure Bot need; nothing to call. */
    async setup(): Promise<string> {
      const appId = ctx.secret(cfg.appIdEnv);
      const host = ctx.publicBaseUrl ? new URL(ctx.publicBaseUrl).host : '';
      return [
        `Teams app manifest values for ${ctx.name}:`,
        `  bots[0].botId: ${appId ?? `(set ${cfg.appIdEnv})`}`,
        '  bots[0].scopes: ["personal", "team", "groupChat"]',
        `  validDomains: ["${host}"]`,
        `Azure Bot messaging endpoint: ${ctx.inboundUrl}`,
      ].join('\n');
    },
  };
}

export const teamsPlugin: ChannelPlugin<typeof config> = {
  name: 'teams',
  config,
  create: createTeamsChannel,
};
