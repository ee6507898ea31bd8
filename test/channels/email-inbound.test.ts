// Replies by mail at the email channel's inbound door (API.md §9.1), over real HTTP on the real
// server (Redis store), each provider's post written by test/support/fakes/email-inbound.ts:
// Mailgun's unsigned body (timestamp window, each token taken once, basic credentials in the
// route URL checked before the body is read, the rate limit), automatic replies ignored in each
// provider's header form, replies with a photo taken up to the provider's own maximum and
// refused one byte past it, charsets and HTML-only replies, SendGrid's raw mode refused with a
// message, and our own mail marked as sent by a program.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMAIL_INBOUND_MAX_BYTES } from '../../src/channels/email/inbound.ts';
import { graphqlAt, manifestOf, startChannelServer } from '../support/channel-server.ts';
import {
  basicAuth,
  type InboundPost,
  mailgunPost,
  photo,
  postmarkPost,
  type ReplyMail,
  sendgridKeys,
  sendgridPost,
} from '../support/fakes/email-inbound.ts';
import { type FakeSmtp, startFakeSmtp } from '../support/fakes/smtp.ts';
import type { TestServer } from '../support/server.ts';

const MAILGUN_KEY = 'key-inbound-test-mailgun';
const MAILGUN_BASIC = 'mailgun:route-password-0002';
const POSTMARK_BASIC = 'postmark:inbound-password-0003';
const keys = sendgridKeys();
const PERSON = 'ana@example.com';
const ADDRESS = 'reply@in.example.com';

let smtp: FakeSmtp;
let t: TestServer;
let base: string;

function channelLines(name: string, inbound: string): string[] {
  return [
    `  ${name}:`,
    '    plugin: email',
    '    config:',
    '      smtpUrlEnv: SMTP_URL',
    '      from: tai@example.com',
    `      defaultRecipient: ${PERSON}`,
    `      inbound: { ${inbound}, address: ${ADDRESS} }`,
  ];
}

async function manifest() {
  return manifestOf(
    [
      'channels:',
      ...channelLines('mg', 'provider: mailgun, secretEnv: MG_KEY, basicAuthEnv: MG_BASIC'),
      ...channelLines('pm', 'provider: postmark, secretEnv: PM_BASIC'),
      ...channelLines('sg', 'provider: sendgrid, secretEnv: SG_KEY'),
    ],
    {
      SMTP_URL: smtp.url,
      MG_KEY: MAILGUN_KEY,
      MG_BASIC: MAILGUN_BASIC,
      PM_BASIC: POSTMARK_BASIC,
      SG_KEY: keys.publicKey,
    },
  );
}

beforeAll(async () => {
  smtp = await startFakeSmtp('tai', 'smtp-pass-inbound-0004');
  t = await startChannelServer(await manifest());
  base = await t.listen();
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

type Provider = 'mg' | 'pm' | 'sg';
const PROVIDERS: Provider[] = ['mg', 'pm', 'sg'];
const MAX = {
  mg: EMAIL_INBOUND_MAX_BYTES.mailgun,
  pm: EMAIL_INBOUND_MAX_BYTES.postmark,
  sg: EMAIL_INBOUND_MAX_BYTES.sendgrid,
};

const gql = graphqlAt(() => base);
const door = (name: string, at = base) => `${at}/api/interactions/channels/${name}`;
let n = 0;

/** Asks on `channel`; the question's id and the subject a reply to its mail carries. */
async function ask(channel: Provider, format: 'TEXT' | 'CONFIRM', text = `Question ${++n} ${Date.now()}?`) {
  const r = await gql(
    `mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) { question { id } } }`,
    { input: { channel, text, format } },
  );
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  const mail = await smtp.waitFor((m) => (m.parsed.text ?? '').includes(text));
  return { id: r.data!.askUser.question.id as string, subject: `Re: ${mail.parsed.subject}`, mail };
}

async function question(id: string) {
  const r = await gql('query($id: ID!) { question(id: $id) { status answer answeredBy } }', { id }, 'ops');
  return r.data!.question as { status: string; answer: unknown; answeredBy: string | null };
}

function postOf(channel: Provider, mail: ReplyMail, opts: { token?: string; timestamp?: string } = {}) {
  if (channel === 'mg') return mailgunPost(MAILGUN_KEY, mail, { basic: MAILGUN_BASIC, ...opts });
  if (channel === 'pm') return postmarkPost(POSTMARK_BASIC, mail);
  return sendgridPost(keys, mail);
}

async function post(channel: string, p: InboundPost, at = base) {
  const res = await fetch(door(channel, at), {
    method: 'POST',
    headers: p.headers,
    body: new Uint8Array(p.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

const reply = (subject: string, text: string, more: Partial<ReplyMail> = {}): ReplyMail => ({
  from: PERSON,
  to: ADDRESS,
  subject,
  text,
  ...more,
});

/**
 * A request whose headers are sent and whose body is not: the answer, if it comes before any
 * body byte, shows the door decided on the headers alone.
 */
function headersOnly(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

/** Streams `head`, then zero bytes up to `total`, chunked (no length), stopping once answered. */
function chunkedUntilAnswered(url: string, headers: Record<string, string>, head: Buffer, total: number) {
  return new Promise<{ status: number; sent: number }>((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = httpRequest(
      url,
      { method: 'POST', headers: { ...headers, 'transfer-encoding': 'chunked' } },
      (res) => {
        answered = true;
        res.resume();
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, sent });
          req.destroy();
        });
      },
    );
    req.on('error', (err) => (answered ? undefined : reject(err)));
    const chunk = Buffer.alloc(65_536);
    const write = () => {
      if (sent === 0) {
        req.write(head);
        sent = head.length;
      }
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', write);
      }
      if (!answered) req.end();
    };
    write();
  });
}

describe('Mailgun: a signature that carries no body', () => {
  it('a timestamp more than 300 s old or ahead is refused (401); one within the window answers', async () => {
    const { id, subject } = await ask('mg', 'CONFIRM');
    const now = Math.floor(Date.now() / 1000);
    // Whole seconds against a clock in milliseconds: 302 s is past the window however late in its second.
    for (const ts of [now - 302, now + 302, now - 365 * 86_400]) {
      const r = await post('mg', postOf('mg', reply(subject, 'yes'), { timestamp: String(ts) }));
      expect(r.status, String(ts - now)).toBe(401);
    }
    expect((await question(id)).status).toBe('PENDING');
    const r = await post('mg', postOf('mg', reply(subject, 'yes'), { timestamp: String(now - 295) }));
    expect(r).toEqual({ status: 200, body: { status: 'recorded' } });
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: true });
  });

  it('a token is taken once whatever the mail was: after an ignored stray mail, the same signature cannot answer', async () => {
    const { id, subject } = await ask('mg', 'CONFIRM');
    const signed = { token: `tok-${Date.now()}-a`, timestamp: String(Math.floor(Date.now() / 1000)) };
    const stray = await post(
      'mg',
      postOf('mg', reply('Hello there', 'lunch?', { from: 'bob@example.com' }), signed),
    );
    expect(stray).toEqual({ status: 200, body: { status: 'ignored' } });
    // The captured signature with another sender, the question's subject and "yes": taken already.
    const replayed = await post('mg', postOf('mg', reply(subject, 'yes'), signed));
    expect(replayed).toEqual({ status: 200, body: { status: 'repeat' } });
    expect((await question(id)).status).toBe('PENDING');
  });

  it('a token that answered cannot carry a second, different answer', async () => {
    const { id, subject } = await ask('mg', 'TEXT');
    const signed = { token: `tok-${Date.now()}-b`, timestamp: String(Math.floor(Date.now() / 1000)) };
    expect((await post('mg', postOf('mg', reply(subject, 'Ship on Monday'), signed))).body).toEqual({
      status: 'recorded',
    });
    const other = await ask('mg', 'TEXT');
    const r = await post('mg', postOf('mg', reply(other.subject, 'Drop the release'), signed));
    expect(r.body).toEqual({ status: 'repeat' });
    expect((await question(other.id)).status).toBe('PENDING');
    expect((await question(id)).answer).toBe('Ship on Monday');
  });

  it('missing or wrong basic credentials are refused (401) before the body is read', async () => {
    const p = postOf('mg', reply('Re: [Q-ABCDEF] x', 'yes'));
    const headers = { 'content-type': p.headers['content-type']!, 'content-length': '200000' };
    const auths: Record<string, string>[] = [
      {},
      { authorization: basicAuth('mailgun:guessed') },
      { authorization: 'Bearer x' },
    ];
    for (const auth of auths) {
      const r = await headersOnly(door('mg'), { ...headers, ...auth });
      expect(r.status).toBe(401);
      expect(JSON.parse(r.body)).toMatchObject({ code: 'UNAUTHENTICATED' });
    }
    // The right credentials with the wrong signing key: read, then refused.
    const forged = mailgunPost('key-guessed', reply('Re: [Q-ABCDEF] x', 'yes'), { basic: MAILGUN_BASIC });
    expect((await post('mg', forged)).status).toBe(401);
  });

  it('a Mailgun channel without basicAuthEnv is refused at start, naming the key', async () => {
    const bad = manifestOf(['channels:', ...channelLines('mg2', 'provider: mailgun, secretEnv: MG_KEY')], {
      SMTP_URL: smtp.url,
      MG_KEY: MAILGUN_KEY,
    });
    await expect(bad).rejects.toThrow(/basicAuthEnv/);
  });

  it('the Mailgun door is rate-limited per client like the callback doors; the others are not', async () => {
    const limited = await startChannelServer(await manifest(), { INTERACTIONS_RATE_LIMIT_PER_MINUTE: '2' });
    try {
      const at = await limited.listen();
      const stray = () => postOf('mg', reply('Hello', 'x'));
      expect((await post('mg', stray(), at)).status).toBe(200);
      expect((await post('mg', stray(), at)).status).toBe(200);
      const third = await post('mg', stray(), at);
      expect(third.status).toBe(429);
      expect(third.body).toMatchObject({ code: 'RATE_LIMITED' });
      for (let i = 0; i < 3; i++) {
        expect((await post('pm', postOf('pm', reply('Hello', 'x')), at)).status).toBe(200);
      }
    } finally {
      await limited.close();
    }
  });
});

describe('automatic replies answer nothing', () => {
  const cases: [Provider, [string, string][], string][] = [
    ['mg', [['Auto-Submitted', 'auto-replied']], 'Mailgun message-headers, Auto-Submitted'],
    ['mg', [['X-Autoreply', 'yes']], 'Mailgun message-headers, X-Autoreply'],
    ['pm', [['Auto-Submitted', 'auto-replied (vacation)']], 'Postmark Headers, Auto-Submitted'],
    ['pm', [['X-MS-Exchange-Generated-Message-Source', 'Mailbox Rules Agent']], 'Postmark Headers, Exchange'],
    ['sg', [['Auto-Submitted', 'auto-replied']], 'SendGrid headers block, Auto-Submitted'],
    ['sg', [['Precedence', 'auto_reply']], 'SendGrid headers block, Precedence'],
    ['sg', [['X-Autorespond', 'vacation']], 'SendGrid headers block, X-Autorespond'],
  ];
  for (const [channel, headers, label] of cases) {
    it(`${label}: ignored, the TEXT question stays pending`, async () => {
      const { id, subject } = await ask(channel, 'TEXT');
      const r = await post(
        channel,
        postOf(channel, reply(subject, 'I am out of the office until Monday.', { headers })),
      );
      expect(r).toEqual({ status: 200, body: { status: 'ignored' } });
      expect((await question(id)).status).toBe('PENDING');
    });
  }

  it('an auto-responder subject ("Automatic reply:", "Out of Office") is ignored; Auto-Submitted: no answers', async () => {
    const { id, subject } = await ask('pm', 'TEXT');
    for (const s of [`Automatic reply: ${subject}`, `Out of Office: ${subject}`]) {
      expect((await post('pm', postOf('pm', reply(s, 'Away')))).body).toEqual({ status: 'ignored' });
    }
    expect((await question(id)).status).toBe('PENDING');
    const r = await post(
      'pm',
      postOf('pm', reply(subject, 'Written by me', { headers: [['Auto-Submitted', 'no']] })),
    );
    expect(r.body).toEqual({ status: 'recorded' });
    expect((await question(id)).answer).toBe('Written by me');
  });
});

describe('replies with attachments, up to the provider maximum', () => {
  for (const channel of PROVIDERS) {
    it(`${channel}: a reply with a 5 MB photo answers`, async () => {
      const { id, subject } = await ask(channel, 'CONFIRM');
      const p = postOf(channel, reply(subject, 'yes', { photo: photo(5 * 1024 * 1024) }));
      expect(p.body.length).toBeGreaterThan(5 * 1024 * 1024);
      expect(await post(channel, p)).toEqual({ status: 200, body: { status: 'recorded' } });
      expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: true });
    });
  }

  it('a declared length one byte over each provider maximum is 413, before the body is read', async () => {
    // Sent together: the server lingers a bounded while for a refused body before it answers.
    const refused = await Promise.all(
      PROVIDERS.map((channel) => {
        const p = postOf(channel, reply('Re: [Q-ABCDEF] x', 'yes'));
        return headersOnly(door(channel), { ...p.headers, 'content-length': String(MAX[channel] + 1) });
      }),
    );
    for (const r of refused) {
      expect(r.status).toBe(413);
      expect(JSON.parse(r.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    }
  });

  it('a chunked body (no length) past the maximum is refused 413 once the maximum is passed', async () => {
    const { id, subject } = await ask('sg', 'CONFIRM');
    const p = postOf('sg', reply(subject, 'yes'));
    const r = await chunkedUntilAnswered(door('sg'), { ...p.headers }, p.body, MAX.sg + 4 * 65_536);
    expect(r.status).toBe(413);
    expect((await question(id)).status).toBe('PENDING');
  });
});

describe('charsets and HTML-only replies', () => {
  it('SendGrid: a windows-1252 reply is decoded by its `charsets` field', async () => {
    const { id, subject } = await ask('sg', 'TEXT');
    const text = 'Café “déjà vu” – 5 € for Zoë';
    const r = await post('sg', postOf('sg', reply(subject, text, { charset: 'windows-1252' })));
    expect(r.body).toEqual({ status: 'recorded' });
    expect((await question(id)).answer).toBe(text);
  });

  const html =
    '<html><head><style>p{color:red}</style></head><body><div dir="ltr">Ship it on Friday &amp; tell ops&nbsp;&#8212; thanks</div>' +
    '<br><div class="gmail_quote"><div>On Tue, tai wrote:</div><blockquote>The question</blockquote></div></body></html>';
  for (const channel of PROVIDERS) {
    it(`${channel}: an HTML-only reply answers from the HTML's text`, async () => {
      const { id, subject } = await ask(channel, 'TEXT');
      const r = await post(channel, postOf(channel, reply(subject, '', { html })));
      expect(r.body).toEqual({ status: 'recorded' });
      expect((await question(id)).answer).toBe('Ship it on Friday & tell ops — thanks');
    });
  }

  it("SendGrid's raw MIME mode is refused with a message that says what to change", async () => {
    const { id, subject } = await ask('sg', 'CONFIRM');
    const raw = `From: ${PERSON}\r\nSubject: ${subject}\r\n\r\nyes\r\n`;
    const r = await post('sg', postOf('sg', reply(subject, 'yes', { raw })));
    expect(r.status).toBe(400);
    expect(String(r.body?.error)).toMatch(/raw, full MIME message/);
    expect((await question(id)).status).toBe('PENDING');
  });
});

describe('our own mail', () => {
  it('is marked as sent by a program, and asks Exchange for no automatic replies', async () => {
    const { mail } = await ask('mg', 'CONFIRM');
    expect(mail.parsed.headers.get('auto-submitted')).toBe('auto-generated');
    expect(mail.parsed.headers.get('x-auto-response-suppress')).toBe('OOF, AutoReply');
  });
});
