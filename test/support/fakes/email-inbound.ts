// Inbound replies as each provider posts them to the email channel's inbound door, signed as that
// provider signs them, written out independently of the plugin:
// - Mailgun: form fields, `signature` = hex HMAC-SHA256(signing key, timestamp + token);
// - Postmark: JSON, HTTP basic credentials on the request;
// - SendGrid Inbound Parse: multipart/form-data, ECDSA (P-256, SHA-256) over timestamp + raw body.
// Each can carry what real replies carry: the mail's own headers (in the provider's form), a
// photo attachment, an HTML-only body, a text in another charset (SendGrid names it in `charsets`).
import { createHmac, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import iconv from 'iconv-lite';

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
  /** The mail's own headers (e.g. `Auto-Submitted`), given in each provider's form. */
  headers?: [string, string][];
  /** An attached photo's bytes. */
  photo?: Buffer;
  /** An HTML-only reply: this HTML and no plain part. */
  html?: string;
  /** SendGrid: the charset the text is encoded in (and named in `charsets`). */
  charset?: string;
  /** SendGrid's raw mode: the whole MIME message in `email`, no `text` or `html`. */
  raw?: string;
}

/** A multipart/form-data body: fields, then files, as a provider writes them. */
export function multipart(
  fields: Record<string, string | Buffer>,
  files: { name: string; filename: string; type: string; bytes: Buffer }[] = [],
): { body: Buffer; contentType: string } {
  const boundary = `xYzZY${randomBytes(6).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n`));
    parts.push(Buffer.isBuffer(v) ? v : Buffer.from(v), Buffer.from('\r\n'));
  }
  for (const f of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${f.name}"; filename="${f.filename}"\r\nContent-Type: ${f.type}\r\n\r\n`,
      ),
      f.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A photo-sized run of bytes that look like a JPEG's start. */
export function photo(bytes: number): Buffer {
  const b = randomBytes(bytes);
  b[0] = 0xff;
  b[1] = 0xd8;
  return b;
}

/** The reply as a mail client writes it: the answer, a signature, the quoted question. */
export function replyText(answer: string): string {
  return `${answer}\n\n-- \nAna, on call\n\nOn Tue, 1 Dec 2026 at 10:00, tai <tai@example.com> wrote:\n> The question\n> Yes: https://tai.example/x\n`;
}

/** `Authorization: Basic …` for `user:password`, as a client sends the credentials of a URL. */
export function basicAuth(credentials: string): string {
  return `Basic ${Buffer.from(credentials).toString('base64')}`;
}

export function mailgunPost(
  key: string,
  mail: ReplyMail,
  opts: { token?: string; timestamp?: string; basic?: string } = {},
): InboundPost {
  const timestamp = opts.timestamp ?? String(Math.floor(Date.now() / 1000));
  const token = opts.token ?? randomBytes(25).toString('hex');
  const signature = createHmac('sha256', key)
    .update(timestamp + token)
    .digest('hex');
  const fields: Record<string, string> = {
    recipient: mail.to,
    sender: mail.from,
    from: `Ana <${mail.from}>`,
    subject: mail.subject,
    ...(mail.html === undefined
      ? { 'body-plain': replyText(mail.text), 'stripped-text': mail.text }
      : { 'body-html': mail.html }),
    ...(mail.headers ? { 'message-headers': JSON.stringify(mail.headers) } : {}),
    timestamp,
    token,
    signature,
  };
  const auth: Record<string, string> = opts.basic ? { authorization: basicAuth(opts.basic) } : {};
  // With attachments, Mailgun forwards multipart/form-data (`attachment-1`, …).
  if (mail.photo) {
    const m = multipart({ ...fields, 'attachment-count': '1' }, [
      { name: 'attachment-1', filename: 'IMG_0001.jpg', type: 'image/jpeg', bytes: mail.photo },
    ]);
    return { body: m.body, headers: { 'content-type': m.contentType, ...auth } };
  }
  return {
    body: Buffer.from(new URLSearchParams(fields).toString()),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...auth },
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
    TextBody: mail.html === undefined ? replyText(mail.text) : '',
    HtmlBody: mail.html ?? '',
    StrippedTextReply: mail.html === undefined ? mail.text : '',
    Headers: (mail.headers ?? []).map(([Name, Value]) => ({ Name, Value })),
    Attachments: mail.photo
      ? [
          {
            Name: 'IMG_0001.jpg',
            Content: mail.photo.toString('base64'),
            ContentType: 'image/jpeg',
            ContentLength: mail.photo.length,
            ContentID: '',
          },
        ]
      : [],
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
  const extra = (mail.headers ?? []).map(([k, v]) => `${k}: ${v}\n`).join('');
  const fields: Record<string, string | Buffer> = {
    headers: `Message-ID: ${messageId}\nSubject: ${mail.subject}\nFrom: Ana <${mail.from}>\n${extra}`,
    from: `Ana <${mail.from}>`,
    to: mail.to,
    subject: mail.subject,
    ...(mail.raw !== undefined
      ? { email: mail.raw }
      : mail.html === undefined
        ? { text: mail.charset ? iconv.encode(replyText(mail.text), mail.charset) : replyText(mail.text) }
        : { html: mail.html }),
    envelope: JSON.stringify({ to: [mail.to], from: mail.from }),
    charsets: JSON.stringify({
      to: 'UTF-8',
      from: 'UTF-8',
      subject: 'UTF-8',
      ...(mail.html === undefined ? { text: mail.charset ?? 'UTF-8' } : { html: 'UTF-8' }),
    }),
    ...(mail.photo ? { attachments: '1' } : {}),
  };
  const files = mail.photo
    ? [{ name: 'attachment1', filename: 'IMG_0001.jpg', type: 'image/jpeg', bytes: mail.photo }]
    : [];
  const { body, contentType } = multipart(fields, files);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = sign('sha256', Buffer.concat([Buffer.from(timestamp), body]), keys.privateKey).toString(
    'base64',
  );
  return {
    body,
    headers: {
      'content-type': contentType,
      'x-twilio-email-event-webhook-signature': signature,
      'x-twilio-email-event-webhook-timestamp': timestamp,
    },
  };
}
