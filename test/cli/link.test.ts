// `tai link` and the SDK's channel links (API.md §22, docs/people.md "Linking a channel") against
// a real server with a Slack channel on the loopback fake Slack Web API: alice asks her Slack id
// to confirm, the "yes" is clicked in Slack (signed as Slack signs it), and the link is listed,
// then ended. A channel that cannot be linked is refused with the ones that can, and a key
// without the operator role is told which role it needs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION } from '../../src/channels/slack/blocks.ts';
import { clientAs } from '../client/support.ts';
import { LINK_SECRETS, linkableManifest } from '../support/channel-server.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { type FakeSlack, startFakeSlack } from '../support/fakes/slack.ts';
import { click, postSlack } from '../support/fakes/slack-requests.ts';
import { KEYS, startServer, type TestServer } from '../support/server.ts';

describe('tai link and the SDK’s channel links', () => {
  let slack: FakeSlack;
  let t: TestServer;
  let base: string;
  const run = (args: string[], who: keyof typeof KEYS) =>
    runCliInProcess(args, { env: { TAI_URL: base, TAI_API_KEY: KEYS[who] } });

  beforeAll(async () => {
    slack = await startFakeSlack(LINK_SECRETS.token);
    const manifest = await linkableManifest(slack.apiUrl);
    t = await startServer({ store: 'memory', plugins: { manifest, outbox: { pollMs: 50 } } });
    base = await t.listen();
  });
  afterAll(async () => {
    await t?.close();
    await slack?.close();
  });

  /** The "yes" clicked in Slack on the link question `id`. */
  async function yesInSlack(id: string) {
    await slack.waitFor('chat.postMessage', (c) => JSON.stringify(c.args.blocks).includes(id));
    const payload = click(`${id}:1`, `${ACTION.confirm}_yes`, {
      user: { id: 'U0ALICE01', username: 'alice' },
    });
    expect((await postSlack(base, LINK_SECRETS.signing, payload)).status).toBe(200);
  }

  it('asks, links on the "yes" in Slack, lists it, and --remove ends it', async () => {
    expect((await run(['link'], 'alice')).stdout).toBe('No linked channels.\n');

    const asked = await run(['link', 'ops-slack', 'U0ALICE01'], 'alice');
    expect(asked).toMatchObject({ code: 0, stderr: '' });
    const id = /\(question (\S+)\)/.exec(asked.stdout)?.[1];
    expect(id).toBeDefined();
    expect(asked.stdout).toMatch(
      /^Asked U0ALICE01 on ops-slack to confirm \(question \S+\)\. Answer yes there before \d{4}-/,
    );
    // Nothing is linked until the recipient says yes on the channel.
    expect((await run(['link'], 'alice')).stdout).toBe('No linked channels.\n');

    await yesInSlack(id!);
    const listed = (await run(['link'], 'alice')).stdout;
    expect(listed).toMatch(
      /^ops-slack {2}U0ALICE01 {2}confirmed by ops-slack:U0ALICE01 at \d{4}-\d\d-\d\dT\S+\n$/,
    );
    const json = JSON.parse((await run(['--json', 'link'], 'alice')).stdout);
    expect(json).toEqual([expect.objectContaining({ channel: 'ops-slack', recipient: 'U0ALICE01' })]);

    expect((await run(['link', 'ops-slack', 'U0ALICE01', '--remove'], 'alice')).stdout).toBe('Unlinked.\n');
    expect((await run(['link', 'ops-slack', 'U0ALICE01', '--remove'], 'alice')).stdout).toBe(
      'You had no such link.\n',
    );
    expect((await run(['link'], 'alice')).stdout).toBe('No linked channels.\n');
  });

  it('the SDK links, lists and unlinks the same way', async () => {
    const alice = clientAs(base, 'alice');
    const q = await alice.linkChannel('ops-slack', 'U0ALICE01');
    expect(q).toMatchObject({ status: 'PENDING', channel: 'ops-slack', recipient: 'U0ALICE01' });
    expect(await alice.channelLinks()).toEqual([]);
    await yesInSlack(q.id);
    expect(await alice.channelLinks()).toEqual([
      expect.objectContaining({
        channel: 'ops-slack',
        recipient: 'U0ALICE01',
        confirmedBy: 'ops-slack:U0ALICE01',
      }),
    ]);
    expect(await alice.unlinkChannel('ops-slack', 'U0ALICE01')).toBe(true);
    expect(await alice.unlinkChannel('ops-slack', 'U0ALICE01')).toBe(false);
    expect(await alice.channelLinks()).toEqual([]);
  });

  it('refuses what cannot be linked, saying why, and asks nothing', async () => {
    const posts = slack.callsTo('chat.postMessage').length;
    const webhook = await run(['link', 'bridge', 'someone'], 'alice');
    expect(webhook.code).not.toBe(0);
    expect(webhook.stderr).toContain('channel bridge cannot be linked (allowed: "ops-slack")');
    const unknown = await run(['link', 'nope', 'someone'], 'alice');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('unknown channel (allowed: "ops-slack")');
    const half = await run(['link', 'ops-slack'], 'alice');
    expect(half.code).toBe(2);
    expect(half.stderr).toMatch(/^error: give the recipient after the channel\nUsage: tai link /);
    const removeAll = await run(['link', '--remove'], 'alice');
    expect(removeAll.code).toBe(2);
    expect(removeAll.stderr).toMatch(
      /^error: --remove needs the channel and the recipient\nUsage: tai link /,
    );
    const agent = await run(['link', 'ops-slack', 'U0AGENT01'], 'agent');
    expect(agent.code).not.toBe(0);
    expect(agent.stderr).toContain('linking a channel needs a key with the operator or admin role');
    expect(slack.callsTo('chat.postMessage').length).toBe(posts);
  });
});
