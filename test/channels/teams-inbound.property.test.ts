// Whatever arrives at the Teams inbound door, the plugin never throws, and nothing but an activity
// carrying a Bot Framework token from the OpenID metadata's keys can become an answer.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamsPlugin } from '../../src/channels/teams/plugin.ts';
import type { ChannelInstance, InboundRequest } from '../../src/channels/types.ts';
import { ANSWER_FORMATS } from '../../src/domain/question.ts';
import { channelContext, channelQuestion } from '../support/fakes/channel-context.ts';
import { type FakeTeams, startFakeTeams } from '../support/fakes/teams-api.ts';

const APP_ID = '00000000-0000-0000-0000-00000000b07a';
let teams: FakeTeams;
let channel: ChannelInstance;
let token: string;

beforeAll(async () => {
  teams = await startFakeTeams(APP_ID, 'pw');
  channel = teamsPlugin.create(
    teamsPlugin.config.parse({
      appIdEnv: 'A',
      appPasswordEnv: 'P',
      openIdMetadataUrl: teams.openIdMetadataUrl,
      tokenUrl: teams.tokenUrl,
      serviceUrl: teams.serviceUrl,
    }),
    channelContext('ops-teams', { A: APP_ID, P: 'pw' }),
  );
  token = await teams.token();
});
afterAll(() => teams.close());

const questionId = fc.oneof(fc.constant('q_1'), fc.string({ maxLength: 12 }));
const value = fc.oneof(
  fc.record(
    {
      tai: fc.oneof(fc.constantFrom('c', 's', 'm', 't', 'f', 'a'), fc.string({ maxLength: 2 })),
      q: questionId,
      i: fc.oneof(fc.integer({ min: -1, max: 5 }), fc.anything()),
      tai_text: fc.oneof(fc.string({ maxLength: 20 }), fc.anything()),
      tai_choice: fc.oneof(fc.constantFrom('0', '1', '99'), fc.anything()),
      f_0: fc.anything(),
      f_1: fc.string({ maxLength: 5 }),
    },
    { requiredKeys: [] },
  ),
  fc.anything(),
);
// Activities shaped like the Bot Framework's, with every field allowed to be wrong.
const activity = () =>
  fc.oneof(
    fc.record(
      {
        type: fc.constantFrom('message', 'conversationUpdate', 'installationUpdate', 'invoke', 'typing'),
        id: fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.anything()),
        serviceUrl: fc.oneof(fc.constant(teams.serviceUrl), fc.string({ maxLength: 20 })),
        channelId: fc.constantFrom('msteams', 'slack', ''),
        from: fc.oneof(
          fc.record({ id: fc.string({ minLength: 1, maxLength: 8 }), name: fc.string({ maxLength: 8 }) }),
          fc.anything(),
        ),
        recipient: fc.record({ id: fc.constantFrom('28:bot', 'x') }),
        conversation: fc.oneof(fc.record({ id: fc.string({ minLength: 1, maxLength: 12 }) }), fc.anything()),
        membersAdded: fc.array(fc.record({ id: fc.constantFrom('28:bot', 'y') }), { maxLength: 2 }),
        action: fc.constantFrom('add', 'remove'),
        value,
      },
      { requiredKeys: ['type'] },
    ),
    fc.jsonValue(),
  );
const body = () =>
  fc.oneof(
    activity().map((a) => JSON.stringify(a)),
    fc.string({ maxLength: 200 }),
    fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1')),
  );
const authorization = fc.oneof(
  fc.constant(undefined),
  fc.string({ maxLength: 80 }),
  fc.string({ maxLength: 300 }).map((s) => `Bearer ${s}`),
  fc
    .tuple(fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 }))
    .map(
      ([a, b, c]) =>
        `Bearer ${Buffer.from(a).toString('base64url')}.${Buffer.from(b).toString('base64url')}.${c}`,
    ),
  fc.array(fc.string({ maxLength: 10 }), { maxLength: 2 }),
);

function request(raw: string, auth: string | string[] | undefined): InboundRequest {
  return {
    rawBody: Buffer.from(raw, 'utf8'),
    headers: { authorization: auth },
    url: 'https://tai.example/x',
    now: Date.now(),
  };
}

const ANY_QUESTION = fc.record({
  format: fc.constantFrom(...ANSWER_FORMATS),
  options: fc.option(fc.array(fc.string(), { maxLength: 4 })),
  schema: fc.option(
    fc.oneof(
      fc.constant({ type: 'object', properties: { a: { type: 'integer' }, b: { enum: [1, 'x'] } } }),
      fc.object(),
    ),
  ),
});

describe('teams inbound (property)', () => {
  it('never throws and never yields anything but a 401 without a valid token', async () => {
    await fc.assert(
      fc.asyncProperty(body(), authorization, async (raw, auth) => {
        expect(await channel.inbound!(request(raw, auth))).toMatchObject({ kind: 'reject', status: 401 });
      }),
      { numRuns: 300 },
    );
  });

  it('a valid token with one character changed is a 401', async () => {
    await fc.assert(
      fc.asyncProperty(body(), fc.nat(), async (raw, at) => {
        // Not the last character: its low bits are base64 padding, which decoders ignore.
        const i = at % (token.length - 1);
        const changed = `${token.slice(0, i)}${token[i] === 'A' ? 'B' : 'A'}${token.slice(i + 1)}`;
        expect(await channel.inbound!(request(raw, `Bearer ${changed}`))).toMatchObject({
          kind: 'reject',
          status: 401,
        });
      }),
      { numRuns: 200 },
    );
  });

  it('with a valid token, bodies of any shape: a declared outcome, and answers that never throw', async () => {
    await fc.assert(
      fc.asyncProperty(body(), ANY_QUESTION, async (raw, shape) => {
        const ev = await channel.inbound!(request(raw, `Bearer ${token}`));
        expect(['answer', 'ignore', 'reject']).toContain(ev.kind);
        if (ev.kind === 'reject') expect([400, 401]).toContain(ev.status);
        if (ev.kind === 'answer') {
          expect(typeof ev.by).toBe('string');
          expect(ev.dedupe?.id).toMatch(/^activity:/);
          ev.answer(channelQuestion(shape as never));
          const res = await ev.respond({ kind: 'recorded', question: channelQuestion(), delivery: null });
          expect(res.status).toBe(200);
        }
      }),
      { numRuns: 300 },
    );
  });
});
