// APPROVAL answered by a reply mail (API.md §9.1), through the e-mail inbound door of a real
// server on Redis, each question mailed to a real SMTP server first: the first word approves or
// rejects, the rest of that line is the note, and a word that decides nothing leaves it pending.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlAt, manifestOf, startChannelServer } from '../support/channel-server.ts';
import { mailgunPost } from '../support/fakes/email-inbound.ts';
import { type FakeSmtp, startFakeSmtp } from '../support/fakes/smtp.ts';
import type { TestServer } from '../support/server.ts';

const MAILGUN_KEY = 'key-email-approval-mailgun';
/** The basic credentials of the Mailgun route URL (API.md §9.1). */
const MAILGUN_BASIC = 'mailgun:route-pass-approval-0001';
let smtp: FakeSmtp;
let t: TestServer;
let base: string;

beforeAll(async () => {
  smtp = await startFakeSmtp('tai', 'smtp-pass-approval-0001');
  const manifest = await manifestOf(
    [
      'channels:',
      '  mail-in:',
      '    plugin: email',
      '    config:',
      '      smtpUrlEnv: SMTP_URL',
      '      from: tai@example.com',
      '      defaultRecipient: ana@example.com',
      '      inbound: { provider: mailgun, secretEnv: MAILGUN_KEY, basicAuthEnv: MAILGUN_BASIC, address: reply@in.example.com }',
    ],
    { SMTP_URL: smtp.url, MAILGUN_KEY, MAILGUN_BASIC },
  );
  t = await startChannelServer(manifest);
  base = await t.listen();
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const gql = graphqlAt(() => base);
const ASK = `mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) { question { id } } }`;

async function askApproval(text: string): Promise<{ id: string; subject: string }> {
  const r = await gql(ASK, {
    input: {
      channel: 'mail-in',
      text,
      format: 'APPROVAL',
      action: { name: 'payments.refund', summary: 'Refund order 1182', arguments: { amount: 40 } },
    },
  });
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  const mail = await smtp.waitFor((m) => (m.parsed.text ?? '').includes(text));
  return { id: r.data!.askUser.question.id as string, subject: `Re: ${mail.parsed.subject}` };
}

async function reply(subject: string, text: string): Promise<string> {
  const post = mailgunPost(
    MAILGUN_KEY,
    {
      from: 'Ana <ana@example.com>',
      to: 'reply+x@in.example.com',
      subject,
      text,
    },
    { basic: MAILGUN_BASIC },
  );
  const res = await fetch(`${base}/api/interactions/channels/mail-in`, {
    method: 'POST',
    headers: post.headers,
    body: new Uint8Array(post.body),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { status: string }).status;
}

async function question(id: string) {
  const r = await gql(
    'query($id: ID!) { question(id: $id) { status answer answeredBy decision } }',
    { id },
    'ops',
  );
  return r.data!.question as { status: string; answer: unknown; answeredBy: string | null };
}

describe('APPROVAL by reply mail', () => {
  it('"approve" approves the proposed arguments; the quoted question below it is not read', async () => {
    const { id, subject } = await askApproval('Refund order 1182 (approve by mail)?');
    const said = await reply(subject, 'Approve\n\nOn Tue, tai wrote:\n> Refund order 1182?\n> reject');
    expect(said).toBe('recorded');
    expect(await question(id)).toEqual({
      status: 'ANSWERED',
      answer: { decision: 'APPROVED', arguments: { amount: 40 } },
      answeredBy: 'mail-in:ana@example.com',
      decision: 'APPROVED',
    });
  });

  it('"reject: <note>" rejects with the rest of the line as the note', async () => {
    const { id, subject } = await askApproval('Refund order 1183 (reject by mail)?');
    expect(await reply(subject, 'Reject: the customer already got a voucher\nThanks')).toBe('recorded');
    expect(await question(id)).toMatchObject({
      status: 'ANSWERED',
      answer: { decision: 'REJECTED', note: 'the customer already got a voucher' },
      decision: 'REJECTED',
    });
  });

  it('a first word that decides nothing leaves the question pending', async () => {
    const { id, subject } = await askApproval('Refund order 1184 (unclear reply)?');
    expect(await reply(subject, 'maybe, ask finance first')).toBe('invalid');
    expect((await question(id)).status).toBe('PENDING');
  });
});
