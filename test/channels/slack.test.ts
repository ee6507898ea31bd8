import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackPlugin } from '../../src/channels/slack/plugin.ts';
import type { ChannelQuestion, InboundEvent } from '../../src/channels/types.ts';
import { channelContext, channelQuestion } from '../support/fakes/channel-context.ts';
import { type FakeSlack, startFakeSlack } from '../support/fakes/slack.ts';
import { click, slackRequest } from '../support/fakes/slack-requests.ts';

const TOKEN = 'xoxb-test-token-0001';
const SIGNING = 'signing-secret-for-tests';
const CALLBACK = 'https://tai.example/api/interactions/callback/TICKET-abc';
let slack: FakeSlack;

beforeAll(async () => {
  slack = await startFakeSlack(TOKEN);
});
afterAll(() => slack.close());

function channel(
  secrets: Record<string, string> = { SLACK_BOT_TOKEN: TOKEN, SLACK_SIGNING_SECRET: SIGNING },
  extra = {},
) {
  const config = slackPlugin.config.parse({
    botTokenEnv: 'SLACK_BOT_TOKEN',
    signingSecretEnv: 'SLACK_SIGNING_SECRET',
    apiUrl: slack.apiUrl,
    ...extra,
  });
  return slackPlugin.create(config, channelContext('ops-slack', secrets));
}

type Block = {
  type: string;
  block_id?: string;
  elements?: Record<string, unknown>[];
  element?: Record<string, unknown>;
  text?: { text: string };
};

async function delivered(q: ChannelQuestion): Promise<{ args: Record<string, unknown>; blocks: Block[] }> {
  await channel().deliver(q, CALLBACK);
  const call = slack.callsTo('chat.postMessage').at(-1)!;
  expect(call.token).toBe(TOKEN);
  return { args: call.args, blocks: call.args.blocks as Block[] };
}

const answerBlock = (blocks: Block[]) => blocks.at(-1)!;

describe('slack channel: delivery', () => {
  it('CONFIRM: Yes/No buttons whose values carry the question id and an index, never the ticket', async () => {
    const q = channelQuestion();
    const { args, blocks } = await delivered(q);
    expect(args).toMatchObject({
      channel: 'C0123456789',
      unfurl_links: 'false',
      unfurl_media: 'false',
      link_names: 'false',
    });
    expect(blocks[0]).toMatchObject({ type: 'section', text: { type: 'mrkdwn', text: 'Ship it?' } });
    const actions = answerBlock(blocks);
    expect(actions.type).toBe('actions');
    expect(actions.elements!.map((e) => [(e.text as { text: string }).text, e.value])).toEqual([
      ['Yes', `${q.id}:1`],
      ['No', `${q.id}:0`],
    ]);
    expect(JSON.stringify(args)).not.toContain('TICKET');
  });

  it('returns a receipt with the conversation and ts; a user id becomes a DM', async () => {
    const receipt = await channel().deliver(channelQuestion({ recipient: 'U024BE7LH' }), CALLBACK);
    expect(receipt).toMatchObject({ recipient: 'U024BE7LH', channel: 'D024BE7LH' });
    expect(typeof receipt.ts).toBe('string');
    expect(JSON.parse(JSON.stringify(receipt))).toEqual(receipt);
  });

  it('uses defaultRecipient when the question has none, and refuses when neither exists', async () => {
    await channel(undefined, { defaultRecipient: 'G0DEFAULT1' }).deliver(
      channelQuestion({ recipient: null }),
      CALLBACK,
    );
    expect(slack.callsTo('chat.postMessage').at(-1)!.args.channel).toBe('G0DEFAULT1');
    await expect(channel().deliver(channelQuestion({ recipient: null }), CALLBACK)).rejects.toThrow(
      'no recipient',
    );
  });

  it('SELECT with 3 options: buttons; with 5 still buttons', async () => {
    const q = channelQuestion({ format: 'SELECT', options: ['red', 'green', 'blue'] });
    const els = answerBlock((await delivered(q)).blocks).elements!;
    expect(els.map((e) => [e.type, e.value])).toEqual([
      ['button', `${q.id}:0`],
      ['button', `${q.id}:1`],
      ['button', `${q.id}:2`],
    ]);
    const five = answerBlock((await delivered({ ...q, options: ['a', 'b', 'c', 'd', 'e'] })).blocks)
      .elements!;
    expect(five.every((e) => e.type === 'button')).toBe(true);
  });

  it('SELECT with 6 and 12 options: a static_select; labels cut to 75 characters', async () => {
    const options = Array.from({ length: 12 }, (_, i) => `option ${i} ${'x'.repeat(i === 3 ? 100 : 0)}`);
    const q = channelQuestion({ format: 'SELECT', options });
    const els = answerBlock((await delivered(q)).blocks).elements!;
    expect(els).toHaveLength(1);
    expect(els[0]!.type).toBe('static_select');
    const opts = els[0]!.options as { text: { text: string }; value: string }[];
    expect(opts).toHaveLength(12);
    expect(opts[11]!.value).toBe(`${q.id}:11`);
    expect([...opts[3]!.text.text]).toHaveLength(75);
    const six = answerBlock((await delivered({ ...q, options: options.slice(0, 6) })).blocks).elements!;
    expect(six[0]!.type).toBe('static_select');
  });

  it('SELECT with 100 options (the most an ask may have) fits one menu', async () => {
    const hundred = Array.from({ length: 100 }, (_, i) => `o${i}`);
    const at = answerBlock((await delivered(channelQuestion({ format: 'SELECT', options: hundred }))).blocks)
      .elements!;
    expect(at).toHaveLength(1);
    expect((at[0]!.options as unknown[]).length).toBe(100);
  });

  it('TEXT: a plain_text_input that dispatches on Enter', async () => {
    const q = channelQuestion({ format: 'TEXT' });
    const block = answerBlock((await delivered(q)).blocks);
    expect(block).toMatchObject({ type: 'input', block_id: `tai:${q.id}`, dispatch_action: true });
    expect(block.element).toMatchObject({ type: 'plain_text_input', action_id: 'tai_text' });
  });

  it('FORM: a flat schema gets a button that opens a modal, a nested one a link to the form page', async () => {
    const flat = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        qty: { type: 'integer' },
        rush: { type: 'boolean' },
        size: { enum: ['S', 'M'] },
      },
    };
    const q = channelQuestion({ format: 'FORM', schema: flat });
    expect(answerBlock((await delivered(q)).blocks).elements![0]).toMatchObject({
      action_id: 'tai_form_open',
      value: q.id,
    });
    const nested = { type: 'object', properties: { address: { type: 'object', properties: {} } } };
    const link = answerBlock((await delivered({ ...q, schema: nested })).blocks).elements![0]!;
    expect(link).toMatchObject({ type: 'button', url: CALLBACK });
    expect(link.value).toBeUndefined();
  });

  it('EXTERNAL: a link button to the question link', async () => {
    const q = channelQuestion({ format: 'EXTERNAL', link: 'https://pay.example/approve/1' });
    expect(answerBlock((await delivered(q)).blocks).elements![0]).toMatchObject({
      url: 'https://pay.example/approve/1',
    });
  });

  it('escapes hostile text so it cannot mention anyone or link anything', async () => {
    const hostile = '<!channel> <!here> <@U999> & <https://evil.example|click me> @here';
    const { args, blocks } = await delivered(channelQuestion({ text: hostile }));
    const shown = (blocks[0]!.text as { text: string }).text;
    expect(shown).toBe(
      '&lt;!channel&gt; &lt;!here&gt; &lt;@U999&gt; &amp; &lt;https://evil.example|click me&gt; @here',
    );
    expect(args.text).toBe(shown);
    expect(args.parse).toBe('none');
  });

  it('long text is split into sections of at most 3000 characters without breaking an entity', async () => {
    const text = '&'.repeat(8192);
    const { blocks } = await delivered(channelQuestion({ text }));
    const sections = blocks.filter((b) => b.type === 'section').map((b) => b.text!.text);
    expect(sections.every((s) => s.length <= 3000 && /^(&amp;)+$/.test(s))).toBe(true);
    expect(sections.join('')).toBe('&amp;'.repeat(8192));
  });

  it('a provider error on deliver throws with Slack’s error code only', async () => {
    slack.failNext('chat.postMessage', 'channel_not_found');
    const err = await channel()
      .deliver(channelQuestion(), CALLBACK)
      .catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('slack chat.postMessage failed: channel_not_found');
    const badToken = await channel({ SLACK_BOT_TOKEN: 'xoxb-wrong', SLACK_SIGNING_SECRET: SIGNING })
      .deliver(channelQuestion(), CALLBACK)
      .catch((e: Error) => e);
    expect((badToken as Error).message).toBe('slack chat.postMessage failed: invalid_auth');
    expect((badToken as Error).message).not.toContain('xoxb');
  });

  it('FORM: a flat schema whose modal Slack would refuse falls back to the answer page', async () => {
    // A 300-character property name makes a 302-character block_id (Slack: at most 255).
    const long = { type: 'object', properties: { [`p${'x'.repeat(299)}`]: { type: 'string' } } };
    const q = channelQuestion({ format: 'FORM', schema: long });
    const elements = answerBlock((await delivered(q)).blocks).elements!;
    expect(elements).toHaveLength(1);
    expect(elements[0]).toMatchObject({ type: 'button', url: CALLBACK });
    expect(elements[0]!.value).toBeUndefined();
    // A modal Slack takes: the modal button, and the answer page beside it.
    const flat = { type: 'object', properties: { size: { enum: ['', 'S'] } } };
    const ok = answerBlock((await delivered({ ...q, schema: flat })).blocks).elements!;
    expect(ok.map((e) => e.action_id)).toEqual(['tai_form_open', 'tai_form_page']);
    expect(ok[1]).toMatchObject({ url: CALLBACK });
  });

  it('a message over Block Kit limits is not sent: delivery fails naming the limit', async () => {
    const before = slack.callsTo('chat.postMessage').length;
    const link = `https://pay.example/${'a'.repeat(2981)}`;
    const err = await channel()
      .deliver(channelQuestion({ format: 'EXTERNAL', link }), CALLBACK)
      .catch((e: Error) => e);
    expect((err as Error).message).toMatch(/Block Kit limits.*\/url: must be at most 3000 characters/);
    expect(slack.callsTo('chat.postMessage').length).toBe(before);
  });

  it('a missing bot token fails delivery, naming the variable', async () => {
    await expect(
      channel({ SLACK_SIGNING_SECRET: SIGNING }).deliver(channelQuestion(), CALLBACK),
    ).rejects.toThrow('SLACK_BOT_TOKEN');
  });

  it('checkRecipient accepts channel and user ids only', () => {
    const c = channel();
    expect(c.checkRecipient!('C0123456789')).toBeNull();
    expect(c.checkRecipient!('U024BE7LH')).toBeNull();
    expect(c.checkRecipient!('#general')).toMatch(/Slack/);
    expect(c.checkRecipient!('u024')).toMatch(/Slack/);
  });
});

describe('slack channel: the signing-secret check', () => {
  const payload = click('q1:1', 'tai_confirm_yes');
  const now = 1_800_000_000_000;

  it('accepts a valid signature, at 300 s of skew in either direction', async () => {
    for (const skew of [0, -300, 300]) {
      const ev = await channel().inbound!(
        slackRequest(SIGNING, payload, { now, signedAt: now / 1000 + skew }),
      );
      expect(ev.kind).toBe('answer');
    }
  });

  it('refuses a stale or future timestamp (301 s) with 401', async () => {
    for (const skew of [-301, 301]) {
      const ev = await channel().inbound!(
        slackRequest(SIGNING, payload, { now, signedAt: now / 1000 + skew }),
      );
      expect(ev).toMatchObject({ kind: 'reject', status: 401 });
    }
  });

  it('refuses a bad signature, another secret and missing headers with 401', async () => {
    const bad = slackRequest(SIGNING, payload, { signature: `v0=${'0'.repeat(64)}` });
    expect(await channel().inbound!(bad)).toMatchObject({ kind: 'reject', status: 401 });
    expect(await channel().inbound!(slackRequest('other', payload))).toMatchObject({
      kind: 'reject',
      status: 401,
    });
    const missing = slackRequest(SIGNING, payload);
    delete missing.headers['x-slack-signature'];
    expect(await channel().inbound!(missing)).toMatchObject({ kind: 'reject', status: 401 });
  });

  it('a body changed after signing is refused', async () => {
    const req = slackRequest(SIGNING, payload);
    req.rawBody = Buffer.from(req.rawBody.toString().replace('q1%3A1', 'q1%3A0'));
    expect(await channel().inbound!(req)).toMatchObject({ kind: 'reject', status: 401 });
  });

  it('fails closed with 500 when the signing secret is not set', async () => {
    const ev = await channel({ SLACK_BOT_TOKEN: TOKEN }).inbound!(slackRequest(SIGNING, payload));
    expect(ev).toMatchObject({ kind: 'reject', status: 500 });
    expect(JSON.stringify(ev)).not.toContain(SIGNING);
  });
});

async function event(payload: unknown): Promise<InboundEvent> {
  return channel().inbound!(slackRequest(SIGNING, payload));
}

describe('slack channel: inbound mapping', () => {
  it('a CONFIRM click answers true/false for the question it names, by the clicking user', async () => {
    const ev = await event(click('q_1:1', 'tai_confirm_yes'));
    if (ev.kind !== 'answer') throw new Error(`expected an answer, got ${ev.kind}`);
    expect(ev.question).toEqual({ id: 'q_1' });
    expect(ev.by).toBe('U024BE7LH');
    expect(ev.answer(channelQuestion())).toBe(true);
    const no = await event(click('q_1:0', 'tai_confirm_no'));
    expect(no.kind === 'answer' && no.answer(channelQuestion())).toBe(false);
    // The same click against a question of another format answers nothing.
    expect(ev.answer(channelQuestion({ format: 'TEXT' }))).toBeUndefined();
  });

  it('a SELECT button or menu choice answers the option at that index', async () => {
    const q = channelQuestion({ format: 'SELECT', options: ['red', 'green', 'blue'] });
    const button = await event(click('q_1:2', 'tai_select_2'));
    expect(button.kind === 'answer' && button.answer(q)).toBe('blue');
    const menu = await event({
      ...click('', 'tai_select_menu'),
      actions: [{ action_id: 'tai_select_menu', block_id: 'b', selected_option: { value: 'q_1:1' } }],
    });
    expect(menu.kind === 'answer' && menu.answer(q)).toBe('green');
    const outOfRange = await event(click('q_1:7', 'tai_select_7'));
    expect(outOfRange.kind === 'answer' && outOfRange.answer(q)).toBeUndefined();
  });

  it('a cleared select menu (selected_option: null) is ignored, not a 400', async () => {
    const cleared = await event({
      ...click('', 'tai_select_menu'),
      actions: [
        { action_id: 'tai_select_menu', block_id: 'b', type: 'static_select', selected_option: null },
      ],
    });
    expect(cleared).toEqual({ kind: 'ignore', response: { status: 200 } });
  });

  it('TEXT: the typed value answers the question named by the block id', async () => {
    const ev = await event({
      ...click('', 'tai_text'),
      actions: [{ action_id: 'tai_text', block_id: 'tai:q_9', value: 'ship on Friday' }],
    });
    expect(ev.kind === 'answer' && ev.question).toEqual({ id: 'q_9' });
    expect(ev.kind === 'answer' && ev.answer(channelQuestion({ format: 'TEXT' }))).toBe('ship on Friday');
  });

  it('a link-button click, an unknown payload type and a malformed payload', async () => {
    expect(await event(click('', 'tai_link'))).toMatchObject({ kind: 'ignore', response: { status: 200 } });
    expect(await event({ type: 'message_action' })).toMatchObject({ kind: 'ignore' });
    expect(await event({ type: 'block_actions', actions: [] })).toMatchObject({
      kind: 'reject',
      status: 400,
    });
    expect(await event(click('no-index', 'tai_confirm_yes'))).toMatchObject({ kind: 'reject', status: 400 });
    expect(await event(click('q:1', 'somebody_elses_action'))).toMatchObject({ kind: 'reject', status: 400 });
  });

  it('refusals and closed questions are shown to the clicking user through response_url', async () => {
    const ev = await event(click('q_1:1', 'tai_confirm_yes', { response_url: slack.responseUrl }));
    if (ev.kind !== 'answer') throw new Error('expected an answer');
    const before = slack.callsTo('response_url').length;
    expect(await ev.respond({ kind: 'recorded', question: channelQuestion(), delivery: null })).toEqual({
      status: 200,
    });
    expect(await ev.respond({ kind: 'duplicate', question: channelQuestion(), delivery: null })).toEqual({
      status: 200,
    });
    expect(slack.callsTo('response_url')).toHaveLength(before);
    const closed = channelQuestion({ status: 'TIMED_OUT' });
    expect(await ev.respond({ kind: 'closed', question: closed, delivery: null })).toEqual({ status: 200 });
    await ev.respond({
      kind: 'invalid',
      message: 'answer must be one of the options',
      question: closed,
      delivery: null,
    });
    await ev.respond({ kind: 'not-found' });
    expect(
      slack
        .callsTo('response_url')
        .slice(before)
        .map((c) => c.args),
    ).toEqual([
      { response_type: 'ephemeral', replace_original: false, text: 'This question timed out.' },
      {
        response_type: 'ephemeral',
        replace_original: false,
        text: 'That answer was not accepted: answer must be one of the options',
      },
      { response_type: 'ephemeral', replace_original: false, text: 'This question is no longer available.' },
    ]);
  });

  it('a response_url that is not https (or loopback http) is never called', async () => {
    const ev = await event(click('q_1:1', 'tai_confirm_yes', { response_url: 'http://internal.example/x' }));
    if (ev.kind !== 'answer') throw new Error('expected an answer');
    const before = slack.calls.length;
    await ev.respond({ kind: 'not-found' });
    expect(slack.calls.length).toBe(before);
  });

  const schema = {
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', title: 'Your name' },
      qty: { type: 'integer' },
      price: { type: 'number' },
      rush: { type: 'boolean' },
      size: { enum: ['S', 'M', 'L'] },
    },
  };

  it('the form button asks to be shown the question; a pending one opens the modal with the trigger id', async () => {
    const ev = await event(click('q_5', 'tai_form_open', { response_url: slack.responseUrl }));
    if (ev.kind !== 'show') throw new Error(`expected show, got ${ev.kind}`);
    expect(ev.question).toEqual({ id: 'q_5' });
    const q = channelQuestion({ id: 'q_5', format: 'FORM', schema });
    expect(await ev.respond({ kind: 'pending', question: q, delivery: null })).toEqual({ status: 200 });
    const open = slack.callsTo('views.open').at(-1)!;
    expect(open.args.trigger_id).toBe('1234.5678.abcd');
    const view = open.args.view as {
      private_metadata: string;
      blocks: { block_id?: string; optional?: boolean; element?: { type: string } }[];
    };
    expect(view.private_metadata).toBe('q_5');
    const inputs = view.blocks.filter((b) => b.block_id?.startsWith('f:'));
    expect(inputs.map((b) => [b.block_id, b.element!.type, b.optional])).toEqual([
      ['f:name', 'plain_text_input', false],
      ['f:qty', 'number_input', true],
      ['f:price', 'number_input', true],
      ['f:rush', 'static_select', true],
      ['f:size', 'static_select', true],
    ]);
    const before = slack.callsTo('response_url').length;
    await ev.respond({ kind: 'closed', question: { ...q, status: 'ANSWERED' }, delivery: null });
    expect(slack.callsTo('response_url').slice(before)[0]!.args.text).toBe(
      'This question was already answered.',
    );
  });

  it('an empty enum value is shown quoted, and Slack takes the modal', async () => {
    const ev = await event(click('q_6', 'tai_form_open', { response_url: slack.responseUrl }));
    if (ev.kind !== 'show') throw new Error(`expected show, got ${ev.kind}`);
    const q = channelQuestion({
      id: 'q_6',
      format: 'FORM',
      schema: { type: 'object', properties: { tier: { enum: ['', 'gold'] } } },
    });
    const before = slack.callsTo('response_url').length;
    await ev.respond({ kind: 'pending', question: q, delivery: null });
    const open = slack.callsTo('views.open').at(-1)!;
    expect(JSON.stringify(open.args.view)).toContain('"text":"\\"\\"","emoji":false},"value":"0"');
    expect(slack.callsTo('response_url').length).toBe(before);
  });

  it('when Slack refuses to open the modal, the clicker is told where to answer instead', async () => {
    const ev = await event(click('q_5', 'tai_form_open', { response_url: slack.responseUrl }));
    if (ev.kind !== 'show') throw new Error(`expected show, got ${ev.kind}`);
    slack.failNext('views.open', 'expired_trigger_id');
    const before = slack.callsTo('response_url').length;
    const q = channelQuestion({ id: 'q_5', format: 'FORM', schema });
    expect(await ev.respond({ kind: 'pending', question: q, delivery: null })).toEqual({ status: 200 });
    const told = slack.callsTo('response_url').slice(before)[0]!;
    expect(told.args).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(told.args.text).toBe(
      'Slack could not open the form (expired_trigger_id). Answer it on the answer page: "Open in browser" on the message.',
    );
  });

  it('a form whose modal Slack would refuse is never sent to views.open; the clicker is told', async () => {
    const ev = await event(click('q_7', 'tai_form_open', { response_url: slack.responseUrl }));
    if (ev.kind !== 'show') throw new Error(`expected show, got ${ev.kind}`);
    const opened = slack.callsTo('views.open').length;
    const before = slack.callsTo('response_url').length;
    const long = { type: 'object', properties: { [`p${'x'.repeat(299)}`]: { type: 'string' } } };
    await ev.respond({
      kind: 'pending',
      question: channelQuestion({ id: 'q_7', format: 'FORM', schema: long }),
      delivery: null,
    });
    expect(slack.callsTo('views.open').length).toBe(opened);
    expect(slack.callsTo('response_url').slice(before)[0]!.args.text).toMatch(
      /^This form cannot be shown in Slack\./,
    );
  });

  it('a modal submission answers with values typed by the schema; a refusal is shown in the modal', async () => {
    const values = {
      'f:name': { v: { type: 'plain_text_input', value: 'Ana' } },
      'f:qty': { v: { type: 'number_input', value: '3' } },
      'f:price': { v: { type: 'number_input', value: '2.5' } },
      'f:rush': { v: { type: 'static_select', selected_option: { value: '1' } } },
      'f:size': { v: { type: 'static_select', selected_option: { value: '2' } } },
    };
    const ev = await event({
      type: 'view_submission',
      user: { id: 'U024BE7LH' },
      view: { callback_id: 'tai_form', private_metadata: 'q_5', state: { values } },
    });
    if (ev.kind !== 'answer') throw new Error(`expected an answer, got ${ev.kind}`);
    expect(ev.question).toEqual({ id: 'q_5' });
    const q = channelQuestion({ id: 'q_5', format: 'FORM', schema });
    expect(ev.answer(q)).toEqual({ name: 'Ana', qty: 3, price: 2.5, rush: true, size: 'L' });
    expect(await ev.respond({ kind: 'recorded', question: q, delivery: null })).toEqual({ status: 200 });
    expect(
      await ev.respond({ kind: 'invalid', message: 'answer.qty must be >= 5', question: q, delivery: null }),
    ).toEqual({
      status: 200,
      body: {
        response_action: 'errors',
        errors: { 'f:name': 'That answer was not accepted: answer.qty must be >= 5' },
      },
    });
  });
});

describe('slack channel: onResolved edits the message and leaves no buttons', () => {
  const receipt = { recipient: 'C0123456789', channel: 'C0123456789', ts: '1700000000.000001' };
  const cases: [string, Partial<ChannelQuestion>, string][] = [
    [
      'answered here',
      { status: 'ANSWERED', answer: true, answeredBy: 'ops-slack:U024BE7LH' },
      'Answered by <@U024BE7LH>: Yes',
    ],
    [
      'answered in the inbox',
      { status: 'ANSWERED', answer: true, answeredBy: 'ops' },
      'Answered in the inbox by ops',
    ],
    [
      'answered on the page',
      { status: 'ANSWERED', format: 'TEXT', answer: 'a<b', answeredBy: 'callback' },
      'Answered on the answer page: a&lt;b',
    ],
    [
      'sensitive',
      { status: 'ANSWERED', sensitive: true, answer: null, answeredBy: 'ops-slack:U024BE7LH' },
      'Answered',
    ],
    ['timed out', { status: 'TIMED_OUT' }, 'Timed out'],
    [
      'cancelled',
      { status: 'CANCELLED', cancelReason: 'plan <!here> changed' },
      'Cancelled: plan &lt;!here&gt; changed',
    ],
  ];

  it.each(cases)('%s', async (_name, over, line) => {
    await channel().onResolved!(channelQuestion(over), receipt);
    const call = slack.callsTo('chat.update').at(-1)!;
    expect(call.args).toMatchObject({ channel: 'C0123456789', ts: '1700000000.000001', text: line });
    const blocks = call.args.blocks as Block[];
    expect(blocks.some((b) => b.type === 'actions' || b.type === 'input')).toBe(false);
    expect(blocks.at(-1)).toEqual({ type: 'context', elements: [{ type: 'mrkdwn', text: line }] });
  });

  it('a cancel reason that escapes past 3,000 characters is cut after escaping, and Slack takes the edit', async () => {
    const q = channelQuestion({ status: 'CANCELLED', cancelReason: '&'.repeat(1000) });
    await channel().onResolved!(q, receipt);
    const call = slack.callsTo('chat.update').at(-1)!;
    const line = call.args.text as string;
    expect(line.length).toBeLessThanOrEqual(3000);
    expect(line).toMatch(/^Cancelled: (&amp;)+…$/);
    expect((call.args.blocks as Block[]).at(-1)).toEqual({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: line }],
    });
  });

  it('a failed edit throws (so it is retried); no receipt means nothing to edit', async () => {
    slack.failNext('chat.update', 'message_not_found');
    await expect(channel().onResolved!(channelQuestion({ status: 'TIMED_OUT' }), receipt)).rejects.toThrow(
      'message_not_found',
    );
    const before = slack.calls.length;
    await channel().onResolved!(channelQuestion({ status: 'TIMED_OUT' }), null);
    expect(slack.calls.length).toBe(before);
  });
});
