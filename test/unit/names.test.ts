// Names everywhere (API.md §19): the answerer's name shown where known, the stable id kept. The
// channel message edits, the CLI's detail view, Telegram's sender names, and the engine reading
// names from the store.
import { describe, expect, it } from 'vitest';
import { interpret } from '../../src/channels/slack/inbound.ts';
import { resolvedLine as slackLine } from '../../src/channels/slack/messages.ts';
import { resolvedLine as telegramLine } from '../../src/channels/telegram/format.ts';
import { interpretUpdate } from '../../src/channels/telegram/inbound.ts';
import type { ChannelQuestion } from '../../src/channels/types.ts';
import { questionDetail } from '../../src/cli/format.ts';
import { channelQuestionOf } from '../../src/engine/deliveries/question.ts';
import { createInteractions } from '../../src/engine/interactions.ts';
import { createNameRemembering, NAME_REWRITE_MS } from '../../src/engine/people/names.ts';
import { createPeople } from '../../src/engine/people/people.ts';
import { createMemoryStore } from '../../src/store/memory-store.ts';

const answered: ChannelQuestion = {
  id: 'q1',
  text: 'Deploy?',
  format: 'CONFIRM',
  options: null,
  schema: null,
  link: null,
  recipient: null,
  sensitive: false,
  status: 'ANSWERED',
  answer: true,
  answeredBy: 'oidc:ada',
  answeredByName: 'Ada Lovelace',
  cancelReason: null,
  createdAt: 0,
  timeoutAt: 1,
};

describe('channel message edits', () => {
  it('name the inbox answerer by name, else by id', () => {
    expect(slackLine(answered, 'ops-slack')).toBe('Answered in the inbox by Ada Lovelace');
    expect(telegramLine(answered, 'tg')).toBe('Answered in the inbox by Ada Lovelace');
    const unnamed = { ...answered, answeredByName: null };
    expect(slackLine(unnamed, 'ops-slack')).toBe('Answered in the inbox by oidc:ada');
    expect(telegramLine(unnamed, 'tg')).toBe('Answered in the inbox by oidc:ada');
  });

  it('name a Telegram sender by the name Telegram gave', () => {
    const q = { ...answered, answeredBy: 'tg:42', answeredByName: 'Grace Hopper' };
    expect(telegramLine(q, 'tg')).toBe('Answered by Grace Hopper: Yes');
    expect(telegramLine({ ...q, answeredByName: null }, 'tg')).toBe('Answered by user 42: Yes');
  });

  it('a sensitive question carries no name to the plugin', () => {
    const record = { ...answered, sensitive: true };
    expect(channelQuestionOf(record, 'Ada Lovelace').answeredByName).toBeNull();
    expect(channelQuestionOf(answered, 'Ada Lovelace').answeredByName).toBe('Ada Lovelace');
  });
});

describe('Telegram sender names', () => {
  const update = (from: Record<string, unknown>) =>
    Buffer.from(
      JSON.stringify({
        update_id: 1,
        callback_query: { id: 'cb', from, message: { message_id: 5, chat: { id: 9 } }, data: 'tai:0' },
      }),
    );

  it('takes first and last name, else @username, else none', () => {
    expect(interpretUpdate(update({ id: 42, first_name: 'Grace', last_name: 'Hopper' }))).toMatchObject({
      by: '42',
      byName: 'Grace Hopper',
    });
    expect(interpretUpdate(update({ id: 42, username: 'grace' }))).toMatchObject({ byName: '@grace' });
    expect(interpretUpdate(update({ id: 42 }))).not.toHaveProperty('byName');
  });
});

describe('Slack sender names', () => {
  it('takes the user name Slack sends with a button press', () => {
    const payload = {
      type: 'block_actions',
      user: { id: 'U123', name: 'grace' },
      actions: [{ action_id: 'tai_confirm_yes', value: 'q1:1' }],
    };
    const parsed = interpret(payload);
    expect(parsed).toMatchObject({ event: { kind: 'answer', by: 'U123', byName: 'grace' } });
    const anonymous = interpret({ ...payload, user: { id: 'U123' } });
    expect(anonymous).toMatchObject({ event: { by: 'U123' } });
    expect((anonymous as { event: object }).event).not.toHaveProperty('byName');
  });
});

describe('the CLI', () => {
  it('shows the name with the id beside it', () => {
    const q = {
      id: 'q1',
      text: 'Deploy?',
      format: 'CONFIRM',
      status: 'ANSWERED',
      answer: true,
      answeredBy: 'oidc:ada',
      answeredByName: 'Ada Lovelace',
      askedBy: 'agent',
      createdAt: '2026-01-01T00:00:00Z',
      timeoutAt: '2026-01-01T01:00:00Z',
    } as unknown as Parameters<typeof questionDetail>[0];
    expect(questionDetail(q)).toMatch(/Answered by +Ada Lovelace \(oidc:ada\)/);
    expect(questionDetail({ ...q, answeredByName: null })).toMatch(/Answered by +oidc:ada\n/);
  });
});

describe('the engine', () => {
  it('reads names kept in the store; unknown ids have none', async () => {
    const store = createMemoryStore();
    const engine = createInteractions({
      store,
      settings: {
        answerTimeoutSeconds: 60,
        holdSeconds: 0,
        retentionSeconds: 60,
        maxPending: 10,
        maxPendingPerPrincipal: 10,
        maxPendingMediaBytesPerPrincipal: 1000,
        maxPendingMediaBytes: 1000,
        maxOutbox: null,
        publicBaseUrl: null,
        publicBaseUrlLocal: false,
        reaperIntervalMs: 1000,
      },
    } as unknown as Parameters<typeof createInteractions>[0]);
    await createPeople(store.people).rememberName('tg:42', 'Grace Hopper');
    expect(await engine.nameOf('tg:42')).toBe('Grace Hopper');
    expect(await engine.nameOf('tg:43')).toBeNull();
    await store.close();
  });
});

describe('a channel user name remembered once in a while, not at every click', () => {
  it('writes a new or changed name, skips a repeat within NAME_REWRITE_MS, writes it again after', async () => {
    const writes: [string, string][] = [];
    let now = 1_000;
    const remember = createNameRemembering(
      { rememberName: async (id, name) => void writes.push([id, name]) },
      () => now,
    );
    await remember('slack:U1', 'ana');
    await remember('slack:U1', 'ana');
    await remember('slack:U2', 'bo');
    await remember('slack:U1', 'Ana B.');
    expect(writes).toEqual([
      ['slack:U1', 'ana'],
      ['slack:U2', 'bo'],
      ['slack:U1', 'Ana B.'],
    ]);
    now += NAME_REWRITE_MS;
    await remember('slack:U1', 'Ana B.');
    expect(writes).toHaveLength(4);
  });

  it('a write that fails is not remembered as done', async () => {
    let fail = true;
    const writes: string[] = [];
    const remember = createNameRemembering({
      rememberName: async (_id, name) => {
        if (fail) throw new Error('store down');
        writes.push(name);
      },
    });
    await expect(remember('slack:U1', 'ana')).rejects.toThrow('store down');
    fail = false;
    await remember('slack:U1', 'ana');
    expect(writes).toEqual(['ana']);
  });
});
