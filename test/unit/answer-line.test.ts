// The answer as one line, as every channel's message edit says it ("Answered by Ana: …"): one
// rule per format, a sensitive answer never shown, long answers cut. The channels' own tests
// check that each edit uses it; this checks the rules once.
import { describe, expect, it } from 'vitest';
import { ANSWER_LINE_MAX, answerLine, HIDDEN_ANSWER } from '../../src/channels/answer-line.ts';
import { resolvedLine as discordLine } from '../../src/channels/discord/messages.ts';
import { resolvedLine as emailLine } from '../../src/channels/email/message.ts';
import { resolvedLine as slackLine } from '../../src/channels/slack/messages.ts';
import { resolvedLine as teamsLine } from '../../src/channels/teams/plugin.ts';
import { resolvedLine as telegramLine } from '../../src/channels/telegram/format.ts';
import type { ChannelAction } from '../../src/channels/types.ts';
import { actionDigest } from '../../src/domain/approval.ts';
import { channelQuestion } from '../support/fakes/channel-context.ts';

const action: ChannelAction = {
  name: 'payments.refund',
  summary: 'Refund order 1182',
  arguments: { amount: 40 },
  argumentsSchema: { type: 'object' },
  editable: true,
  digest: actionDigest('payments.refund', { amount: 40 }),
};
const answered = (over: Parameters<typeof channelQuestion>[0]) =>
  channelQuestion({ status: 'ANSWERED', answeredBy: 'ops:U1', ...over });

describe('answerLine', () => {
  it('CONFIRM Yes/No; SELECT and TEXT as given, on one line', () => {
    expect(answerLine(answered({ format: 'CONFIRM', answer: true }))).toBe('Yes');
    expect(answerLine(answered({ format: 'CONFIRM', answer: false }))).toBe('No');
    expect(answerLine(answered({ format: 'SELECT', options: ['eu', 'us'], answer: 'us' }))).toBe('us');
    expect(answerLine(answered({ format: 'TEXT', answer: 'line one\n\n  line two ' }))).toBe(
      'line one line two',
    );
  });

  it('APPROVAL: Approved, Approved with changes when the arguments were edited, Rejected', () => {
    const approval = (answer: unknown) => answered({ format: 'APPROVAL', action, answer });
    expect(answerLine(approval({ decision: 'APPROVED', arguments: { amount: 40 } }))).toBe('Approved');
    expect(answerLine(approval({ decision: 'APPROVED', arguments: { amount: 25 } }))).toBe(
      'Approved with changes',
    );
    expect(answerLine(approval({ decision: 'REJECTED', note: 'not today' }))).toBe('Rejected');
  });

  it('FORM and EXTERNAL as compact key: value pairs', () => {
    const form = answered({ format: 'FORM', answer: { name: 'Ada', age: 36, tags: ['a', 'b'] } });
    expect(answerLine(form)).toBe('name: Ada, age: 36, tags: ["a","b"]');
    expect(answerLine(answered({ format: 'EXTERNAL', answer: { paid: true } }))).toBe('paid: true');
    expect(answerLine(answered({ format: 'FORM', answer: {} }))).toBe('(empty)');
  });

  it('a sensitive answer is never shown, whatever its format', () => {
    for (const format of ['TEXT', 'SELECT', 'FORM'] as const) {
      const line = answerLine(answered({ format, sensitive: true, answer: 'hunter2' }));
      expect(line).toBe(HIDDEN_ANSWER);
      expect(line).not.toContain('hunter2');
    }
  });

  it('cut at the limit with an ellipsis, never inside a surrogate pair: at the limit kept whole, one past cut', () => {
    const atLimit = 'a'.repeat(ANSWER_LINE_MAX);
    expect(answerLine(answered({ format: 'TEXT', answer: atLimit }))).toBe(atLimit);
    const onePast = answerLine(answered({ format: 'TEXT', answer: `${atLimit}b` }));
    expect(onePast).toHaveLength(ANSWER_LINE_MAX);
    expect(onePast.endsWith('…')).toBe(true);
    const emoji = answerLine(answered({ format: 'TEXT', answer: '😀'.repeat(ANSWER_LINE_MAX) }), 10);
    expect(emoji).toBe(`${'😀'.repeat(4)}…`);
  });

  it('every channel says the same answer in its message edit', () => {
    const q = answered({
      format: 'APPROVAL',
      action,
      answer: { decision: 'APPROVED', arguments: { amount: 25 } },
    });
    for (const line of [
      slackLine(q, 'ops'),
      teamsLine(q, 'ops'),
      discordLine(q, 'ops'),
      telegramLine(q, 'ops'),
      emailLine(q, 'ops'),
    ]) {
      expect(line).toMatch(/^Answered by .+: Approved with changes$/);
    }
  });
});
