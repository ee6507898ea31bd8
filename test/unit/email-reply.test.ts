// Reading a reply by mail: the first line of the person's own text (quoted thread and signature
// left out), and what that line answers for each format.
import { describe, expect, it } from 'vitest';
import { answerFromLine, bareAddress, firstLine, refOf } from '../../src/channels/email/reply.ts';
import { channelQuestion } from '../support/fakes/channel-context.ts';

describe('email replies', () => {
  it('the first line of its own: blank lines skipped, nothing from a quote or a signature', () => {
    expect(firstLine('\n\n  yes please  \nmore')).toBe('yes please');
    expect(firstLine('> yes\nno')).toBe('');
    expect(firstLine('On Tue, 1 Dec 2026, tai <tai@example.com> wrote:\n> Ship it?')).toBe('');
    expect(firstLine('-- \nAna')).toBe('');
    expect(firstLine('Sent from my phone\nyes')).toBe('');
    expect(firstLine('-----Original Message-----\nyes')).toBe('');
    expect(firstLine('\r\n2\r\n> 1')).toBe('2');
  });

  it('CONFIRM yes/no words, SELECT an option or its number, TEXT the line; sensitive and FORM never', () => {
    const confirm = channelQuestion({ format: 'CONFIRM' });
    expect(answerFromLine(confirm, 'Yes.')).toBe(true);
    expect(answerFromLine(confirm, 'approve')).toBe(true);
    expect(answerFromLine(confirm, 'NO')).toBe(false);
    expect(answerFromLine(confirm, 'maybe')).toBeUndefined();
    const select = channelQuestion({ format: 'SELECT', options: ['eu', 'us'] });
    expect(answerFromLine(select, 'US')).toBe('us');
    expect(answerFromLine(select, '1')).toBe('eu');
    expect(answerFromLine(select, '3')).toBeUndefined();
    expect(answerFromLine(select, '0')).toBeUndefined();
    expect(answerFromLine(channelQuestion({ format: 'TEXT' }), 'Fixes it.')).toBe('Fixes it.');
    expect(answerFromLine(channelQuestion({ format: 'TEXT', sensitive: true }), 'k-1')).toBeUndefined();
    expect(answerFromLine(channelQuestion({ format: 'FORM' }), 'x')).toBeUndefined();
  });

  it('the reference from the subject, else from a plus address; addresses bared and lower-cased', () => {
    expect(refOf({ subject: 'Re: [Q-ABC234] Ship it?', to: '' })).toBe('Q-ABC234');
    expect(refOf({ subject: 'Re: Ship it?', to: 'reply+q-abc234@in.example.com' })).toBe('Q-ABC234');
    expect(refOf({ subject: 'Re: [Q-ABC1O0]', to: '' })).toBeNull();
    expect(bareAddress('Ana <Ana@Example.com>')).toBe('ana@example.com');
    expect(bareAddress(' ana@example.com ')).toBe('ana@example.com');
  });
});
