// The settings page's Linked channels section (API.md §22) in real headless Chromium against a
// real server on Redis with a Slack channel on the loopback fake Slack Web API: a refused
// recipient is shown as the server words it; "Send the question" makes the server post the link
// question to that Slack user and says so; the "yes" clicked in Slack (a signed click on the
// inbound door) links it, and the section lists it after a reload; Unlink ends it (the server's
// list is empty after). Nothing sleeps: every wait ends on a selector or a recorded call.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION } from '../../src/channels/slack/blocks.ts';
import { manifestOf, slackChannelLines } from '../support/channel-server.ts';
import { type FakeSlack, startFakeSlack } from '../support/fakes/slack.ts';
import { click, postSlack } from '../support/fakes/slack-requests.ts';
import {
  buildInbox,
  gql,
  launchChromium,
  openPage,
  openSettings,
  type RunningServer,
  seriousViolations,
  settingsSection,
  signIn,
  startInboxServer,
} from './harness.ts';

const TOKEN = 'xoxb-inbox-links-0001';
const SIGNING = 'inbox-links-signing-0001';
const env = {} as { browser: Browser; srv: RunningServer; slack: FakeSlack };

beforeAll(async () => {
  await buildInbox();
  env.browser = await launchChromium();
  env.slack = await startFakeSlack(TOKEN);
  const manifest = await manifestOf(slackChannelLines(env.slack.apiUrl), {
    SLACK_BOT_TOKEN: TOKEN,
    SLACK_SIGNING_SECRET: SIGNING,
  });
  env.srv = await startInboxServer({ plugins: { manifest } });
}, 60_000);
afterAll(async () => {
  await env.srv?.close();
  await env.slack?.close();
  await env.browser?.close();
});

async function clickYes(base: string, id: string): Promise<void> {
  const res = await postSlack(base, SIGNING, click(`${id}:1`, `${ACTION.confirm}_yes`));
  expect(res.status).toBe(200);
}

async function serverLinks(base: string): Promise<string[]> {
  const r = await gql(base, 'alice', '{ viewer { channelLinks { recipient } } }');
  expect(r.errors).toBeUndefined();
  return (r.data.viewer.channelLinks as { recipient: string }[]).map((l) => l.recipient);
}

describe('linked channels in the settings page', () => {
  it('asks the recipient on Slack, lists the link once answered yes there, and unlinks it', async () => {
    const w = await openPage(env.browser);
    try {
      await signIn(w, env.srv.url, 'alice');
      const page = w.page;
      await openSettings(page);
      const section = settingsSection(page, 'Linked channels');
      await section.getByTestId('links-empty').waitFor();
      expect(await section.getByLabel('Channel').inputValue()).toBe('ops-slack');

      await section.getByLabel('Your id there').fill('not a slack id');
      await section.getByRole('button', { name: 'Send the question' }).click();
      await section
        .getByRole('alert')
        .getByText(/^recipient must be a Slack channel id/)
        .waitFor();

      await section.getByLabel('Your id there').fill('U0ALICEBR');
      await section.getByRole('button', { name: 'Send the question' }).click();
      await section
        .getByRole('status')
        .getByText('We sent a question to U0ALICEBR on ops-slack: answer yes there.')
        .waitFor();
      const post = await env.slack.waitFor('chat.postMessage', (c) => c.args.channel === 'U0ALICEBR');
      const id = /"value":"([0-9a-f-]{36}):1"/.exec(JSON.stringify(post.args.blocks))?.[1];
      expect(id).toBeDefined();
      expect(await serverLinks(env.srv.url)).toEqual([]);

      await clickYes(env.srv.url, id!);
      expect(await serverLinks(env.srv.url)).toEqual(['U0ALICEBR']);
      await page.reload();
      await openSettings(page);
      const row = settingsSection(page, 'Linked channels')
        .getByRole('listitem')
        .filter({ hasText: 'U0ALICEBR' });
      await row.getByText('on ops-slack').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await row.getByRole('button', { name: 'Unlink' }).click();
      await settingsSection(page, 'Linked channels')
        .getByRole('status')
        .getByText('U0ALICEBR on ops-slack is no longer linked.')
        .waitFor();
      await row.waitFor({ state: 'detached' });
      expect(await serverLinks(env.srv.url)).toEqual([]);
      expect(w.problems).toEqual([]);
    } finally {
      await w.close();
    }
  }, 60_000);
});
