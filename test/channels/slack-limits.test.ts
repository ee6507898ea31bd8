// Slack's published Block Kit limits, each at the limit and one past it: the loopback fake refuses
// what Slack refuses (with Slack's error shape), and the plugin's own check (block-kit.ts), which
// decides what is never sent, agrees with it on every case.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MODAL_MAX_ENCODED_BYTES,
  messageProblem,
  SLACK_INBOUND_MAX_BYTES,
  viewProblem,
} from '../../src/channels/slack/block-kit.ts';
import { formFields, formModal, slackModal } from '../../src/channels/slack/blocks.ts';
import { channelQuestion } from '../support/fakes/channel-context.ts';
import { type FakeSlack, startFakeSlack } from '../support/fakes/slack.ts';

const TOKEN = 'xoxb-limits-0001';
let slack: FakeSlack;
beforeAll(async () => {
  slack = await startFakeSlack(TOKEN);
});
afterAll(() => slack.close());

async function call(method: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await fetch(`${slack.apiUrl}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(args),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

const plain = (text: string) => ({ type: 'plain_text', text, emoji: false });
const mrkdwn = (text: string) => ({ type: 'mrkdwn', text, verbatim: true });
const a = (n: number) => 'a'.repeat(n);
const section = (text = 'x', extra = {}) => ({ type: 'section', text: mrkdwn(text), ...extra });
const button = (over: Record<string, unknown> = {}) => ({
  type: 'button',
  action_id: 'b',
  text: plain('Yes'),
  value: 'q:1',
  ...over,
});
const actions = (elements: unknown[], extra = {}) => ({ type: 'actions', elements, ...extra });
const option = (text: string, value = '0') => ({ text: plain(text), value });
const select = (options: unknown[], extra = {}) => ({
  type: 'static_select',
  action_id: 's',
  options,
  ...extra,
});
const input = (label = 'Name', extra = {}) => ({
  type: 'input',
  block_id: 'f:name',
  label: plain(label),
  element: { type: 'plain_text_input', action_id: 'v' },
  ...extra,
});
const modal = (blocks: unknown[], over: Record<string, unknown> = {}) => ({
  type: 'modal',
  callback_id: 'tai_form',
  private_metadata: 'q_1',
  title: plain('Answer'),
  submit: plain('Submit'),
  close: plain('Cancel'),
  blocks,
  ...over,
});

/** [limit, the message blocks or modal with `n` of the measured thing, the limit's value, the pointer refused]. */
type Case = [string, 'message' | 'modal', (n: number) => unknown, number, string];

const cases: Case[] = [
  ['message blocks', 'message', (n) => Array.from({ length: n }, () => section()), 50, '/blocks'],
  ['section text', 'message', (n) => [section(a(n))], 3000, '/blocks/0/text/text'],
  ['block_id', 'message', (n) => [section('x', { block_id: a(n) })], 255, '/blocks/0/block_id'],
  [
    'action_id',
    'message',
    (n) => [actions([button({ action_id: a(n) })])],
    255,
    '/blocks/0/elements/0/action_id',
  ],
  [
    'button text',
    'message',
    (n) => [actions([button({ text: plain(a(n)) })])],
    75,
    '/blocks/0/elements/0/text/text',
  ],
  [
    'button url',
    'message',
    (n) => [actions([button({ url: `https://x.example/${a(n - 18)}` })])],
    3000,
    '/blocks/0/elements/0/url',
  ],
  [
    'button value',
    'message',
    (n) => [actions([button({ value: a(n) })])],
    2000,
    '/blocks/0/elements/0/value',
  ],
  [
    'actions elements',
    'message',
    (n) => [actions(Array.from({ length: n }, (_, i) => button({ action_id: `b${i}` })))],
    25,
    '/blocks/0/elements',
  ],
  [
    'context elements',
    'message',
    (n) => [{ type: 'context', elements: Array.from({ length: n }, () => mrkdwn('x')) }],
    10,
    '/blocks/0/elements',
  ],
  [
    'context text',
    'message',
    (n) => [{ type: 'context', elements: [mrkdwn(a(n))] }],
    3000,
    '/blocks/0/elements/0/text',
  ],
  [
    'select options',
    'message',
    (n) => [actions([select(Array.from({ length: n }, (_, i) => option(`o${i}`, String(i))))])],
    100,
    '/blocks/0/elements/0/options',
  ],
  [
    'option text',
    'message',
    (n) => [actions([select([option(a(n))])])],
    75,
    '/blocks/0/elements/0/options/0/text/text',
  ],
  [
    'option value',
    'message',
    (n) => [actions([select([option('x', a(n))])])],
    150,
    '/blocks/0/elements/0/options/0/value',
  ],
  [
    'select placeholder',
    'message',
    (n) => [actions([select([option('x')], { placeholder: plain(a(n)) })])],
    150,
    '/blocks/0/elements/0/placeholder/text',
  ],
  ['input label', 'modal', (n) => modal([input(a(n))]), 2000, '/view/blocks/0/label/text'],
  [
    'modal blocks',
    'modal',
    (n) => modal(Array.from({ length: n }, (_, i) => input('x', { block_id: `f:${i}` }))),
    100,
    '/view/blocks',
  ],
  ['modal title', 'modal', (n) => modal([input()], { title: plain(a(n)) }), 24, '/view/title/text'],
  ['modal submit', 'modal', (n) => modal([input()], { submit: plain(a(n)) }), 24, '/view/submit/text'],
  ['modal callback_id', 'modal', (n) => modal([input()], { callback_id: a(n) }), 255, '/view/callback_id'],
  [
    'modal private_metadata',
    'modal',
    (n) => modal([input()], { private_metadata: a(n) }),
    3000,
    '/view/private_metadata',
  ],
  [
    'modal field block_id',
    'modal',
    (n) => modal([input('x', { block_id: a(n) })]),
    255,
    '/view/blocks/0/block_id',
  ],
  [
    'modal option text (an empty enum value)',
    'modal',
    (n) => modal([input('x', { element: select([option(a(n))], { action_id: 'v' }) })]),
    1,
    '/view/blocks/0/element/options/0/text/text',
  ],
];

async function send(surface: 'message' | 'modal', payload: unknown) {
  return surface === 'message'
    ? call('chat.postMessage', { channel: 'C0123456789', text: 'x', blocks: payload })
    : call('views.open', { trigger_id: '1.2.3', view: payload });
}

const pluginCheck = (surface: 'message' | 'modal', payload: unknown) =>
  surface === 'message' ? messageProblem(payload) : viewProblem(payload);

describe('the fake Slack refuses what Slack refuses; the plugin check agrees', () => {
  it.each(cases)(
    '%s: taken at the limit, refused one past it',
    async (_name, surface, make, limit, pointer) => {
      // "One past" an at-least-one limit (an empty text) is one below it.
      const past = limit === 1 ? 0 : limit + 1;
      const atLimit = await send(surface, make(limit));
      expect(atLimit.ok, JSON.stringify(atLimit)).toBe(true);
      expect(pluginCheck(surface, make(limit))).toBeNull();

      const refused = await send(surface, make(past));
      expect(refused).toMatchObject({
        ok: false,
        error: surface === 'message' ? 'invalid_blocks' : 'invalid_arguments',
      });
      const messages = (refused.response_metadata as { messages: string[] }).messages;
      expect(messages.some((m) => m.startsWith('[ERROR] ') && m.endsWith(`[json-pointer:${pointer}]`))).toBe(
        true,
      );
      const problem = pluginCheck(surface, make(past));
      expect(problem).not.toBeNull();
      // The plugin names the same place (a view's pointers are relative to the view).
      expect(problem!.startsWith(pointer.replace(/^\/view/, ''))).toBe(true);
    },
  );

  it('message text: 40,000 characters taken, one more is msg_too_long', async () => {
    expect((await call('chat.postMessage', { channel: 'C1', text: a(40_000) })).ok).toBe(true);
    expect(await call('chat.postMessage', { channel: 'C1', text: a(40_001) })).toEqual({
      ok: false,
      error: 'msg_too_long',
    });
  });
});

describe('a modal is offered only when its submission fits the inbound door', () => {
  const form = (fields: number, values: number, label: string) =>
    channelQuestion({
      format: 'FORM',
      schema: {
        type: 'object',
        properties: Object.fromEntries(
          Array.from({ length: fields }, (_, f) => [
            `field${f}`,
            { enum: Array.from({ length: values }, (_, v) => `${label}${v}`) },
          ]),
        ),
      },
    });

  it('the report’s 12 fields × 60 values is a modal whose submission fits; 50 × 100 long labels is not', () => {
    const wide = slackModal(form(12, 60, 'ラベル'.repeat(20)));
    expect(wide).not.toBeNull();
    // A submission repeats the view, form-encoded: it must fit the door with room to spare.
    const encoded = Buffer.byteLength(new URLSearchParams({ v: JSON.stringify(wide) }).toString()) - 2;
    expect(encoded).toBeLessThanOrEqual(MODAL_MAX_ENCODED_BYTES);
    expect(MODAL_MAX_ENCODED_BYTES * 2).toBe(SLACK_INBOUND_MAX_BYTES);
    const huge = form(50, 100, 'ラベル'.repeat(24));
    expect(viewProblem(formModal(huge, formFields(huge.schema)!))).toMatch(
      /more than the 524288 bytes the door takes/,
    );
    expect(slackModal(huge)).toBeNull();
  });
});
