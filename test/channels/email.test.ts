// The email channel (API.md §9.1) against a real SMTP server started here (smtp-server), each
// message parsed by a real parser (mailparser): the parts, escaping, the reference in the subject,
// the choice links (a GET, as a mail scanner makes it, changes nothing; the page's POST answers),
// recipients checked as addresses, and the follow-up mail only when configured.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailPlugin } from '../../src/channels/email/plugin.ts';
import { graphqlAt, manifestOf, startChannelServer } from '../support/channel-server.ts';
import { runCliInProcess } from '../support/cli-run.ts';
import { channelContext, channelQuestion } from '../support/fakes/channel-context.ts';
import { mailgunPost, postmarkPost } from '../support/fakes/email-inbound.ts';
import { type FakeSmtp, type ReceivedMail, startFakeSmtp } from '../support/fakes/smtp.ts';
import { KEYS, type TestServer } from '../support/server.ts';

const PASSWORD = 'smtp-pass-never-shown-0001';
const MAILGUN_KEY = 'key-email-test-mailgun';
const MAILGUN_BASIC = 'mailgun:route-password-0001';
let smtp: FakeSmtp;
let t: TestServer;
let base: string;

beforeAll(async () => {
  smtp = await startFakeSmtp('tai', PASSWORD);
  const manifest = await manifestOf(
    [
      'channels:',
      '  mail:',
      '    plugin: email',
      '    config:',
      '      smtpUrlEnv: SMTP_URL',
      '      from: tai@example.com',
      '      defaultRecipient: ana@example.com',
      '  quiet-mail:',
      '    plugin: email',
      '    config: { smtpUrlEnv: SMTP_URL, from: tai@example.com }',
      '  mail-in:',
      '    plugin: email',
      '    config:',
      '      smtpUrlEnv: SMTP_URL',
      '      from: tai@example.com',
      '      defaultRecipient: ana@example.com',
      '      inbound:',
      '        { provider: mailgun, secretEnv: MAILGUN_KEY, basicAuthEnv: MAILGUN_BASIC, address: reply@in.example.com }',
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
const ASK = `mutation($input: AskUserInput!) { askUser(input: $input, holdSeconds: 0) {
  callbackUrl question { id recipient } } }`;

async function ask(
  input: Record<string, unknown>,
): Promise<{ id: string; callbackUrl: string; mail: ReceivedMail }> {
  const { marker: given, ...fields } = input;
  const r = await gql(ASK, { input: { channel: 'mail', ...fields } });
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  const marker = String(given ?? input.text);
  const mail = await smtp.waitFor((m) => (m.parsed.text ?? '').includes(marker));
  return { id: r.data!.askUser.question.id, callbackUrl: r.data!.askUser.callbackUrl, mail };
}

async function question(id: string) {
  const r = await gql('query($id: ID!) { question(id: $id) { status answer answeredBy } }', { id }, 'ops');
  return r.data!.question as { status: string; answer: unknown; answeredBy: string | null };
}

/** The callback door on this server for a link in a mail (the public base differs in tests). */
const local = (url: string) => {
  const u = new URL(url);
  return `${base}${u.pathname}${u.search}`;
};

/** The links of the text part, `label: url` per line. */
function textLinks(mail: ReceivedMail): Record<string, string> {
  return Object.fromEntries(
    [...(mail.parsed.text ?? '').matchAll(/^(.+): (https?:\/\/\S+)$/gm)].map((m) => [m[1]!, m[2]!]),
  );
}

describe('email channel (real SMTP server, mailparser)', () => {
  it('a CONFIRM: from, to, a text and an HTML part, the reference in the subject, a link per choice in both', async () => {
    const { mail, callbackUrl } = await ask({ text: 'Restart the billing workers?', format: 'CONFIRM' });
    expect(mail.to).toEqual(['ana@example.com']);
    expect(mail.parsed.from?.value[0]?.address).toBe('tai@example.com');
    const ref = /^\[(Q-[A-Z2-9]{6})\] Restart the billing workers\?$/.exec(mail.parsed.subject ?? '')?.[1];
    expect(ref).toBeDefined();
    expect(mail.parsed.text).toContain(`Reference: ${ref}`);
    expect(textLinks(mail)).toEqual({ Yes: `${callbackUrl}?choice=1`, No: `${callbackUrl}?choice=0` });
    const html = String(mail.parsed.html);
    expect(html).toContain(`href="${callbackUrl}?choice=1"`);
    expect(html).toContain(`href="${callbackUrl}?choice=0"`);
    expect(html).toContain(ref!);
  });

  it('hostile text is escaped in the HTML part, kept as typed in the text part, and is one line in the subject', async () => {
    const text =
      '<img src=x onerror=alert(1)> & <a href="https://evil.example">pay</a>\nBcc: eve@evil.example';
    const { mail } = await ask({ text, marker: 'onerror', format: 'CONFIRM' });
    const html = String(mail.parsed.html);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<a href="https://evil.example"');
    expect(html).toContain(
      '&#60;img src=x onerror=alert(1)&#62; &#38; &#60;a href=&#34;https://evil.example&#34;&#62;',
    );
    expect(mail.parsed.text?.startsWith(text)).toBe(true);
    expect(mail.parsed.subject).toMatch(
      /^\[Q-[A-Z2-9]{6}\] <img src=x onerror=alert\(1\)> & .* Bcc: eve@evil\.example$/,
    );
    expect(mail.parsed.bcc).toBeUndefined();
    expect(mail.to).toEqual(['ana@example.com']);
  });

  it('a choice link: the GET (a mail scanner) shows the choice and changes nothing; the page posts it and that answers', async () => {
    const { id, mail } = await ask({
      text: 'Which region takes the failover?',
      format: 'SELECT',
      options: ['eu-west', 'us-east', 'ap-south'],
    });
    const links = textLinks(mail);
    expect(Object.keys(links)).toEqual(['eu-west', 'us-east', 'ap-south']);
    const link = local(links['us-east']!);
    for (const method of ['GET', 'HEAD', 'GET']) {
      expect((await fetch(link, { method })).status).toBe(200);
    }
    const page = await (await fetch(link)).text();
    expect(page).toContain('<strong>us-east</strong>');
    expect(page).toContain('<input type="hidden" name="choice" value="1">');
    expect(await question(id)).toMatchObject({ status: 'PENDING', answer: null });
    // The person presses the page's button: the browser posts the form to the same URL.
    const res = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: 'choice=1',
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('This has been answered');
    expect(await question(id)).toEqual({ status: 'ANSWERED', answer: 'us-east', answeredBy: 'callback' });
  });

  it('CONFIRM "No" by its link answers false; an index the question lacks is refused with the valid ones', async () => {
    const { id, mail } = await ask({ text: 'Drop the stale replicas?', format: 'CONFIRM' });
    const no = local(textLinks(mail).No!);
    const post = (body: string) =>
      fetch(no, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    // An index the question lacks, or anything else, is not shown: the question's usual page.
    for (const q of ['7', '%3Cb%3Ex', '1x']) {
      const page = await (await fetch(no.replace(/choice=\d+$/, `choice=${q}`))).text();
      expect(page).not.toContain('Your answer');
      expect(page).not.toContain('<b>x');
    }
    const bad = await post('choice=7');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("the form's choice must be one of: 1 (Yes), 0 (No)");
    expect((await question(id)).status).toBe('PENDING');
    expect((await post('choice=0')).status).toBe(200);
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: false });
  });

  it('an APPROVAL: the action and its arguments, Approve and Reject by link (GET changes nothing), Edit and approve to the answer page', async () => {
    const action = {
      name: 'payments.refund',
      summary: 'Refund order <A-1042>',
      arguments: { orderId: 'A-1042', amount: 25, meta: { reason: 'late' } },
      argumentsSchema: {
        type: 'object',
        properties: { orderId: { type: 'string' }, amount: { type: 'number' }, meta: { type: 'object' } },
      },
      editable: true,
    };
    const { id, callbackUrl, mail } = await ask({
      text: 'May I refund this order?',
      format: 'APPROVAL',
      action,
    });
    const text = mail.parsed.text ?? '';
    expect(text).toContain('Action: payments.refund');
    expect(text).toContain('  amount: 25');
    expect(text).toContain('  meta: {"reason":"late"}');
    expect(mail.parsed.html).toContain('Refund order &#60;A-1042&#62;');
    expect(textLinks(mail)).toEqual({
      Approve: `${callbackUrl}?choice=1`,
      Reject: `${callbackUrl}?choice=0`,
      'Edit and approve': callbackUrl,
    });
    const approve = local(textLinks(mail).Approve!);
    const page = await (await fetch(approve)).text();
    expect(page).toContain('<strong>Approve</strong>');
    expect((await question(id)).status).toBe('PENDING');
    const post = (body: string) =>
      fetch(approve, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    const bad = await post('choice=2');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("the form's choice must be one of: 1 (Approve), 0 (Reject)");
    expect((await question(id)).status).toBe('PENDING');
    expect((await post('choice=1')).status).toBe(200);
    // The stored answer carries the arguments as approved: the proposal, unedited.
    expect(await question(id)).toMatchObject({
      status: 'ANSWERED',
      answer: { decision: 'APPROVED', arguments: action.arguments },
    });
  });

  it('an APPROVAL rejected by its link; not editable: no edit link', async () => {
    const { id, mail } = await ask({
      text: 'May I drop the staging database?',
      format: 'APPROVAL',
      action: { name: 'db.drop', arguments: { db: 'staging' } },
    });
    expect(Object.keys(textLinks(mail))).toEqual(['Approve', 'Reject']);
    const res = await fetch(local(textLinks(mail).Reject!), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'choice=0',
    });
    expect(res.status).toBe(200);
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: { decision: 'REJECTED' } });
  });

  it('TEXT, FORM and EXTERNAL link to the answer page (EXTERNAL: its own link)', async () => {
    const text = await ask({ text: 'Release note line?', format: 'TEXT' });
    expect(textLinks(text.mail)).toEqual({ Answer: text.callbackUrl });
    const form = await ask({
      text: 'Maintenance window?',
      format: 'FORM',
      schema: { type: 'object', properties: { start: { type: 'string' } }, required: ['start'] },
    });
    expect(textLinks(form.mail)).toEqual({ Answer: form.callbackUrl });
    const ext = await ask({
      text: 'Approve in the change tool?',
      format: 'EXTERNAL',
      link: 'https://change.example/c/42?back={callback_url}',
    });
    expect(textLinks(ext.mail).Open).toMatch(/^https:\/\/change\.example\/c\/42\?back=/);
  });

  it('a recipient that is not one e-mail address is refused at ask time, and nothing is sent', async () => {
    const before = smtp.mails.length;
    for (const recipient of [
      'not-an-address',
      'a@b.com, eve@evil.example',
      'Ana <ana@example.com>',
      'ana@example.com\r\nBcc: x@y.z',
      `${'a'.repeat(65)}@example.com`,
    ]) {
      const r = await gql(ASK, { input: { channel: 'mail', text: 'Who?', format: 'CONFIRM', recipient } });
      expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.recipient' });
    }
    const none = await gql(ASK, { input: { channel: 'quiet-mail', text: 'Nobody?', format: 'CONFIRM' } });
    expect(none.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.recipient' });
    const ok = await ask({ text: 'To bo?', format: 'CONFIRM', recipient: 'bo.ops+tai@mail.example.org' });
    expect(ok.mail.to).toEqual(['bo.ops+tai@mail.example.org']);
    expect(smtp.mails.length).toBe(before + 1);
  });

  it('a refused delivery is CHANNEL_DELIVERY_FAILED with the SMTP code, never the password, and leaves no pending question', async () => {
    smtp.refuseNext(554);
    const r = await gql(ASK, { input: { channel: 'mail', text: 'Refused?', format: 'CONFIRM' } });
    expect(r.errors?.[0]?.extensions.code, JSON.stringify(r)).toBe('CHANNEL_DELIVERY_FAILED');
    expect(r.errors?.[0]?.message).toContain('SMTP 554');
    expect(JSON.stringify(r)).not.toContain(PASSWORD);
    const pending = await gql(
      '{ questions(filter: { status: [PENDING] }, first: 100) { edges { node { text } } } }',
      {},
      'ops',
    );
    expect(pending.errors).toBeUndefined();
    expect(JSON.stringify(pending.data)).not.toContain('Refused?');
  });
});

describe('email follow-up mail (the plugin)', () => {
  const schema = (notifyOnResolved: boolean) =>
    emailPlugin.config.parse({ smtpUrlEnv: 'SMTP_URL', from: 'tai@example.com', notifyOnResolved });

  it('is sent only when notifyOnResolved is set, threaded under the question, never with a sensitive answer', async () => {
    const ctx = channelContext('mail', { SMTP_URL: smtp.url });
    const quiet = emailPlugin.create(schema(false), ctx);
    const loud = emailPlugin.create(schema(true), ctx);
    const q = channelQuestion({
      text: 'The vault unseal key?',
      format: 'TEXT',
      recipient: 'ana@example.com',
      sensitive: true,
    });
    const receipt = await loud.deliver(q, 'https://tai.example/api/interactions/callback/t');
    const resolved = { ...q, status: 'ANSWERED' as const, answer: null, answeredBy: 'ops' };
    const sessions = smtp.sessions();
    await quiet.onResolved!(resolved, receipt);
    expect(smtp.sessions()).toBe(sessions);
    await loud.onResolved!(resolved, receipt);
    const follow = await smtp.waitFor(
      (m) => m.parsed.subject === `Re: [${receipt.ref}] The vault unseal key?`,
    );
    expect(follow.parsed.text?.startsWith('Answered\n')).toBe(true);
    expect(follow.parsed.inReplyTo).toBe(receipt.messageId);
    await quiet.close?.();
    await loud.close?.();
  });

  it('remind: the question again with the fresh links, under the same reference, threaded; a receipt without one is refused', async () => {
    const ctx = channelContext('mail', { SMTP_URL: smtp.url });
    const ch = emailPlugin.create(
      emailPlugin.config.parse({
        smtpUrlEnv: 'SMTP_URL',
        from: 'tai@example.com',
        inbound: { provider: 'postmark', secretEnv: 'PM', address: 'reply@in.example.com' },
      }),
      ctx,
    );
    const q = channelQuestion({
      text: 'Still rolling back?',
      format: 'CONFIRM',
      recipient: 'ana@example.com',
    });
    const receipt = await ch.deliver(q, 'https://tai.example/api/interactions/callback/first');
    await ch.remind!(q, receipt, 'https://tai.example/api/interactions/callback/fresh');
    const again = await smtp.waitFor((m) => (m.parsed.subject ?? '').startsWith('Reminder: '));
    expect(again.parsed.subject).toBe(`Reminder: [${receipt.ref}] Still rolling back?`);
    expect(again.parsed.text).toContain('Yes: https://tai.example/api/interactions/callback/fresh?choice=1');
    expect(again.parsed.inReplyTo).toBe(receipt.messageId);
    expect(again.parsed.replyTo?.value[0]?.address).toBe(`reply+${receipt.ref}@in.example.com`);
    await expect(ch.remind!(q, {}, 'https://tai.example/cb')).rejects.toThrow('names no email message');
    await ch.close?.();
  });

  it('the config takes the SMTP URL only by variable name, and addresses only as addresses', () => {
    expect(emailPlugin.config.safeParse({ smtpUrl: 'smtp://u:p@h', from: 'tai@example.com' }).success).toBe(
      false,
    );
    expect(
      emailPlugin.config.safeParse({ smtpUrlEnv: 'smtp://u:p@h', from: 'tai@example.com' }).success,
    ).toBe(false);
    expect(
      emailPlugin.config.safeParse({ smtpUrlEnv: 'SMTP_URL', from: 'Tai <tai@example.com>' }).success,
    ).toBe(false);
    expect(
      emailPlugin.config.safeParse({ smtpUrlEnv: 'SMTP_URL', from: 'tai@example.com', defaultRecipient: 'x' })
        .success,
    ).toBe(false);
    expect(emailPlugin.config.parse({ smtpUrlEnv: 'SMTP_URL', from: 'tai@example.com' })).toEqual({
      smtpUrlEnv: 'SMTP_URL',
      from: 'tai@example.com',
      notifyOnResolved: false,
    });
  });

  it('a missing or non-SMTP URL fails the delivery with a message naming the variable only', async () => {
    const q = channelQuestion({ recipient: 'ana@example.com' });
    const missing = emailPlugin.create(schema(false), channelContext('mail', {}));
    await expect(missing.deliver(q, 'https://tai.example/cb')).rejects.toThrow(
      'the SMTP URL (SMTP_URL) is not set',
    );
    const web = emailPlugin.create(
      schema(false),
      channelContext('mail', { SMTP_URL: `https://u:${PASSWORD}@h.example` }),
    );
    const err = await web.deliver(q, 'https://tai.example/cb').catch((e: Error) => e);
    expect(String(err)).toContain('must start with smtp:// or smtps://');
    expect(String(err)).not.toContain(PASSWORD);
  });
});

describe('tai channels test (email)', () => {
  it('delivers the test question to the given address', async () => {
    const r = await runCliInProcess(
      ['channels', 'test', 'mail', '--recipient', 'tester@example.com', '--json'],
      {
        env: { TAI_URL: base, TAI_API_KEY: KEYS.agent },
      },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const mail = await smtp.waitFor((m) => (m.parsed.text ?? '').includes('channel mail reaches you'));
    expect(mail.to).toEqual(['tester@example.com']);
    expect(mail.parsed.subject).toMatch(/^\[Q-[A-Z2-9]{6}\] Test message from tai-interactions/);
  });
});

describe('replies by mail (Mailgun inbound webhook)', () => {
  const door = (name: string) => `${base}/api/interactions/channels/${name}`;
  async function reply(subject: string, text: string, from = 'ana@example.com') {
    const post = mailgunPost(
      MAILGUN_KEY,
      { from, to: 'reply+x@in.example.com', subject, text },
      { basic: MAILGUN_BASIC },
    );
    const res = await fetch(door('mail-in'), {
      method: 'POST',
      headers: post.headers,
      body: new Uint8Array(post.body),
    });
    return { status: res.status, body: (await res.json()) as { status: string } };
  }
  async function askIn(input: Record<string, unknown>) {
    const r = await gql(ASK, { input: { channel: 'mail-in', ...input } });
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    const mail = await smtp.waitFor((m) => (m.parsed.text ?? '').includes(String(input.text)));
    return { id: r.data!.askUser.question.id as string, mail };
  }

  it('Reply-To is the inbound address plus the reference; the first line of a TEXT reply answers, quote and signature left out', async () => {
    const { id, mail } = await askIn({ text: 'What goes in the release note?', format: 'TEXT' });
    const ref = /\[(Q-[A-Z2-9]{6})\]/.exec(mail.parsed.subject ?? '')![1]!;
    expect(mail.parsed.replyTo?.value[0]?.address).toBe(`reply+${ref}@in.example.com`);
    const r = await reply(
      `Re: ${mail.parsed.subject}`,
      '\n  Fixes the login loop.  \nSecond line is ignored',
    );
    expect(r).toEqual({ status: 200, body: { status: 'recorded' } });
    expect(await question(id)).toEqual({
      status: 'ANSWERED',
      answer: 'Fixes the login loop.',
      answeredBy: 'mail-in:ana@example.com',
    });
  });

  it('a reply from another address, or one that answers nothing, leaves the question pending', async () => {
    const { id, mail } = await askIn({ text: 'Freeze the deploys?', format: 'CONFIRM' });
    const subject = `Re: ${mail.parsed.subject}`;
    expect((await reply(subject, 'yes', 'eve@evil.example')).body.status).toBe('invalid');
    expect((await reply(subject, 'maybe later')).body.status).toBe('invalid');
    expect((await question(id)).status).toBe('PENDING');
    expect((await reply(subject, 'Approve.')).body.status).toBe('recorded');
    expect(await question(id)).toMatchObject({ status: 'ANSWERED', answer: true });
  });

  it('a sensitive question is never answered by mail', async () => {
    const { id, mail } = await askIn({ text: 'The unseal key?', format: 'TEXT', sensitive: true });
    expect((await reply(`Re: ${mail.parsed.subject}`, 'k-123')).body.status).toBe('invalid');
    expect((await question(id)).status).toBe('PENDING');
  });

  it('mail naming no question is taken and ignored; a bad signature is 401; a missing secret is 500', async () => {
    expect(await reply('Hello there', 'yes')).toEqual({ status: 200, body: { status: 'ignored' } });
    const forged = mailgunPost(
      'key-guessed',
      { from: 'ana@example.com', to: 'r@in.example.com', subject: 'Re: [Q-ABCDEF]', text: 'yes' },
      { basic: MAILGUN_BASIC },
    );
    expect(
      (
        await fetch(door('mail-in'), {
          method: 'POST',
          headers: forged.headers,
          body: new Uint8Array(forged.body),
        })
      ).status,
    ).toBe(401);
    const post = postmarkPost('u:p', {
      from: 'ana@example.com',
      to: 'r@in.example.com',
      subject: 'Re: [Q-ABCDEF]',
      text: 'yes',
    });
    // Fails closed: a channel whose secret is unset refuses with 500 before reading anything.
    const unset = emailPlugin.create(
      emailPlugin.config.parse({
        smtpUrlEnv: 'SMTP_URL',
        from: 'tai@example.com',
        inbound: { provider: 'postmark', secretEnv: 'POSTMARK_UNSET' },
      }),
      channelContext('mail-unset', {}),
    );
    expect(
      await unset.inbound!({
        rawBody: post.body,
        headers: post.headers,
        url: door('mail-unset'),
        now: Date.now(),
      }),
    ).toMatchObject({ kind: 'reject', status: 500 });
    // A channel without `inbound` has no door at all.
    expect(
      (await fetch(door('mail'), { method: 'POST', headers: post.headers, body: new Uint8Array(post.body) }))
        .status,
    ).toBe(404);
  });
});
