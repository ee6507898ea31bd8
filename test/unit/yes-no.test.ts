// One yes/no vocabulary (src/domain/yes-no.ts) for every door that reads words: a text reply, a
// reply mail and the CLI's --answer agree on every word, because they ask the same function.
import { describe, expect, it } from 'vitest';
import { modalAnswer } from '../../src/channels/discord/components.ts';
import { answerFromLine } from '../../src/channels/email/reply.ts';
import { answerFromReply } from '../../src/channels/twilio/messages.ts';
import { NO_WORDS, YES_WORDS, yesOrNo } from '../../src/domain/yes-no.ts';
import { channelQuestion } from '../support/fakes/channel-context.ts';

describe('yes/no words', () => {
  it('case, spaces and a trailing full stop or bang do not count; anything else is undefined', () => {
    expect(yesOrNo(' OK. ')).toBe(true);
    expect(yesOrNo('Approved!')).toBe(true);
    expect(yesOrNo('REJECT')).toBe(false);
    expect(yesOrNo('👎')).toBe(false);
    expect(yesOrNo('maybe')).toBeUndefined();
    expect(yesOrNo('yes please')).toBeUndefined();
    expect(YES_WORDS.filter((w) => NO_WORDS.includes(w))).toEqual([]);
  });

  it('a text reply and a reply mail read every word alike, for CONFIRM and APPROVAL', () => {
    for (const word of [...YES_WORDS, ...NO_WORDS]) {
      const yes = YES_WORDS.includes(word);
      const confirm = channelQuestion({ format: 'CONFIRM' });
      expect(answerFromReply(confirm, word), word).toBe(yes);
      expect(answerFromLine(confirm, word), word).toBe(yes);
      const approval = channelQuestion({ format: 'APPROVAL' });
      const decision = { decision: yes ? 'APPROVED' : 'REJECTED' };
      expect(answerFromReply(approval, word), word).toEqual(decision);
      expect(answerFromLine(approval, word), word).toEqual(decision);
    }
    // A Discord modal's yes/no field (typed text) reads them too.
    const form = channelQuestion({
      format: 'FORM',
      schema: { type: 'object', properties: { urgent: { type: 'boolean' } } },
    });
    for (const word of [...YES_WORDS, ...NO_WORDS]) {
      expect(modalAnswer(form, new Map([['f:0', word]])), word).toEqual({ urgent: YES_WORDS.includes(word) });
    }
    // Texts number the two choices as well: 1 and 2 are theirs alone.
    expect(answerFromReply(channelQuestion({ format: 'CONFIRM' }), '2')).toBe(false);
    expect(answerFromLine(channelQuestion({ format: 'CONFIRM' }), '2')).toBeUndefined();
  });
});

describe('APPROVAL reply mail lines', () => {
  const q = channelQuestion({ format: 'APPROVAL' });
  it('the first word decides; the rest of the line past a colon, dash or comma is the note', () => {
    expect(answerFromLine(q, 'approve')).toEqual({ decision: 'APPROVED' });
    expect(answerFromLine(q, 'Approved.')).toEqual({ decision: 'APPROVED' });
    expect(answerFromLine(q, 'reject: not on a Friday')).toEqual({
      decision: 'REJECTED',
      note: 'not on a Friday',
    });
    expect(answerFromLine(q, 'Yes — go ahead')).toEqual({ decision: 'APPROVED', note: 'go ahead' });
    expect(answerFromLine(q, 'no, wait for finance')).toEqual({
      decision: 'REJECTED',
      note: 'wait for finance',
    });
    expect(answerFromLine(q, 'noted, will check')).toBeUndefined();
    expect(
      answerFromLine(channelQuestion({ format: 'APPROVAL', sensitive: true }), 'approve'),
    ).toBeUndefined();
  });

  it('a note at the limit is kept whole; one past is cut to the limit, so the reply still decides', () => {
    const atLimit = 'n'.repeat(2000);
    expect(answerFromLine(q, `reject: ${atLimit}`)).toEqual({ decision: 'REJECTED', note: atLimit });
    const cut = answerFromLine(q, `reject: ${atLimit}x`) as { note: string };
    expect([...cut.note]).toHaveLength(2000);
    expect(cut.note.endsWith('…')).toBe(true);
  });
});
