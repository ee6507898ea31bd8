import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_MAX_CHARS, messageBody } from '../../src/channels/twilio/messages.ts';
import { twilioPlugin } from '../../src/channels/twilio/plugin.ts';
import {
  checkTwilioSignature,
  MAX_FORM_PARAMS,
  twilioSignature,
} from '../../src/channels/twilio/signature.ts';
import type {
  ChannelQuestion,
  ChannelResponse,
  ClaimOutcome,
  DeliveryRecord,
  InboundEvent,
} from '../../src/channels/types.ts';
import { channelContext, channelQuestion } from '../support/fakes/channel-context.ts';
import { type FakeTwilio, signTwilio, startFakeTwilio, twilioRequest } from '../support/fakes/twilio.ts';

const SID = 'AC11111111111111111111111111111111';
const TOKEN = 'twilio-auth-token-for-tests';
const CALLBACK = 'https://tai.example/api/interactions/callback/TICKET-abc';
const PHONE = '+14155550100';
let twilio: FakeTwilio;

beforeAll(async () => {
  twilio = await startFakeTwilio(SID, TOKEN);
});
afterAll(() => twilio.close());

function channel(
  extra: Record<string, unknown> = {},
  secrets: Record<string, string> = { TW_SID: SID, TW_TOKEN: TOKEN },
) {
  const config = twilioPlugin.config.parse({
    accountSidEnv: 'TW_SID',
    authTokenEnv: 'TW_TOKEN',
    from: '+15005550006',
    apiUrl: twilio.apiUrl,
    contentApiUrl: twilio.contentApiUrl,
    ...extra,
  });
  return twilioPlugin.create(config, channelContext('sms', secrets));
}

async function delivered(q: ChannelQuestion, extra: Record<string, unknown> = {}) {
  const receipt = await channel(extra).deliver(q, CALLBACK);
  return { receipt, sent: twilio.messages().at(-1)! };
}

type Answer = Extract<InboundEvent, { kind: 'answer' }>;
async function reply(body: string, extra: Record<string, string> = {}, mode = {}): Promise<Answer> {
  const ev = await channel(mode).inbound!(twilioRequest(TOKEN, { From: PHONE, Body: body, ...extra }));
  expect(ev.kind).toBe('answer');
  return ev as Answer;
}

const sms = (q: Partial<ChannelQuestion> = {}) => channelQuestion({ recipient: PHONE, ...q });
const receiptFor = (short: string): DeliveryRecord => ({
  ref: `${PHONE}#${short}`,
  recipient: PHONE,
  short,
});
const body = (res: ChannelResponse) => String(res.body);

describe('twilio signature: the documented example', () => {
  // Twilio's security docs: token 12345, this URL and these parameters sign to this value.
  const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
  const params = new URLSearchParams({
    CallSid: 'CA1234567890ABCDE',
    Caller: '+14158675309',
    Digits: '1234',
    From: '+14158675309',
    To: '+18005551212',
  });
  const documented = 'RSOYDt4T1cUTdK1PDd93/VVr8B8=';

  it('computes the documented signature, and accepts it with or without the default port', () => {
    expect(twilioSignature('12345', url, params)).toBe(documented);
    expect(checkTwilioSignature('12345', documented, url, params)).toBe(true);
    expect(
      checkTwilioSignature('12345', documented, 'https://mycompany.com:443/myapp.php?foo=1&bar=2', params),
    ).toBe(true);
  });

  it('refuses a changed parameter, URL, token or signature, and a missing or repeated header', () => {
    const changed = new URLSearchParams(params);
    changed.set('Digits', '1235');
    expect(checkTwilioSignature('12345', documented, url, changed)).toBe(false);
    expect(
      checkTwilioSignature('12345', documented, 'https://mycompany.com/myapp.php?foo=1&bar=3', params),
    ).toBe(false);
    expect(checkTwilioSignature('12346', documented, url, params)).toBe(false);
    expect(checkTwilioSignature('12345', `${documented.slice(0, -2)}A=`, url, params)).toBe(false);
    expect(checkTwilioSignature('12345', undefined, url, params)).toBe(false);
    expect(checkTwilioSignature('12345', [documented], url, params)).toBe(false);
  });
});

describe('twilio channel: delivery', () => {
  it('SMS CONFIRM: the text, a short reference and numbered replies, through the Messages API', async () => {
    const { receipt, sent } = await delivered(sms({ text: 'Ship 1.4?' }));
    const call = twilio.calls.at(-1)!;
    expect(call.auth).toBe(`${SID}:${TOKEN}`);
    expect(call.path).toBe(`/2010-04-01/Accounts/${SID}/Messages.json`);
    expect(sent).toMatchObject({ To: PHONE, From: '+15005550006' });
    expect(sent.Body).toMatch(/^\[[A-Z][2-9]{2}\] Ship 1\.4\?\n\nReply 1 for Yes, 2 for No\.$/);
    const short = /^\[([A-Z][2-9]{2})\]/.exec(sent.Body!)![1]!;
    expect(receipt).toMatchObject({ ref: `${PHONE}#${short}`, recipient: PHONE, short });
    expect(receipt.messageSid).toMatch(/^SM/);
    expect(sent.Body).not.toContain('TICKET');
  });

  it('SELECT lists numbered options; TEXT asks for a reply; FORM and EXTERNAL carry their link', async () => {
    const select = (await delivered(sms({ format: 'SELECT', options: ['red', 'green'] }))).sent.Body!;
    expect(select).toMatch(/\n\n1\) red\n2\) green\nReply with a number from 1 to 2\.$/);
    expect((await delivered(sms({ format: 'TEXT' }))).sent.Body).toMatch(/\n\nReply with your answer\.$/);
    expect((await delivered(sms({ format: 'FORM' }))).sent.Body).toContain(
      `Answer on this page: ${CALLBACK}`,
    );
    const ext = (await delivered(sms({ format: 'EXTERNAL', link: 'https://pay.example/x' }))).sent.Body!;
    expect(ext).toContain('Open: https://pay.example/x');
  });

  it('bodies stay within 1,600 characters: at the limit sent whole, past it cut with the answer page link', () => {
    const q = sms({ format: 'TEXT' });
    const overhead = messageBody({ ...q, text: '' }, 'K72', CALLBACK).length;
    const at = messageBody({ ...q, text: 'x'.repeat(BODY_MAX_CHARS - overhead) }, 'K72', CALLBACK);
    expect(at).toHaveLength(BODY_MAX_CHARS);
    expect(at).not.toContain(CALLBACK);
    const past = messageBody({ ...q, text: 'x'.repeat(BODY_MAX_CHARS - overhead + 1) }, 'K72', CALLBACK);
    expect(past.length).toBeLessThanOrEqual(BODY_MAX_CHARS);
    expect(past).toContain(`(full question: ${CALLBACK})`);
    expect(past).toMatch(/Reply with your answer\.$/);
    const many = messageBody(
      sms({
        format: 'SELECT',
        text: 'y'.repeat(3000),
        options: Array.from({ length: 100 }, (_, i) => `option ${i} ${'z'.repeat(40)}`),
      }),
      'K72',
      CALLBACK,
    );
    expect(many.length).toBeLessThanOrEqual(BODY_MAX_CHARS);
    expect(many).toMatch(/\(\+\d+ more\)\nReply with a number from 1 to 100\.$/);
  });

  it('a long question is delivered (the fake refuses bodies over 1,600, as Twilio does)', async () => {
    const { sent } = await delivered(sms({ text: 'w'.repeat(5000) }));
    expect(sent.Body!.length).toBeLessThanOrEqual(BODY_MAX_CHARS);
  });

  it('WhatsApp: up to 3 short options as quick-reply buttons through the Content API', async () => {
    const extra = { mode: 'whatsapp', from: '+14155238886' };
    const { receipt, sent } = await delivered(
      sms({ format: 'SELECT', options: ['Now', 'Tonight', 'Never'] }),
      extra,
    );
    const content = twilio.calls.filter((c) => c.resource === 'Content').at(-1)!;
    const short = receipt.short as string;
    expect(content.auth).toBe(`${SID}:${TOKEN}`);
    expect(content.params).toMatchObject({
      language: 'en',
      types: {
        'twilio/quick-reply': {
          body: `[${short}] Ship it?`,
          actions: [
            { title: 'Now', id: `tai:${short}:1` },
            { title: 'Tonight', id: `tai:${short}:2` },
            { title: 'Never', id: `tai:${short}:3` },
          ],
        },
      },
    });
    expect(sent).toEqual({
      To: `whatsapp:${PHONE}`,
      From: 'whatsapp:+14155238886',
      ContentSid: receipt.contentSid,
    });
    expect(receipt).toMatchObject({ recipient: `whatsapp:${PHONE}`, ref: `whatsapp:${PHONE}#${short}` });
  });

  it('after resolution the quick-reply template is deleted (once; gone is done); plain texts need nothing', async () => {
    const extra = { mode: 'whatsapp', from: 'whatsapp:+14155238886' };
    const { receipt } = await delivered(sms(), extra);
    const sid = receipt.contentSid as string;
    expect(twilio.contents.has(sid)).toBe(true);
    await channel(extra).onResolved!(sms({ status: 'TIMED_OUT' }), receipt);
    expect(twilio.contents.has(sid)).toBe(false);
    const deletes = () => twilio.calls.filter((c) => c.method === 'DELETE');
    expect(deletes().at(-1)).toMatchObject({ path: `/v1/Content/${sid}`, auth: `${SID}:${TOKEN}` });
    await expect(channel(extra).onResolved!(sms({ status: 'TIMED_OUT' }), receipt)).resolves.toBeUndefined();
    const count = deletes().length;
    await channel().onResolved!(sms({ status: 'TIMED_OUT' }), receiptFor('K72'));
    await channel().onResolved!(sms({ status: 'TIMED_OUT' }), null);
    expect(deletes().length).toBe(count);
    const other = (await delivered(sms(), extra)).receipt;
    twilio.failNext('Content', 503, 20503);
    await expect(channel(extra).onResolved!(sms({ status: 'TIMED_OUT' }), other)).rejects.toThrow('HTTP 503');
  });

  it('WhatsApp: when the Content API refuses, the question goes out as numbered text', async () => {
    twilio.failNext('Content', 500, 20500);
    const { receipt, sent } = await delivered(sms(), { mode: 'whatsapp', from: 'whatsapp:+14155238886' });
    expect(sent.Body).toMatch(/Reply 1 for Yes, 2 for No\.$/);
    expect(sent.ContentSid).toBeUndefined();
    expect(receipt.contentSid).toBeUndefined();
  });

  it('WhatsApp: labels of exactly 20 characters are buttons; a long question is cut to the 1,024-character button body', async () => {
    const extra = { mode: 'whatsapp', from: 'whatsapp:+14155238886' };
    const twenty = 'x'.repeat(20);
    await delivered(sms({ format: 'SELECT', options: [twenty, 'b'], text: 'q'.repeat(3000) }), extra);
    const content = twilio.calls.filter((c) => c.resource === 'Content' && c.method === 'POST').at(-1)!;
    const reply = (content.params.types as Record<string, { body: string; actions: { title: string }[] }>)[
      'twilio/quick-reply'
    ]!;
    expect(reply.actions.map((a) => a.title)).toEqual([twenty, 'b']);
    expect(reply.body.length).toBeLessThanOrEqual(1024);
    expect(reply.body).toContain(`(full question: ${CALLBACK})`);
  });

  it('WhatsApp: four options, or a label over 20 characters, fall back to numbered text', async () => {
    const extra = { mode: 'whatsapp', from: 'whatsapp:+14155238886' };
    const contents = twilio.calls.filter((c) => c.resource === 'Content').length;
    const four = (await delivered(sms({ format: 'SELECT', options: ['a', 'b', 'c', 'd'] }), extra)).sent;
    expect(four.Body).toContain('4) d');
    const long = (await delivered(sms({ format: 'SELECT', options: ['a', 'x'.repeat(21)] }), extra)).sent;
    expect(long.Body).toContain('2) xxx');
    expect(twilio.calls.filter((c) => c.resource === 'Content').length).toBe(contents);
  });

  it('a refusal fails delivery with the HTTP status and Twilio code, never a credential', async () => {
    twilio.failNext('Messages', 400, 21211);
    const err = await channel()
      .deliver(sms(), CALLBACK)
      .catch((e: Error) => e);
    expect((err as Error).message).toBe('twilio Messages failed: HTTP 400, code 21211');
    const wrong = await channel({}, { TW_SID: SID, TW_TOKEN: 'wrong' })
      .deliver(sms(), CALLBACK)
      .catch((e: Error) => e);
    expect((wrong as Error).message).toContain('HTTP 401');
    expect((wrong as Error).message).not.toContain('wrong');
    await expect(channel().deliver(sms({ recipient: null }), CALLBACK)).rejects.toThrow('no recipient');
    await expect(channel({}, { TW_SID: SID }).deliver(sms(), CALLBACK)).rejects.toThrow('TW_TOKEN');
  });

  it("setup() points the SMS number's incoming webhook at the inbound door; WhatsApp and unknown numbers are explained", async () => {
    const line = await channel().setup!();
    expect(twilio.smsUrl()).toBe('https://tai.example/api/interactions/channels/sms');
    const update = twilio.calls.filter((c) => c.resource === 'IncomingPhoneNumbers').at(-1)!;
    expect(update).toMatchObject({ method: 'POST', auth: `${SID}:${TOKEN}`, params: { SmsMethod: 'POST' } });
    expect(line).toBe(
      'Twilio will post messages to +15005550006 to https://tai.example/api/interactions/channels/sms',
    );
    await expect(channel({ from: '+15005550007' }).setup!()).rejects.toThrow(
      '+15005550007 is not a phone number of this Twilio account',
    );
    await expect(channel({ mode: 'whatsapp' }).setup!()).rejects.toThrow('set up in the Twilio console');
    const wrong = await channel({}, { TW_SID: SID, TW_TOKEN: 'nope' }).setup!().catch((e: Error) => e);
    expect((wrong as Error).message).toBe('twilio IncomingPhoneNumbers failed: HTTP 401');
  });

  it('config and recipients: E.164 numbers; a whatsapp: sender needs whatsapp mode', () => {
    const parse = (c: Record<string, unknown>) =>
      twilioPlugin.config.safeParse({ accountSidEnv: 'A', authTokenEnv: 'B', from: '+15005550006', ...c })
        .success;
    expect(parse({})).toBe(true);
    expect(parse({ from: '5550006' })).toBe(false);
    expect(parse({ from: 'whatsapp:+15005550006' })).toBe(false);
    expect(parse({ from: 'whatsapp:+15005550006', mode: 'whatsapp' })).toBe(true);
    expect(parse({ mode: 'fax' })).toBe(false);
    expect(parse({ defaultRecipient: '0044 20' })).toBe(false);
    expect(channel().checkRecipient!(PHONE)).toBeNull();
    expect(channel().checkRecipient!('whatsapp:+14155550100')).toMatch(/E\.164/);
    expect(channel({ mode: 'whatsapp' }).checkRecipient!('whatsapp:+14155550100')).toBeNull();
    expect(channel().checkRecipient!('C0123')).toMatch(/E\.164/);
  });
});

describe('twilio channel: replies', () => {
  const outcome = (q: ChannelQuestion, r: DeliveryRecord | null = receiptFor('K72')): ClaimOutcome => ({
    kind: 'recorded',
    question: q,
    delivery: r,
  });

  it('CONFIRM by "1" and by "yes" (and their kin) answers the latest question to that number', async () => {
    const q = sms();
    for (const [text, want] of [
      ['1', true],
      ['yes', true],
      [' Y ', true],
      ['OK!', true],
      ['2', false],
      ['no', false],
      ['N.', false],
    ] as const) {
      const ev = await reply(text);
      expect(ev.question).toEqual({ latestFor: PHONE });
      expect(ev.by).toBe(PHONE);
      expect(ev.answer(q)).toBe(want);
    }
    expect((await reply('maybe')).answer(q)).toBeUndefined();
    expect((await reply('3')).answer(q)).toBeUndefined();
  });

  it('SELECT by number or by the exact option; anything else is no answer', async () => {
    const q = sms({ format: 'SELECT', options: ['red', 'Green', 'blue'] });
    expect((await reply('2')).answer(q)).toBe('Green');
    expect((await reply('green')).answer(q)).toBe('Green');
    expect((await reply('4')).answer(q)).toBeUndefined();
    expect((await reply('0')).answer(q)).toBeUndefined();
    expect((await reply('gre')).answer(q)).toBeUndefined();
  });

  it('TEXT by free reply: the text is the answer', async () => {
    expect((await reply('Use the blue one, please.')).answer(sms({ format: 'TEXT' }))).toBe(
      'Use the blue one, please.',
    );
  });

  it('a reply starting with a reference names that question of this number', async () => {
    for (const text of ['K72 2', 'k72 2', '[K72] 2', 'K72: 2']) {
      const ev = await reply(text);
      expect(ev.question).toEqual({ ref: `${PHONE}#K72` });
      expect(ev.answer(sms())).toBe(false);
    }
    const text = await reply('K72 deploy after lunch');
    expect(text.answer(sms({ format: 'TEXT' }))).toBe('deploy after lunch');
  });

  it('TwiML confirms what was recorded; a sensitive answer is not echoed', async () => {
    const ev = await reply('1');
    ev.answer(sms());
    const res = await ev.respond(outcome(sms({ status: 'ANSWERED', answer: true })));
    expect(res.status).toBe(200);
    expect(res.headers).toEqual({ 'content-type': 'text/xml; charset=utf-8' });
    expect(body(res)).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Message>Recorded for K72: Yes.</Message></Response>',
    );
    const secret = await ev.respond(outcome(sms({ status: 'ANSWERED', answer: null, sensitive: true })));
    expect(body(secret)).toContain('<Message>Recorded for K72.</Message>');
    const select = await ev.respond(outcome(sms({ format: 'SELECT', options: ['<a&b>'], answer: '<a&b>' })));
    expect(body(select)).toContain('Recorded for K72: &lt;a&amp;b&gt;.');
  });

  it('an invalid reply is explained with what to send (nothing is claimed: the engine refuses undefined)', async () => {
    const ev = await reply('maybe');
    expect(ev.answer(sms())).toBeUndefined();
    const res = await ev.respond({
      kind: 'invalid',
      message: 'no answer',
      question: sms(),
      delivery: receiptFor('K72'),
    });
    expect(body(res)).toContain(
      'Not understood. Reply &quot;K72 1&quot; for Yes or &quot;K72 2&quot; for No.',
    );
    const sel = await reply('purple');
    const q = sms({ format: 'SELECT', options: ['a', 'b'] });
    expect(sel.answer(q)).toBeUndefined();
    const selRes = await sel.respond({
      kind: 'invalid',
      message: 'x',
      question: q,
      delivery: receiptFor('B34'),
    });
    expect(body(selRes)).toContain('a number from 1 to 2, e.g. &quot;B34 1&quot;');
    const form = await reply('anything');
    expect(form.answer(sms({ format: 'FORM' }))).toBeUndefined();
  });

  it('an ambiguous free-text reply (several questions open to this number) asks for the reference', async () => {
    const ev = await reply('ship it tomorrow');
    const q = sms({ format: 'TEXT' });
    expect(ev.answer(q, { pendingForRecipient: 2 })).toBeUndefined();
    const res = await ev.respond({
      kind: 'invalid',
      message: 'no answer',
      question: q,
      delivery: receiptFor('C56'),
    });
    expect(body(res)).toContain(
      'Several questions are waiting for your answer. Reply &quot;C56&quot; followed by your answer.',
    );
    // One open question, or a reference given: the text is the answer.
    expect((await reply('ship it')).answer(q, { pendingForRecipient: 1 })).toBe('ship it');
    expect((await reply('C56 ship it')).answer(q, { pendingForRecipient: 3 })).toBe('ship it');
  });

  it('an answer the engine refused for its own reasons shows its message; closed and unknown are explained', async () => {
    const ev = await reply('K72 fine');
    ev.answer(sms({ format: 'TEXT' }));
    const bad = await ev.respond({
      kind: 'invalid',
      message: 'answer too long',
      question: sms(),
      delivery: receiptFor('K72'),
    });
    expect(body(bad)).toContain('Not accepted for K72: answer too long');
    const closed = await ev.respond({
      kind: 'closed',
      question: sms({ status: 'TIMED_OUT' }),
      delivery: receiptFor('K72'),
    });
    expect(body(closed)).toContain('K72 timed out; your reply was not recorded.');
    expect(body(await ev.respond({ kind: 'not-found' }))).toContain(
      'There is no open question K72 for this number.',
    );
    expect(body(await (await reply('1')).respond({ kind: 'not-found' }))).toContain(
      'There is no open question for this number.',
    );
  });

  it('WhatsApp quick-reply presses arrive as their payload and answer by index', async () => {
    const whatsapp = { mode: 'whatsapp', from: 'whatsapp:+14155238886' };
    const ev = await channel(whatsapp).inbound!(
      twilioRequest(TOKEN, {
        From: `whatsapp:${PHONE}`,
        Body: 'Tonight',
        ButtonText: 'Tonight',
        ButtonPayload: 'tai:Q23:2',
      }),
    );
    expect(ev.kind).toBe('answer');
    const answer = ev as Answer;
    expect(answer.question).toEqual({ ref: `whatsapp:${PHONE}#Q23` });
    expect(answer.by).toBe(`whatsapp:${PHONE}`);
    expect(answer.answer(sms({ format: 'SELECT', options: ['Now', 'Tonight', 'Never'] }))).toBe('Tonight');
    const yes = (await channel(whatsapp).inbound!(
      twilioRequest(TOKEN, { From: `whatsapp:${PHONE}`, Body: 'Yes', ButtonPayload: 'tai:Q23:1' }),
    )) as Answer;
    expect(yes.answer(sms())).toBe(true);
  });

  it('a bad or missing signature is 401; without the auth token the door fails closed (500)', async () => {
    const fields = { From: PHONE, Body: '1' };
    expect(await channel().inbound!(twilioRequest(TOKEN, fields, { signature: 'AAAA' }))).toMatchObject({
      kind: 'reject',
      status: 401,
    });
    expect(await channel().inbound!(twilioRequest('other-token', fields))).toMatchObject({
      kind: 'reject',
      status: 401,
    });
    const signedElsewhere = twilioRequest(TOKEN, fields, {
      signature: signTwilio(TOKEN, 'https://other.example/x', { ...fields }),
    });
    expect(await channel().inbound!(signedElsewhere)).toMatchObject({ kind: 'reject', status: 401 });
    const missing = twilioRequest(TOKEN, fields);
    delete missing.headers['x-twilio-signature'];
    expect(await channel().inbound!(missing)).toMatchObject({ kind: 'reject', status: 401 });
    expect(await channel({}, { TW_SID: SID }).inbound!(twilioRequest(TOKEN, fields))).toMatchObject({
      kind: 'reject',
      status: 500,
    });
  });

  it(`a signed request of ${MAX_FORM_PARAMS} parameters is read; one more is 413 before its signature is checked`, async () => {
    const padding = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`X${i}`, 'x']));
    // twilioRequest adds four parameters of its own to From and Body.
    const atCap = twilioRequest(TOKEN, { From: PHONE, Body: '1', ...padding(MAX_FORM_PARAMS - 6) });
    expect(new URLSearchParams(atCap.rawBody.toString()).size).toBe(MAX_FORM_PARAMS);
    expect((await channel().inbound!(atCap)).kind).toBe('answer');
    const past = twilioRequest(TOKEN, { From: PHONE, Body: '1', ...padding(MAX_FORM_PARAMS - 5) });
    expect(await channel().inbound!(past)).toMatchObject({ kind: 'reject', status: 413 });
    // Refused before the signature: a forged one gets the same answer.
    const forged = twilioRequest(TOKEN, { From: PHONE, ...padding(MAX_FORM_PARAMS) }, { signature: 'AAAA' });
    expect(await channel().inbound!(forged)).toMatchObject({ kind: 'reject', status: 413 });
  });

  it('repeated parameter names are signed as Twilio signs them: by name, then each value in order', () => {
    const params = new URLSearchParams('b=2&a=9&b=1&a=0');
    const expected = createHmac('sha1', 'tok').update('https://x/ya0a9b1b2').digest('base64');
    expect(twilioSignature('tok', 'https://x/y', params)).toBe(expected);
  });

  it('a signed request without a sender is 400; STOP and HELP are left to Twilio (empty TwiML)', async () => {
    expect(await channel().inbound!(twilioRequest(TOKEN, { Body: '1' }))).toMatchObject({
      kind: 'reject',
      status: 400,
    });
    const stop = await channel().inbound!(twilioRequest(TOKEN, { From: PHONE, Body: 'STOP' }));
    expect(stop).toEqual({
      kind: 'ignore',
      response: {
        status: 200,
        headers: { 'content-type': 'text/xml; charset=utf-8' },
        body: '<?xml version="1.0" encoding="UTF-8"?><Response></Response>',
      },
    });
  });
});
