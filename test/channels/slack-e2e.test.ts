// The slack channel end to end (issue 11): the real server on Redis with a manifest naming the
// channel, a local fake of the Slack Web API, and interactivity requests exactly as Slack sends
// them, signed with the app's signing secret, posted to the channel's inbound door.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACTION,
  BLOCK_PREFIX,
  FIELD_ACTION,
  FIELD_PREFIX,
  FORM_CALLBACK_ID,
} from '../../src/channels/slack/blocks.ts';
import { SLACK_INBOUND_MAX_BYTES } from '../../src/channels/slack/plugin.ts';
import { graphqlAt, manifestOf, slackChannelLines, startChannelServer } from '../support/channel-server.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { type FakeSlack, type SlackCall, startFakeSlack } from '../support/fakes/slack.ts';
import { click, clickOnMessage, signSlack, slackBody } from '../support/fakes/slack-requests.ts';
import { KEYS, type TestServer } from '../support/server.ts';

const TOKEN = 'xoxb-e2e-token-0001';
const SIGNING = 'e2e-signing-secret-0001';
const USER = 'U024BE7LH';
let slack: FakeSlack;
let t: TestServer;
let base: string;

beforeAll(async () => {
  slack = await startFakeSlack(TOKEN);
  const manifest = await manifestOf(slackChannelLines(slack.apiUrl), {
    SLACK_BOT_TOKEN: TOKEN,
    SLACK_SIGNING_SECRET: SIGNING,
  });
  t = await startChannelServer(manifest, { INTERACTIONS_CALLBACK_MAX_BODY_BYTES: '65536' });
  base = await t.listen();
});
afterAll(async () => {
  await t?.close();
  await slack?.close();
});

const gql = graphqlAt(() => base);

const ASK = `mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) {
  status callbackUrl question { id status recipient } } }`;

/** Asks through the channel; returns the question id and the chat.postMessage Slack received. */
async function ask(
  input: Record<string, unknown>,
): Promise<{ id: string; callbackUrl: string; post: SlackCall }> {
  const r = await gql(ASK, { input: { channel: 'ops-slack', ...input } });
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  const id = r.data!.askUser.question.id as string;
  const post = await slack.waitFor('chat.postMessage', (c) => JSON.stringify(c.args.blocks).includes(id));
  return { id, callbackUrl: r.data!.askUser.callbackUrl as string, post };
}

async function question(id: string) {
  const r = await gql(
    'query($id: ID!) { question(id: $id) { status answer answeredBy cancelReason } }',
    { id },
    'ops',
  );
  return r.data!.question as {
    status: string;
    answer: unknown;
    answeredBy: string | null;
    cancelReason: string | null;
  };
}

/** Posts an interactivity payload to the inbound door as Slack would. */
async function interact(
  payload: unknown,
  opts: { signedAt?: number; signature?: string; name?: string } = {},
) {
  const ts = opts.signedAt ?? Math.floor(Date.now() / 1000);
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return fetch(`${base}/api/interactions/channels/${opts.name ?? 'ops-slack'}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(ts),
      'x-slack-signature': opts.signature ?? signSlack(SIGNING, ts, body),
    },
    body,
  });
}

const withResponseUrl = (p: Record<string, unknown>) => ({ ...p, response_url: slack.responseUrl });

describe('slack channel end to end (redis)', () => {
  it('`channels` and `channelDetails` list the configured channel', async () => {
    const r = await gql('{ channels channelDetails { name plugin inbound defaultRecipient ready missing } }');
    expect(r.data).toEqual({
      channels: ['ops-slack'],
      channelDetails: [
        {
          name: 'ops-slack',
          plugin: 'slack',
          inbound: true,
          defaultRecipient: 'C0123456789',
          ready: true,
          missing: [],
        },
      ],
    });
  });

  it('CONFIRM: a Yes click answers as ops-slack:<user>, a replay changes nothing, the message is edited', async () => {
    const { id, post } = await ask({ text: 'Ship it?', format: 'CONFIRM' });
    expect(post.args.channel).toBe('C0123456789');
    const yes = click(`${id}:1`, `${ACTION.confirm}_yes`);
    const res = await interact(yes);
    expect(res.status).toBe(200);
    expect(await question(id)).toMatchObject({
      status: 'ANSWERED',
      answer: true,
      answeredBy: `ops-slack:${USER}`,
    });
    // Slack retries an event it thinks failed: the same click again is success and no change.
    const again = await interact(yes);
    expect(again.status).toBe(200);
    // A different click afterwards is refused to the clicker only, and changes nothing either.
    const before = slack.callsTo('response_url').length;
    expect((await interact(withResponseUrl(click(`${id}:0`, `${ACTION.confirm}_no`)))).status).toBe(200);
    await slack.waitFor('response_url', () => slack.callsTo('response_url').length > before);
    expect(slack.callsTo('response_url').at(-1)!.args.text).toMatch(/already answered/);
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: true });
    const edit = await slack.waitFor('chat.update', (c) =>
      JSON.stringify(c.args.blocks).includes('Ship it?'),
    );
    expect(edit.args.text).toBe(`Answered by <@${USER}>: Yes`);
  });

  it('a bad signature and a stale timestamp are 401 and leave the question pending', async () => {
    const { id } = await ask({ text: 'Bad signatures?', format: 'CONFIRM' });
    const yes = click(`${id}:1`, `${ACTION.confirm}_yes`);
    expect((await interact(yes, { signature: `v0=${'0'.repeat(64)}` })).status).toBe(401);
    const stale = Math.floor(Date.now() / 1000) - 301;
    expect((await interact(yes, { signedAt: stale })).status).toBe(401);
    expect((await question(id)).status).toBe('PENDING');
  });

  it('SELECT with 3 options (buttons) and with 12 (a static_select)', async () => {
    const three = await ask({ text: 'Which?', format: 'SELECT', options: ['a', 'b', 'c'] });
    expect(JSON.stringify(three.post.args.blocks)).toContain(`${ACTION.selectButton}_2`);
    expect((await interact(click(`${three.id}:2`, `${ACTION.selectButton}_2`))).status).toBe(200);
    expect(await question(three.id)).toMatchObject({ status: 'ANSWERED', answer: 'c' });

    const options = Array.from({ length: 12 }, (_, i) => `option ${i}`);
    const twelve = await ask({ text: 'Which of many?', format: 'SELECT', options });
    expect(JSON.stringify(twelve.post.args.blocks)).toContain('static_select');
    const menu = {
      ...click('', ACTION.selectMenu),
      actions: [
        {
          action_id: ACTION.selectMenu,
          block_id: 'b',
          type: 'static_select',
          selected_option: { value: `${twelve.id}:11` },
        },
      ],
    };
    expect((await interact(menu)).status).toBe(200);
    expect(await question(twelve.id)).toMatchObject({ status: 'ANSWERED', answer: 'option 11' });
  });

  it('TEXT: the dispatch_action input answers with what was typed', async () => {
    const { id } = await ask({ text: 'Why?', format: 'TEXT' });
    const typed = {
      ...click('', ACTION.text),
      actions: [
        {
          action_id: ACTION.text,
          block_id: `${BLOCK_PREFIX}${id}`,
          type: 'plain_text_input',
          value: 'because',
        },
      ],
    };
    expect((await interact(typed)).status).toBe(200);
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: 'because' });
  });

  it('FORM via modal: the button opens views.open, the submission answers', async () => {
    const schema = {
      type: 'object',
      properties: { reason: { type: 'string' }, count: { type: 'integer' } },
      required: ['reason', 'count'],
    };
    const { id } = await ask({ text: 'Details?', format: 'FORM', schema });
    const open = { ...click(id, ACTION.openForm), trigger_id: 'trig.1' };
    expect((await interact(open)).status).toBe(200);
    const modal = await slack.waitFor('views.open', (c) => c.args.trigger_id === 'trig.1');
    expect(JSON.stringify(modal.args.view)).toContain(FORM_CALLBACK_ID);
    const submission = {
      type: 'view_submission',
      user: { id: USER },
      view: {
        callback_id: FORM_CALLBACK_ID,
        private_metadata: id,
        state: {
          values: {
            [`${FIELD_PREFIX}reason`]: { [FIELD_ACTION]: { type: 'plain_text_input', value: 'disk full' } },
            [`${FIELD_PREFIX}count`]: { [FIELD_ACTION]: { type: 'number_input', value: '3' } },
          },
        },
      },
    };
    expect((await interact(submission)).status).toBe(200);
    expect(await question(id)).toMatchObject({
      status: 'ANSWERED',
      answer: { reason: 'disk full', count: 3 },
    });
  });

  it('FORM via link: a nested schema gets a link button to the callback page, answered there', async () => {
    const schema = {
      type: 'object',
      properties: { owner: { type: 'object', properties: { name: { type: 'string' } } } },
    };
    const { id, callbackUrl, post } = await ask({ text: 'Owner?', format: 'FORM', schema });
    expect(JSON.stringify(post.args.blocks)).toContain(callbackUrl);
    const ticket = callbackUrl.split('/').at(-1)!;
    const res = await fetch(`${base}/api/interactions/callback/${ticket}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ answer: { owner: { name: 'ana' } } }),
    });
    expect(res.status).toBe(200);
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answeredBy: 'callback' });
    const edit = await slack.waitFor('chat.update', (c) => JSON.stringify(c.args.blocks).includes('Owner?'));
    expect(edit.args.text).toMatch(/^Answered on the answer page/);
  });

  it('FORM whose modal Slack would refuse: the message links the callback page form, answered there', async () => {
    const name = `p${'x'.repeat(299)}`;
    const schema = { type: 'object', properties: { [name]: { type: 'string' } }, required: [name] };
    const { id, callbackUrl, post } = await ask({ text: 'Long field?', format: 'FORM', schema });
    const sent = JSON.stringify(post.args.blocks);
    expect(sent).toContain(callbackUrl);
    expect(sent).not.toContain(ACTION.openForm);
    const door = `${base}/api/interactions/callback/${callbackUrl.split('/').at(-1)!}`;
    const page = await fetch(door);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form');
    const res = await fetch(door, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ answer: { [name]: 'ok' } }),
    });
    expect(res.status).toBe(200);
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: { [name]: 'ok' } });
  });

  it('an EXTERNAL link over 3,000 characters goes out as a short redirect on our origin', async () => {
    const template = `https://pay.example/approve?cb={callback_url}&items=${'x'.repeat(3400)}`;
    const { id, callbackUrl, post } = await ask({
      text: 'Approve the long one?',
      format: 'EXTERNAL',
      link: template,
    });
    const long = template.replace('{callback_url}', callbackUrl);
    const button = (post.args.blocks as { elements?: { url?: string }[] }[]).at(-1)!.elements![0]!;
    const publicBase = callbackUrl.slice(0, callbackUrl.indexOf('/api/'));
    expect(button.url).toMatch(new RegExp(`^${publicBase.replace(/[.]/g, '\\.')}/l/[A-Za-z0-9_-]{43}$`));
    const short = `${base}${new URL(button.url!).pathname}`;
    for (const method of ['GET', 'HEAD']) {
      const res = await fetch(short, { method, redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe(long);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    }
    // Following it changes nothing.
    expect((await question(id)).status).toBe('PENDING');
    // A token that names nothing, one of the wrong shape, and any other method: the tickets' 404.
    const unknownTicket = await fetch(`${base}/api/interactions/callback/${'A'.repeat(43)}`);
    const notFoundPage = await unknownTicket.text();
    for (const path of [`/l/${'A'.repeat(43)}`, '/l/short', '/l/', `/l/${'A'.repeat(43)}/x`, '/l/%ff']) {
      const res = await fetch(`${base}${path}`, { redirect: 'manual' });
      expect(res.status, path).toBe(404);
      expect(await res.text()).toBe(notFoundPage);
    }
    const posted = await fetch(short, { method: 'POST', redirect: 'manual' });
    expect(posted.status).toBe(404);
    expect(await posted.json()).toEqual({ error: 'not found', code: 'NOT_FOUND' });
  });

  it('an EXTERNAL link of 3,000 characters is sent as is', async () => {
    const prefix = 'https://pay.example/approve?cb={callback_url}&items=';
    const probe = await ask({ text: 'Probe length?', format: 'EXTERNAL', link: `${prefix}x` });
    const size = 3000 - (`${prefix}x`.replace('{callback_url}', probe.callbackUrl).length - 1);
    const template = `${prefix}${'y'.repeat(size)}`;
    const { callbackUrl, post } = await ask({
      text: 'Exactly at the limit?',
      format: 'EXTERNAL',
      link: template,
    });
    const url = (post.args.blocks as { elements?: { url?: string }[] }[]).at(-1)!.elements![0]!.url!;
    expect(url).toBe(template.replace('{callback_url}', callbackUrl));
    expect(url).toHaveLength(3000);
  });

  it('answered in the inbox, cancelled, timed out: each edits the Slack message', async () => {
    const inbox = await ask({ text: 'Inbox answer?', format: 'CONFIRM' });
    const r = await gql(
      'mutation($id: ID!) { answer(id: $id, answer: true) { status } }',
      { id: inbox.id },
      'ops',
    );
    expect(r.errors).toBeUndefined();
    const edited = await slack.waitFor('chat.update', (c) =>
      JSON.stringify(c.args.blocks).includes('Inbox answer?'),
    );
    expect(edited.args.text).toBe('Answered in the inbox by ops');

    const cancelled = await ask({ text: 'Cancel me?', format: 'CONFIRM' });
    await gql('mutation($id: ID!) { cancelQuestion(id: $id, reason: "not needed") { status } }', {
      id: cancelled.id,
    });
    const c = await slack.waitFor('chat.update', (call) =>
      JSON.stringify(call.args.blocks).includes('Cancel me?'),
    );
    expect(c.args.text).toBe('Cancelled: not needed');

    const timed = await ask({ text: 'Time me out?', format: 'CONFIRM', timeoutSeconds: 1 });
    const tm = await slack.waitFor('chat.update', (call) =>
      JSON.stringify(call.args.blocks).includes('Time me out?'),
    );
    expect(tm.args.text).toBe('Timed out');
    expect((await question(timed.id)).status).toBe('TIMED_OUT');
  });

  it('a provider error on delivery is CHANNEL_DELIVERY_FAILED and leaves no pending question', async () => {
    slack.failNext('chat.postMessage', 'channel_not_found');
    const r = await gql(ASK, {
      input: { channel: 'ops-slack', text: 'Nobody hears this', format: 'CONFIRM' },
    });
    expect(r.errors?.[0]?.extensions.code).toBe('CHANNEL_DELIVERY_FAILED');
    const pending = await gql(
      '{ questions(filter: { status: [PENDING] }) { edges { node { text } } } }',
      {},
      'ops',
    );
    expect(JSON.stringify(pending.data)).not.toContain('Nobody hears this');
  });

  it('a recipient Slack cannot address is BAD_USER_INPUT at input.recipient, before anything is sent', async () => {
    const before = slack.callsTo('chat.postMessage').length;
    const r = await gql(ASK, {
      input: { channel: 'ops-slack', recipient: '#general', text: 'x', format: 'CONFIRM' },
    });
    expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.recipient' });
    expect(slack.callsTo('chat.postMessage').length).toBe(before);
  });

  it('hostile text is escaped, and media is never forwarded', async () => {
    const { post } = await ask({
      text: '<!channel> ping <https://evil.example|click> & <@U999>',
      format: 'CONFIRM',
      media: [{ kind: 'IMAGE', url: 'https://media.example/secret.png' }],
    });
    const sent = JSON.stringify(post.args);
    expect(sent).toContain('&lt;!channel&gt; ping &lt;https://evil.example|click&gt; &amp; &lt;@U999&gt;');
    expect(sent).not.toContain('<!channel>');
    expect(sent).not.toContain('media.example');
  });

  it('the inbound door: an unknown channel is the uniform 404; its body cap stays the callback cap', async () => {
    const unknown = await interact(click('x:1', `${ACTION.confirm}_yes`), { name: 'nope' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'not found', code: 'NOT_FOUND' });
    const post = (name: string, body: string) =>
      fetch(`${base}/api/interactions/channels/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    expect((await post('nope', 'x'.repeat(65537))).status).toBe(413);
    expect((await post('nope', 'x'.repeat(65536))).status).toBe(404);
    // Slack's door reads past the callback cap (up to its own): the signature check refuses this one.
    expect((await post('ops-slack', 'x'.repeat(65537))).status).toBe(401);
  });

  const door = () => `${base}/api/interactions/channels/ops-slack`;
  const yesAction = (id: string) => ({
    type: 'button',
    action_id: `${ACTION.confirm}_yes`,
    block_id: `${BLOCK_PREFIX}${id}`,
    text: { type: 'plain_text', text: 'Yes', emoji: false },
    value: `${id}:1`,
    style: 'primary',
  });
  const posted = (post: SlackCall, text = String(post.args.text)) => ({
    channel: String(post.args.channel),
    ts: '1700000000.000001',
    text,
    blocks: post.args.blocks as unknown[],
  });

  it('a click on a long question (over 64 KiB: Slack repeats the message) is answered', async () => {
    // 5,000 Japanese characters, as in the report: the click carries the message twice over.
    const text = 'デプロイしてよいですか。'.repeat(417).slice(0, 5000);
    const { id, post } = await ask({ text, format: 'CONFIRM' });
    const { body, headers } = slackBody(SIGNING, clickOnMessage(posted(post), yesAction(id)));
    expect(Buffer.byteLength(body)).toBeGreaterThan(64 * 1024);
    const res = await fetch(door(), { method: 'POST', headers, body });
    expect(res.status).toBe(200);
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: true });
  });

  it('a click of exactly SLACK_INBOUND_MAX_BYTES is answered; one byte more is 413 and changes nothing', async () => {
    const { id, post } = await ask({ text: 'At the cap?', format: 'CONFIRM' });
    /** A signed click whose body is `size` bytes: the repeated message text padded with ASCII. */
    const clickOf = (size: number) => {
      const make = (pad: number) =>
        slackBody(SIGNING, clickOnMessage(posted(post, 'a'.repeat(pad)), yesAction(id)));
      const bare = Buffer.byteLength(make(0).body);
      return make(size - bare);
    };
    const over = clickOf(SLACK_INBOUND_MAX_BYTES + 1);
    expect(Buffer.byteLength(over.body)).toBe(SLACK_INBOUND_MAX_BYTES + 1);
    expect((await fetch(door(), { method: 'POST', headers: over.headers, body: over.body })).status).toBe(
      413,
    );
    // Sent without a length (chunked), the same body is measured once read: 413 too.
    const chunked = await fetch(door(), {
      method: 'POST',
      headers: over.headers,
      body: new Blob([over.body]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await question(id)).status).toBe('PENDING');

    const at = clickOf(SLACK_INBOUND_MAX_BYTES);
    expect(Buffer.byteLength(at.body)).toBe(SLACK_INBOUND_MAX_BYTES);
    expect((await fetch(door(), { method: 'POST', headers: at.headers, body: at.body })).status).toBe(200);
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: true });
  });
});

describe('tai channels (against the same server)', () => {
  function tai(args: string[]) {
    return runCliInProcess(args, { env: { TAI_URL: base, TAI_API_KEY: KEYS.agent } });
  }

  it('list: name, plugin, readiness and default recipient', async () => {
    expect(await tai(['channels', 'list'])).toEqual({
      code: 0,
      stdout: 'ops-slack  slack       ready  default recipient C0123456789\n',
      stderr: '',
    });
  });

  it('test: the message arrives, then is edited to "Cancelled: test message"', async () => {
    const r = await tai(['channels', 'test', 'ops-slack', '--recipient', 'U0TESTER1', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const sent = JSON.parse(r.stdout) as { questionId: string };
    const post = await slack.waitFor('chat.postMessage', (c) =>
      JSON.stringify(c.args.blocks).includes(sent.questionId),
    );
    expect(post.args.channel).toBe('U0TESTER1');
    const edit = await slack.waitFor('chat.update', (c) =>
      JSON.stringify(c.args.blocks).includes('channel ops-slack reaches you'),
    );
    expect(edit.args.text).toBe('Cancelled: test message');
  });

  it('test: a delivery failure is the server’s CHANNEL_DELIVERY_FAILED', async () => {
    slack.failNext('chat.postMessage', 'user_not_found');
    const r = await tai(['channels', 'test', 'ops-slack', '--recipient', 'U0NOBODY1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: CHANNEL_DELIVERY_FAILED: /);
  });
});
