// A Teams card within Teams' message size (about 100 KB counted as UTF-16; 80 KB advised): a card
// that would weigh more (a FORM of fifty enums of fifty values) is sent as the question and a link
// to the answer page, so it is delivered instead of refused with 413. The loopback fake refuses a
// message over the limit as Teams does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_MAX_UTF16_BYTES, questionCard, utf16Bytes } from '../../src/channels/teams/cards.ts';
import { teamsPlugin } from '../../src/channels/teams/plugin.ts';
import { channelContext, channelQuestion } from '../support/fakes/channel-context.ts';
import { type FakeTeams, startFakeTeams } from '../support/fakes/teams-api.ts';
import { TEAMS_CONVERSATION } from '../support/fakes/teams-requests.ts';

const APP_ID = '00000000-0000-0000-0000-00000000512e';
const PASSWORD = 'teams-size-password-0001';
const CALLBACK = 'https://tai.example/api/interactions/callback/TICKET-size';
const SENDS = /^\/v3\/conversations\/[^/]+\/activities$/;
let teams: FakeTeams;

beforeAll(async () => {
  teams = await startFakeTeams(APP_ID, PASSWORD);
});
afterAll(() => teams.close());

function channel() {
  const config = teamsPlugin.config.parse({
    appIdEnv: 'ID',
    appPasswordEnv: 'PW',
    defaultRecipient: TEAMS_CONVERSATION,
    openIdMetadataUrl: teams.openIdMetadataUrl,
    tokenUrl: teams.tokenUrl,
    serviceUrl: teams.serviceUrl,
  });
  return teamsPlugin.create(config, channelContext('ops-teams', { ID: APP_ID, PW: PASSWORD }));
}

/** Fifty enum fields of fifty values each: a flat FORM whose whole card is about 235 KB. */
const bigSchema = {
  type: 'object',
  properties: Object.fromEntries(
    Array.from({ length: 50 }, (_, f) => [
      `field_${f}`,
      { type: 'string', enum: Array.from({ length: 50 }, (_, v) => `value number ${v} of field ${f}`) },
    ]),
  ),
};

type Card = { body: { inlines?: { text: string }[] }[]; actions?: Record<string, unknown>[] };
const cardOf = (activity: Record<string, unknown>) =>
  (activity.attachments as { content: Card }[])[0]!.content;

describe('teams card size', () => {
  it('a FORM whose card would be ~235 KB falls back to the "Open form" link and is delivered', async () => {
    const q = channelQuestion({ recipient: TEAMS_CONVERSATION, format: 'FORM', schema: bigSchema });
    const receipt = await channel().deliver(q, CALLBACK);
    expect(receipt.activity).toMatch(/^1:\d+$/);
    const call = teams.callsTo('POST', SENDS).at(-1)!;
    const card = cardOf(call.body);
    expect(card.body).toEqual([{ type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: q.text }] }]);
    expect(card.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Open form', url: CALLBACK }]);
    expect(utf16Bytes(call.body)).toBeLessThanOrEqual(CARD_MAX_UTF16_BYTES + 1024);
  });

  it('a card at the budget is sent whole; one UTF-16 unit past it falls back to the link', () => {
    const base = channelQuestion({ recipient: TEAMS_CONVERSATION, format: 'TEXT', text: '' });
    const room = CARD_MAX_UTF16_BYTES / 2 - JSON.stringify(questionCard(base, CALLBACK)).length;
    const at = questionCard({ ...base, text: 'a'.repeat(room) }, CALLBACK) as Card;
    expect(utf16Bytes(at)).toBe(CARD_MAX_UTF16_BYTES);
    expect(at.actions).toEqual([expect.objectContaining({ type: 'Action.Submit', title: 'Send' })]);
    const past = questionCard({ ...base, text: 'a'.repeat(room + 1) }, CALLBACK) as Card;
    expect(past.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Answer in the browser', url: CALLBACK }]);
    expect(utf16Bytes(past)).toBeLessThan(CARD_MAX_UTF16_BYTES);
  });

  it('a fallback card keeps an EXTERNAL question’s own link', () => {
    const link = `https://forms.example/${'p'.repeat(8000)}`;
    const q = channelQuestion({ format: 'EXTERNAL', link, text: 'x'.repeat(40_000) });
    const card = questionCard(q, CALLBACK) as Card;
    expect(card.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Open', url: link }]);
    expect(card.body[0]!.inlines![0]!.text).toHaveLength(4000);
    expect(utf16Bytes(card)).toBeLessThan(CARD_MAX_UTF16_BYTES);
  });
});
