// Whatever arrives at the Slack inbound door, the plugin never throws, and nothing but a request
// signed with the signing secret (within the window) can become an answer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { slackPlugin } from '../../src/channels/slack/plugin.ts';
import type { AnswerFormat, InboundRequest } from '../../src/channels/types.ts';
import { ANSWER_FORMATS } from '../../src/domain/question.ts';
import { channelContext, channelQuestion } from '../support/fakes/channel-context.ts';
import { click, signSlack, slackRequest } from '../support/fakes/slack-requests.ts';

const SIGNING = 'signing-secret-for-properties';
const NOW = 1_800_000_000_000;
const channel = slackPlugin.create(
  slackPlugin.config.parse({ botTokenEnv: 'T', signingSecretEnv: 'S', apiUrl: 'http://127.0.0.1:9/api/' }),
  channelContext('ops-slack', { T: 'xoxb-x', S: SIGNING }),
);

const questionId = fc.oneof(fc.constant('q_1'), fc.string({ maxLength: 12 }));
const actionId = fc.constantFrom(
  'tai_confirm_yes',
  'tai_select_1',
  'tai_select_menu',
  'tai_text',
  'tai_form_open',
  'tai_link',
  'other',
);
// Payloads shaped like Slack's, with every field allowed to be wrong.
const payload = fc.oneof(
  fc.record(
    {
      type: fc.constantFrom('block_actions', 'view_submission', 'shortcut'),
      user: fc.oneof(fc.record({ id: fc.string({ maxLength: 20 }) }), fc.anything()),
      trigger_id: fc.string({ maxLength: 10 }),
      actions: fc.array(
        fc.record(
          {
            action_id: actionId,
            block_id: fc.oneof(fc.constant('tai:q_1'), fc.string({ maxLength: 10 })),
            value: fc.oneof(
              questionId.map((id) => `${id}:${1}`),
              fc.string({ maxLength: 12 }),
            ),
            selected_option: fc.record({ value: fc.string({ maxLength: 12 }) }),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 3 },
      ),
      view: fc.record(
        {
          callback_id: fc.constantFrom('tai_form', 'x'),
          private_metadata: questionId,
          state: fc.record({
            values: fc.dictionary(
              fc.string({ maxLength: 6 }),
              fc.dictionary(fc.string({ maxLength: 3 }), fc.anything()),
            ),
          }),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: ['type'] },
  ),
  fc.jsonValue(),
);
const body = fc.oneof(
  payload.map((p) => new URLSearchParams({ payload: JSON.stringify(p) }).toString()),
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1')),
);
const headerValue = fc.oneof(
  fc.constant(undefined),
  fc.string({ maxLength: 80 }),
  fc.array(fc.string({ maxLength: 10 }), { maxLength: 2 }),
);

function request(raw: string, headers: InboundRequest['headers']): InboundRequest {
  return { rawBody: Buffer.from(raw, 'utf8'), headers, url: 'https://tai.example/x', now: NOW };
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

describe('slack inbound (property)', () => {
  it('never throws and never yields anything but a 401 without a valid signature', async () => {
    await fc.assert(
      fc.asyncProperty(body, headerValue, headerValue, async (raw, sig, ts) => {
        const ev = await channel.inbound!(
          request(raw, { 'x-slack-signature': sig, 'x-slack-request-timestamp': ts }),
        );
        expect(ev).toMatchObject({ kind: 'reject', status: 401 });
      }),
      { numRuns: 300 },
    );
  });

  it('a valid signature with one character of the body or signature changed is a 401', async () => {
    await fc.assert(
      fc.asyncProperty(body, fc.nat(), fc.boolean(), async (raw, at, inSignature) => {
        const ts = String(NOW / 1000);
        let signature = signSlack(SIGNING, Number(ts), Buffer.from(raw, 'utf8'));
        let sent = raw;
        if (inSignature || raw.length === 0) {
          const i = 3 + (at % (signature.length - 3));
          signature = `${signature.slice(0, i)}${signature[i] === 'a' ? 'b' : 'a'}${signature.slice(i + 1)}`;
        } else {
          const i = at % raw.length;
          sent = `${raw.slice(0, i)}${raw[i] === 'a' ? 'b' : 'a'}${raw.slice(i + 1)}`;
        }
        const ev = await channel.inbound!(
          request(sent, { 'x-slack-signature': signature, 'x-slack-request-timestamp': ts }),
        );
        expect(ev).toMatchObject({ kind: 'reject', status: 401 });
      }),
      { numRuns: 200 },
    );
  });

  it('validly signed bodies of any shape: a declared outcome, and answers that never throw', async () => {
    await fc.assert(
      fc.asyncProperty(body, ANY_QUESTION, async (raw, shape) => {
        const ts = NOW / 1000;
        const ev = await channel.inbound!(
          request(raw, {
            'x-slack-signature': signSlack(SIGNING, ts, Buffer.from(raw, 'utf8')),
            'x-slack-request-timestamp': String(ts),
          }),
        );
        expect(['answer', 'show', 'ignore', 'reject']).toContain(ev.kind);
        if (ev.kind === 'reject') expect(ev.status).toBe(400);
        if (ev.kind === 'answer') {
          expect(typeof ev.by).toBe('string');
          ev.answer(channelQuestion(shape as never));
          const res = await ev.respond({ kind: 'recorded', question: channelQuestion(), delivery: null });
          expect(res.status).toBe(200);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("a button's answerFor is what its answer gives every question of that format, and no other", async () => {
    const FORMATS: readonly AnswerFormat[] = ANSWER_FORMATS;
    const action = {
      name: 'deploy',
      summary: null,
      arguments: { v: 2 },
      argumentsSchema: null,
      editable: false,
      digest: 'sha256:x',
    };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          'tai_confirm_yes',
          'tai_confirm_no',
          'tai_approve_yes',
          'tai_approve_no',
          'tai_select_0',
          'tai_text',
        ),
        fc.constantFrom(0, 1, 2),
        ANY_QUESTION,
        fc.constantFrom(...FORMATS),
        async (actionId, index, shape, format) => {
          const payload = click(`q_1:${index}`, actionId);
          // A text field names its question by its block.
          if (actionId === 'tai_text') payload.actions[0]!.block_id = 'tai:q_1';
          const ev = await channel.inbound!(slackRequest(SIGNING, payload, { now: NOW }));
          const button = actionId.startsWith('tai_confirm') || actionId.startsWith('tai_approve');
          if (ev.kind !== 'answer') {
            // Only a yes/no button's index past 1 is no answer at all.
            expect(button && index > 1).toBe(true);
            return;
          }
          if (!button) {
            expect(ev.answerFor).toBeUndefined();
            return;
          }
          const given = ev.answerFor!;
          expect(given.format).toBe(actionId.startsWith('tai_confirm') ? 'CONFIRM' : 'APPROVAL');
          const q = channelQuestion({
            ...(shape as object),
            format,
            action: format === 'APPROVAL' ? action : null,
          });
          expect(ev.answer(q)).toEqual(format === given.format ? given.value : undefined);
        },
      ),
      { numRuns: 300 },
    );
  });
});
