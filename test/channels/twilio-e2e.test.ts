// The twilio channel end to end (issue 12): the real server on Redis with a manifest naming an SMS
// and a WhatsApp channel, a local fake of the Twilio REST API, and inbound messages posted to the
// channels' inbound doors exactly as Twilio posts them, signed over the public URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlAt, manifestOf, startChannelServer } from '../support/channel-server.ts';
import { type FakeTwilio, signTwilio, startFakeTwilio } from '../support/fakes/twilio.ts';
import type { TestServer } from '../support/server.ts';

const SID = 'AC22222222222222222222222222222222';
const TOKEN = 'e2e-twilio-auth-token';
const PHONE = '+447700900123';
/** The test server's INTERACTIONS_PUBLIC_BASE_URL: Twilio signs the URL it was configured with. */
const PUBLIC = 'http://127.0.0.1:4000';
let twilio: FakeTwilio;
let t: TestServer;
let base: string;

beforeAll(async () => {
  twilio = await startFakeTwilio(SID, TOKEN);
  const channel = (name: string, from: string, mode: string) => [
    `  ${name}:`,
    '    plugin: twilio',
    '    config:',
    '      accountSidEnv: TWILIO_ACCOUNT_SID',
    '      authTokenEnv: TWILIO_AUTH_TOKEN',
    `      from: "${from}"`,
    `      mode: ${mode}`,
    `      defaultRecipient: "${PHONE}"`,
    `      apiUrl: ${twilio.apiUrl}`,
    `      contentApiUrl: ${twilio.contentApiUrl}`,
  ];
  const manifest = await manifestOf(
    [
      'channels:',
      ...channel('ops-sms', '+15005550006', 'sms'),
      ...channel('ops-wa', 'whatsapp:+14155238886', 'whatsapp'),
    ],
    { TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: TOKEN },
  );
  t = await startChannelServer(manifest);
  base = await t.listen();
});
afterAll(async () => {
  await t?.close();
  await twilio?.close();
});

const gql = graphqlAt(() => base);

const ASK = `mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) { question { id } } }`;

/** Asks through a channel; returns the question id, its short reference and the message sent. */
async function ask(input: Record<string, unknown>, channel = 'ops-sms') {
  const r = await gql(ASK, { input: { channel, ...input } });
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  const id = r.data!.askUser.question.id as string;
  const text = String(input.text);
  const sent = await twilio.waitForMessage((p) => (p.Body ?? contentBody(p.ContentSid)).includes(text));
  const short = /^\[([A-Z][2-9]{2})\]/.exec(sent.Body ?? contentBody(sent.ContentSid!))![1]!;
  return { id, short, sent };
}

/** The body of the quick-reply template the fake made with this sid. */
function contentBody(sid: string | undefined): string {
  const made = twilio.calls.find((c) => c.resource === 'Content' && c.result?.sid === sid);
  const types = made?.params.types as { 'twilio/quick-reply': { body: string } } | undefined;
  return types?.['twilio/quick-reply'].body ?? '';
}

async function question(id: string) {
  const r = await gql('query($id: ID!) { question(id: $id) { status answer answeredBy } }', { id }, 'ops');
  return r.data!.question as { status: string; answer: unknown; answeredBy: string | null };
}

/** An inbound message as Twilio posts it; returns the status and the TwiML. */
async function text(
  body: string,
  opts: { from?: string; channel?: string; signature?: string; extra?: Record<string, string> } = {},
) {
  const channel = opts.channel ?? 'ops-sms';
  const params = {
    MessageSid: `SM${Math.random().toString(16).slice(2).padEnd(32, '0')}`,
    AccountSid: SID,
    From: opts.from ?? PHONE,
    To: '+15005550006',
    Body: body,
    NumMedia: '0',
    ...opts.extra,
  };
  const url = `${PUBLIC}/api/interactions/channels/${channel}`;
  const res = await fetch(`${base}/api/interactions/channels/${channel}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': opts.signature ?? signTwilio(TOKEN, url, params),
    },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, type: res.headers.get('content-type'), twiml: await res.text() };
}

const message = (twiml: string) => /<Message>(.*)<\/Message>/s.exec(twiml)?.[1] ?? null;

describe('twilio channel end to end (redis)', () => {
  it('SMS APPROVAL: the action and how to answer, "2" rejects, the page link for details', async () => {
    const { id, short, sent } = await ask({
      text: 'Refund order 88?',
      format: 'APPROVAL',
      action: { name: 'payments.refund', summary: 'Refund 100', arguments: { charge: 'ch_1' } },
    });
    expect(sent.Body).toContain('payments.refund: Refund 100');
    expect(sent.Body).toContain('Reply 1 to Approve, 2 to Reject.');
    expect(sent.Body).toContain('/api/interactions/callback/');
    const res = await text(`${short} 2`);
    expect(message(res.twiml)).toBe(`Recorded for ${short}: Rejected.`);
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: { decision: 'REJECTED' } });
  });

  it('SMS APPROVAL with a quorum: "approve" is a vote, the question stays pending', async () => {
    const { id, short } = await ask({
      text: 'Rotate the keys by SMS?',
      format: 'APPROVAL',
      action: { name: 'keys.rotate', arguments: {} },
      quorum: { approvals: 2 },
    });
    const res = await text(`${short} approve`);
    expect(message(res.twiml)).toBe(`Your vote on ${short} is recorded.`);
    expect((await question(id)).status).toBe('PENDING');
    // Closed again, so the number's later questions are the only ones open to it.
    const closed = await gql('mutation($id: ID!) { cancelQuestion(id: $id) { status } }', { id });
    expect(closed.data!.cancelQuestion.status).toBe('CANCELLED');
  });

  it('`channels` lists both configured Twilio channels', async () => {
    const r = await gql('{ channels channelDetails { name plugin inbound ready } }');
    expect(r.data!.channels).toEqual(['ops-sms', 'ops-wa']);
    expect(r.data!.channelDetails).toEqual([
      { name: 'ops-sms', plugin: 'twilio', inbound: true, ready: true },
      { name: 'ops-wa', plugin: 'twilio', inbound: true, ready: true },
    ]);
  });

  it('SMS CONFIRM by "1": recorded as ops-sms:<number>, confirmed in TwiML', async () => {
    const { id, short, sent } = await ask({ text: 'Restart the API?', format: 'CONFIRM' });
    expect(sent).toMatchObject({ To: PHONE, From: '+15005550006' });
    expect(sent.Body).toContain('Reply 1 for Yes, 2 for No.');
    const res = await text('1');
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/xml/);
    expect(message(res.twiml)).toBe(`Recorded for ${short}: Yes.`);
    expect(await question(id)).toMatchObject({
      status: 'ANSWERED',
      answer: true,
      answeredBy: `ops-sms:${PHONE}`,
    });
  });

  it('SMS CONFIRM by "yes"', async () => {
    const { id } = await ask({ text: 'Rotate the keys?', format: 'CONFIRM' });
    expect((await text('Yes')).status).toBe(200);
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: true });
  });

  it('SELECT by number, and TEXT by free reply', async () => {
    const select = await ask({
      text: 'Which size?',
      format: 'SELECT',
      options: ['small', 'medium', 'large'],
    });
    expect(message((await text('3')).twiml)).toBe(`Recorded for ${select.short}: large.`);
    expect(await question(select.id)).toMatchObject({ answer: 'large' });
    const free = await ask({ text: 'Any notes for the release?', format: 'TEXT' });
    expect(message((await text('Ship after the standup.')).twiml)).toBe(`Recorded for ${free.short}.`);
    expect(await question(free.id)).toMatchObject({ answer: 'Ship after the standup.' });
  });

  it('two questions pending to one number are answered by their references', async () => {
    const first = await ask({ text: 'First: approve budget?', format: 'CONFIRM' });
    const second = await ask({ text: 'Second: pick a day', format: 'SELECT', options: ['Mon', 'Tue'] });
    expect(message((await text(`${first.short} no`)).twiml)).toBe(`Recorded for ${first.short}: No.`);
    expect(message((await text(`${second.short.toLowerCase()} 2`)).twiml)).toBe(
      `Recorded for ${second.short}: Tue.`,
    );
    expect(await question(first.id)).toMatchObject({ answer: false });
    expect(await question(second.id)).toMatchObject({ answer: 'Tue' });
  });

  it('an ambiguous or invalid reply is explained and changes nothing', async () => {
    const { id, short } = await ask({ text: 'Scale up now?', format: 'CONFIRM' });
    const res = await text('maybe later');
    expect(res.status).toBe(200);
    expect(message(res.twiml)).toBe(
      `Not understood. Reply "${short} 1" for Yes or "${short} 2" for No.`.replace(/"/g, '&quot;'),
    );
    expect((await question(id)).status).toBe('PENDING');
    // O is never issued (it reads as 0), so no earlier question of this number can hold O99.
    const unknown = await text('O99 1');
    expect(message(unknown.twiml)).toBe('There is no open question O99 for this number.');
    expect((await question(id)).status).toBe('PENDING');
    // Another number cannot answer this number's question, even with its reference.
    const stranger = await text(`${short} 1`, { from: '+447700900999' });
    expect(message(stranger.twiml)).toBe(`There is no open question ${short} for this number.`);
    expect((await question(id)).status).toBe('PENDING');
    await text('1');
  });

  it('a free-text reply with two TEXT questions open to the number asks which one, and changes nothing', async () => {
    const first = await ask({ text: 'Release notes?', format: 'TEXT' });
    const second = await ask({ text: 'Rollback plan?', format: 'TEXT' });
    const res = await text('Ship it on Friday.');
    expect(message(res.twiml)).toMatch(/^Several questions are waiting for your answer\. /);
    expect(message(res.twiml)).toContain(second.short);
    expect((await question(first.id)).status).toBe('PENDING');
    expect((await question(second.id)).status).toBe('PENDING');
    expect(message((await text(`${first.short} Ship it on Friday.`)).twiml)).toBe(
      `Recorded for ${first.short}.`,
    );
    // One left open: a free reply answers it.
    expect(message((await text('Revert the tag.')).twiml)).toBe(`Recorded for ${second.short}.`);
    expect(await question(first.id)).toMatchObject({ status: 'ANSWERED', answer: 'Ship it on Friday.' });
    expect(await question(second.id)).toMatchObject({ status: 'ANSWERED', answer: 'Revert the tag.' });
  });

  it('a captured, correctly signed reply sent again after a new question changes nothing (issue 21)', async () => {
    const first = await ask({ text: 'Replay target one?', format: 'CONFIRM' });
    const sid = { MessageSid: `SM${'7'.repeat(32)}` };
    expect(message((await text('1', { extra: sid })).twiml)).toBe(`Recorded for ${first.short}: Yes.`);
    const second = await ask({ text: 'Replay target two?', format: 'CONFIRM' });
    const replayed = await text('1', { extra: sid });
    expect([replayed.status, message(replayed.twiml)]).toEqual([200, null]);
    expect((await question(second.id)).status).toBe('PENDING');
    await text('2');
    expect(await question(second.id)).toMatchObject({ status: 'ANSWERED', answer: false });
  });

  it('a bad signature is 401 and changes nothing', async () => {
    const { id } = await ask({ text: 'Signed properly?', format: 'CONFIRM' });
    expect((await text('1', { signature: 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=' })).status).toBe(401);
    expect((await question(id)).status).toBe('PENDING');
    await text('2');
  });

  it('WhatsApp: quick-reply buttons; a press answers the question', async () => {
    const { id, short, sent } = await ask({ text: 'Roll back on WhatsApp?', format: 'CONFIRM' }, 'ops-wa');
    expect(sent).toMatchObject({ To: `whatsapp:${PHONE}`, From: 'whatsapp:+14155238886' });
    expect(sent.ContentSid).toMatch(/^HX/);
    const res = await text('Yes', {
      channel: 'ops-wa',
      from: `whatsapp:${PHONE}`,
      extra: { ButtonText: 'Yes', ButtonPayload: `tai:${short}:1` },
    });
    expect(message(res.twiml)).toBe(`Recorded for ${short}: Yes.`);
    expect(await question(id)).toMatchObject({
      status: 'ANSWERED',
      answer: true,
      answeredBy: `ops-wa:whatsapp:${PHONE}`,
    });
  });
});
