// Inbound replies as each provider posts them to the email channel's inbound door, signed as that
// provider signs them, written out independently of the plugin:
// - Mailgun: form fields, `signature` = hex HMAC-SHA256(signing key, timestamp + token);
// - Postmark: JSON, HTTP basic credentials on the request;
// - SendGrid Inbound Parse: multipart/form-data, ECDSA (P-256, SHA-256) over timestamp + raw body.
import { createHmac, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

export interface InboundPost {
  body: Buffer;
  headers: Record<string, string>;
}

export interface ReplyMail {
  from: string;
  to: string;
  subject: string;
  /** What the person typed above the quoted thread. */
  text: string;
}

/** The reply as a mail client writes it: the answer, a signature, the quoted question. */
export function replyText(answer: string): string {
  return `${answer}\n\n-- \nAna, on call\n\nOn Tue, 1 Dec 2026 at 10:00, tai <tai@example.com> wrote:\n> The question\n> Yes: https://tai.example/x\n`;
}

export function mailgunPost(
  key: string,
  mail: ReplyMail,
  opts: { token?: string; timestamp?: string } = {},
): InboundPost {
  const timestamp = opts.timestamp ?? String(Math.floor(Date.now() / 1000));
  const token = opts.token ?? randomBytes(25).toString('hex');
  const signature = createHmac('sha256', key)
    .update(timestamp + token)
    .digest('hex');
  const fields = {
    recipient: mail.to,
    sender: mail.from,
    from: `Ana <${mail.from}>`,
    subject: mail.subject,
    'body-plain': replyText(mail.text),
    'stripped-text': mail.text,
    timestamp,
    token,
    signature,
  };
  return {
    body: Buffer.from(new URLSearchParams(fields).toString()),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  };
}

export function postmarkPost(
  credentials: string,
  mail: ReplyMail,
  messageId = randomBytes(16).toString('hex'),
): InboundPost {
  const json = {
    From: mail.from,
    FromName: 'Ana',
    FromFull: { Email: mail.from, Name: 'Ana', MailboxHash: '' },
    To: mail.to,
    OriginalRecipient: mail.to,
    Subject: mail.subject,
    MessageID: messageId,
    TextBody: replyText(mail.text),
    StrippedTextReply: mail.text,
    Attachments: [],
  };
  return {
    body: Buffer.from(JSON.stringify(json)),
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
    },
  };
}

export interface SendgridKeys {
  /** The base64 DER public key, as the channel's secret holds it. */
  publicKey: string;
  privateKey: ReturnType<typeof generateKeyPairSync>['privateKey'];
}

export function sendgridKeys(): SendgridKeys {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'), privateKey };
}

export function sendgridPost(
  keys: SendgridKeys,
  mail: ReplyMail,
  messageId = `<${randomBytes(8).toString('hex')}@mail.example>`,
): InboundPost {
  const boundary = `xYzZY${randomBytes(6).toString('hex')}`;
  const fields: Record<string, string> = {
    headers: `Message-ID: ${messageId}\nSubject: ${mail.subject}\nFrom: Ana <${mail.from}>\n`,
    from: `Ana <${mail.from}>`,
    to: mail.to,
    subject: mail.subject,
    text: replyText(mail.text),
    envelope: JSON.stringify({ to: [mail.to], from: mail.from }),
  };
  const body = Buffer.from(
    `${Object.entries(fields)
      .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
      .join('')}--${boundary}--\r\n`,
  );
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = sign('sha256', Buffer.concat([Buffer.from(timestamp), body]), keys.privateKey).toString(
    'base64',
  );
  return {
    body,
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'x-twilio-email-event-webhook-signature': signature,
      'x-twilio-email-event-webhook-timestamp': timestamp,
    },
  };
}
