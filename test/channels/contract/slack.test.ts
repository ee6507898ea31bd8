// The channel contract for `slack`: the fake Web API, interactivity requests form-encoded and
// signed with the signing secret exactly as Slack posts them.
import fc from 'fast-check';
import { ACTION } from '../../../src/channels/slack/blocks.ts';
import { SLACK_INBOUND_MAX_BYTES } from '../../../src/channels/slack/plugin.ts';
import { type FakeSlack, startFakeSlack } from '../../support/fakes/slack.ts';
import { click, slackBody } from '../../support/fakes/slack-requests.ts';
import type { ChannelHarness, Delivered } from './harness.ts';
import { runChannelContract, stringsOf } from './suite.ts';

const TOKEN = 'xoxb-contract-token-0001';
const SIGNING = 'contract-signing-secret-0001';
let slack: FakeSlack;

const found =
  (method: string) =>
  async (marker: string): Promise<Delivered> => {
    const call = await slack.waitFor(method, (c) => stringsOf(c.args).some((s) => s.includes(marker)));
    return { strings: stringsOf(call.args), raw: call };
  };

const slackHarness: ChannelHarness = {
  channel: 'ops-slack',
  async start() {
    slack = await startFakeSlack(TOKEN);
    return {
      lines: [
        '  ops-slack:',
        '    plugin: slack',
        '    config:',
        '      botTokenEnv: SLACK_BOT_TOKEN',
        '      signingSecretEnv: SLACK_SIGNING_SECRET',
        '      defaultRecipient: C0123456789',
        `      apiUrl: ${slack.apiUrl}`,
      ],
      env: { SLACK_BOT_TOKEN: TOKEN, SLACK_SIGNING_SECRET: SIGNING },
    };
  },
  close: () => slack.close(),
  delivered: found('chat.postMessage'),
  async reminded(marker) {
    const call = await slack.waitFor('chat.postMessage', (c) => {
      const text = String(c.args.text);
      return text.startsWith('Reminder') && text.includes(marker);
    });
    return { strings: stringsOf(call.args), raw: call };
  },
  resolved: {
    edited: found('chat.update'),
    says: {
      inbox: /Answered in the inbox by ops/,
      timedOut: /Timed out/,
      cancelled: (reason) => new RegExp(`Cancelled: ${reason}`),
      approvedWithChanges: /Answered in the inbox by ops: Approved with changes/,
    },
  },
  inbound: {
    answer(q, choice) {
      // An APPROVAL's buttons are Approve / Reject (`tai_approve_yes|no`).
      const yesNo = q.format === 'APPROVAL' ? ACTION.approve : ACTION.confirm;
      const payload =
        'confirm' in choice
          ? click(`${q.id}:${choice.confirm ? 1 : 0}`, `${yesNo}_${choice.confirm ? 'yes' : 'no'}`)
          : click(`${q.id}:${choice.select}`, `${ACTION.selectButton}_${choice.select}`);
      const { body, headers } = slackBody(SIGNING, { ...payload, response_url: slack.responseUrl });
      return { body: Buffer.from(body), headers };
    },
    by: 'U024BE7LH',
    signed: 'body',
    forged: fc
      .record({
        payload: fc.oneof(
          fc.jsonValue().map((v) => JSON.stringify(v)),
          fc.string({ maxLength: 80 }),
        ),
        ts: fc.oneof(fc.constant(String(Math.floor(Date.now() / 1000))), fc.string({ maxLength: 12 })),
        signature: fc.oneof(
          fc.stringMatching(/^v0=[0-9a-f]{64}$/),
          fc.string({ maxLength: 70 }).map((s) => encodeURIComponent(s)),
        ),
        withSignature: fc.boolean(),
      })
      .map(({ payload, ts, signature, withSignature }) => ({
        body: Buffer.from(new URLSearchParams({ payload }).toString()),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-slack-request-timestamp': encodeURIComponent(ts),
          ...(withSignature ? { 'x-slack-signature': signature } : {}),
        },
      })),
    maxBytes: SLACK_INBOUND_MAX_BYTES,
  },
};

runChannelContract(slackHarness);
